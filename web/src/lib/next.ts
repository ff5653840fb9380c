/** A `next=` target we may go to: a path on this site, never another origin. */
export function safeNext(raw: string | null, fallback = '/'): string {
  if (!raw?.startsWith('/') || raw.startsWith('//') || raw.startsWith('/\\')) return fallback;
  if (raw.startsWith('/login') || raw.startsWith('/setup')) return fallback;
  return raw;
}
