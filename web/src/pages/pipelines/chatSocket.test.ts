import { describe, expect, it } from 'vitest';

import { authFrame, messageFrame, parseFrame, socketUrl } from './chatSocket';

describe('debug chat socket', () => {
  it('uses ws: or wss: as the page does', () => {
    expect(socketUrl('http://127.0.0.1:5300', 'p-1')).toBe('ws://127.0.0.1:5300/api/v1/pipelines/p-1/ws');
    expect(socketUrl('https://bot.example.com', 'p')).toBe('wss://bot.example.com/api/v1/pipelines/p/ws');
  });

  it('authenticates in the first frame, never in the URL', () => {
    expect(JSON.parse(authFrame('lbs_x', 'ws-1'))).toEqual({ type: 'authenticate', token: 'lbs_x', workspace_uuid: 'ws-1' });
    expect(JSON.parse(messageFrame('hi'))).toEqual({ type: 'message', message: 'hi' });
  });

  it('reads frames and ignores what is not one', () => {
    expect(parseFrame('{"type":"chunk","content":"He"}')).toEqual({ type: 'chunk', content: 'He' });
    expect(parseFrame('nope')).toBeNull();
    expect(parseFrame('{"x":1}')).toBeNull();
    expect(parseFrame(new ArrayBuffer(1))).toBeNull();
  });
});
