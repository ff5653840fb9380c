import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { api, unwrap } from './client';
import { ApiError } from './errors';
import { session } from './session';

type Seen = { url: string; headers: Headers };
let seen: Seen[] = [];

function respond(status: number, body: unknown) {
  vi.stubGlobal(
    'fetch',
    vi.fn((request: Request) => {
      seen.push({ url: request.url, headers: request.headers });
      return Promise.resolve(new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } }));
    }),
  );
}

beforeEach(() => {
  seen = [];
  localStorage.clear();
});
afterEach(() => vi.unstubAllGlobals());

describe('the API client', () => {
  it('unwraps the success envelope into its data', async () => {
    respond(200, { code: 0, msg: 'ok', data: { initialized: true } });
    await expect(unwrap(api.GET('/api/v1/user/init'))).resolves.toEqual({ initialized: true });
  });

  it('throws the server error with its localized msg, field errors, details and request id', async () => {
    respond(409, { code: 'provider_has_models', msg: '供应商仍有模型', request_id: 'req-1', details: { llm: 2 }, errors: [{ field: 'name', message: 'too long' }] });
    const error = await unwrap(api.DELETE('/api/v1/provider/providers/{provider_uuid}', { params: { path: { provider_uuid: 'p' } } })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    const e = error as ApiError;
    expect([e.status, e.code, e.message, e.requestId]).toEqual([409, 'provider_has_models', '供应商仍有模型', 'req-1']);
    expect(e.details).toEqual({ llm: 2 });
    expect(e.fieldMessage('name')).toBe('too long');
  });

  it('turns a body that is not an error body (a proxy page) into an error, not a crash', async () => {
    vi.stubGlobal('fetch', vi.fn(() => Promise.resolve(new Response('<html>bad gateway</html>', { status: 502 }))));
    const error = (await unwrap(api.GET('/api/v1/system/info')).catch((e: unknown) => e)) as ApiError;
    expect([error.status, error.code]).toEqual([502, 'unavailable']);
  });

  it('reports a network failure as code "network"', async () => {
    vi.stubGlobal('fetch', vi.fn(() => Promise.reject(new TypeError('Failed to fetch'))));
    const error = (await unwrap(api.GET('/api/v1/system/info')).catch((e: unknown) => e)) as ApiError;
    expect(error.code).toBe('network');
  });

  it('sends the session and the Workspace (not on account calls)', async () => {
    session.start('lbs_token');
    session.selectWorkspace('ws-1');
    respond(200, { code: 0, msg: 'ok', data: { providers: [], total: 0, limit: 100, offset: 0 } });
    await unwrap(api.GET('/api/v1/provider/providers'));
    await unwrap(api.GET('/api/v1/user/info'));
    expect(seen[0]?.headers.get('Authorization')).toBe('Bearer lbs_token');
    expect(seen[0]?.headers.get('X-Workspace-Id')).toBe('ws-1');
    expect(seen[1]?.headers.get('X-Workspace-Id')).toBeNull();
    expect(seen[1]?.headers.get('Authorization')).toBe('Bearer lbs_token');
  });

  it('ends the session when the server no longer knows it, but not on a failed login', async () => {
    const ended = vi.fn();
    const stop = session.onEnd(ended);
    session.start('lbs_old');
    respond(401, { code: 'invalid_authentication', msg: 'Invalid authentication credentials', request_id: 'r' });
    await unwrap(api.POST('/api/v1/user/auth', { body: { user: 'a@b.c', password: 'x' } })).catch(() => undefined);
    expect(ended).not.toHaveBeenCalled();
    await unwrap(api.GET('/api/v1/provider/providers')).catch(() => undefined);
    expect(ended).toHaveBeenCalledWith('expired');
    expect(session.token()).toBeNull();
    stop();
  });
});
