// The debug chat's WebSocket protocol (backend runtime/debug_ws.rs): authenticate with a first
// frame (a browser cannot set headers on a WebSocket, and the token stays out of the URL),
// then `message` frames; the server answers `connected`, `chunk`s as the reply streams, and
// a final `response` with the execution id.

export type ChatFrame =
  | { type: 'connected'; connection_id: string }
  | { type: 'chunk'; content: string }
  | { type: 'response'; data: { content: string; is_final: boolean; execution_id?: string; status?: string } }
  | { type: 'error'; message: string }
  | { type: 'pong' };

export function socketUrl(origin: string, pipeline: string): string {
  const url = new URL(`/api/v1/pipelines/${encodeURIComponent(pipeline)}/ws`, origin);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.toString();
}

export function authFrame(token: string, workspace: string): string {
  return JSON.stringify({ type: 'authenticate', token, workspace_uuid: workspace });
}

export function messageFrame(text: string): string {
  return JSON.stringify({ type: 'message', message: text });
}

export function parseFrame(raw: unknown): ChatFrame | null {
  if (typeof raw !== 'string') return null;
  try {
    const v = JSON.parse(raw) as { type?: unknown };
    return typeof v.type === 'string' ? (v as ChatFrame) : null;
  } catch {
    return null;
  }
}
