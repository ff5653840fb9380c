// The in-flight feed over Server-Sent Events, read with fetch (EventSource cannot send the
// session and Workspace headers): `data:` frames parsed as they arrive; after the server ends
// the stream (it does every 60 s) or it drops, the next connection starts after a short wait.
import type { Snapshot } from '../../api/types';

/** Splits a growing SSE text into complete events' data (joined `data:` lines) and the rest. */
export function takeEvents(buffer: string): { events: string[]; rest: string } {
  const events: string[] = [];
  const normalized = buffer.replace(/\r\n?/g, '\n');
  const blocks = normalized.split('\n\n');
  const rest = blocks.pop() ?? '';
  for (const block of blocks) {
    const data = block
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''));
    if (data.length) events.push(data.join('\n'));
  }
  return { events, rest };
}

export type FeedFrame = { kind: 'snapshot'; data: Snapshot } | { kind: 'heartbeat' };

export function parseFeed(data: string): FeedFrame | null {
  try {
    const v = JSON.parse(data) as { kind?: unknown };
    return v.kind === 'snapshot' || v.kind === 'heartbeat' ? (v as FeedFrame) : null;
  } catch {
    return null;
  }
}

/** The wait before reconnect attempt `n` (0 after a clean end): 1 s, 2 s, 4 s … at most 30 s. */
export function backoff(failures: number): number {
  return failures === 0 ? 250 : Math.min(30_000, 1000 * 2 ** (failures - 1));
}

export interface FeedHandlers {
  onSnapshot: (s: Snapshot) => void;
  onState: (state: 'connecting' | 'live' | 'retrying') => void;
}

/** Follows the feed until `signal` aborts. `open` makes one request and answers its response. */
export async function follow(open: (signal: AbortSignal) => Promise<Response>, handlers: FeedHandlers, signal: AbortSignal): Promise<void> {
  let failures = 0;
  // Read through a function: the signal changes while this awaits.
  const aborted = () => signal.aborted;
  while (!aborted()) {
    handlers.onState(failures ? 'retrying' : 'connecting');
    try {
      const response = await open(signal);
      if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        const { events, rest } = takeEvents(buffer);
        buffer = rest;
        for (const data of events) {
          const frame = parseFeed(data);
          if (frame?.kind === 'snapshot') {
            failures = 0;
            handlers.onState('live');
            handlers.onSnapshot(frame.data);
          }
        }
      }
    } catch {
      if (aborted()) return;
      failures += 1;
    }
    if (aborted()) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, backoff(failures));
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
