import { describe, expect, it } from 'vitest';

import { backoff, follow, parseFeed, takeEvents } from './sse';

const snapshot = (n: number) => ({ items: [], active_total: n, truncated: false });

function stream(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(encoder.encode(c));
      controller.close();
    },
  });
}

describe('the in-flight SSE feed', () => {
  it('splits complete events and keeps a partial one', () => {
    expect(takeEvents('data: {"a":1}\n\ndata: {"b"')).toEqual({ events: ['{"a":1}'], rest: 'data: {"b"' });
    expect(takeEvents('event: x\r\ndata: 1\r\ndata: 2\r\n\r\n')).toEqual({ events: ['1\n2'], rest: '' });
    expect(parseFeed('{"kind":"heartbeat"}')).toEqual({ kind: 'heartbeat' });
    expect(parseFeed('oops')).toBeNull();
  });

  it('waits longer after each failure, never more than 30 s', () => {
    expect([0, 1, 2, 3, 10].map(backoff)).toEqual([250, 1000, 2000, 4000, 30_000]);
  });

  it('delivers snapshots across chunk boundaries and reconnects after the stream ends or fails', async () => {
    const seen: number[] = [];
    const states: string[] = [];
    const controller = new AbortController();
    let calls = 0;
    const open = (): Promise<Response> => {
      calls += 1;
      if (calls === 1) {
        const frame = `data: ${JSON.stringify({ kind: 'snapshot', data: snapshot(1) })}\n\n`;
        return Promise.resolve(new Response(stream([frame.slice(0, 10), frame.slice(10), 'data: {"kind":"heartbeat"}\n\n'])));
      }
      if (calls === 2) return Promise.reject(new Error('dropped'));
      return Promise.resolve(new Response(stream([`data: ${JSON.stringify({ kind: 'snapshot', data: snapshot(3) })}\n\n`])));
    };
    const done = follow(open, { onSnapshot: (s) => {
      seen.push(s.active_total);
      if (s.active_total === 3) controller.abort();
    }, onState: (s) => states.push(s) }, controller.signal);
    await done;
    expect(seen).toEqual([1, 3]);
    expect(calls).toBe(3);
    expect(states).toContain('retrying');
    expect(states).toContain('live');
  }, 10_000);
});
