// A recorded message's `message_content`, as LangBot stores it: the JSON text of its message
// chain, or plain text (`Error: …`).
export function chainOf(content: unknown): unknown {
  if (typeof content !== 'string') return content;
  try {
    const parsed: unknown = JSON.parse(content);
    return Array.isArray(parsed) ? parsed : content;
  } catch {
    return content;
  }
}
