// The one way the UI talks to the server: openapi-fetch over the generated `paths`, with the
// session token and the selected Workspace on every request, and the `{code, msg, data}`
// envelope unwrapped into data or an ApiError. (Server messages come in the Workspace's
// language, which the language switch sets; the server reads no per-request language.)
import createClient, { type Middleware } from 'openapi-fetch';

import { ApiError, toApiError } from './errors';
import type { paths } from './schema';
import { session } from './session';

/** Calls that never carry a Workspace (the account's own, or before there is one). */
const WITHOUT_WORKSPACE = ['/api/v1/user/', '/api/v1/system/info', '/api/v1/invitations/'];

export const headersMiddleware: Middleware = {
  onRequest({ request }) {
    const token = session.token();
    if (token && !request.headers.has('Authorization')) {
      request.headers.set('Authorization', `Bearer ${token}`);
    }
    const path = new URL(request.url).pathname;
    const workspace = session.workspace();
    if (workspace && !WITHOUT_WORKSPACE.some((p) => path.startsWith(p))) {
      request.headers.set('X-Workspace-Id', workspace);
    }
    return request;
  },
  onResponse({ request, response }) {
    // A session the server no longer knows: end it here too, so the app returns to login.
    const path = new URL(request.url).pathname;
    const sentSession = request.headers.get('Authorization')?.startsWith('Bearer lbs_') ?? false;
    if (response.status === 401 && sentSession && path !== '/api/v1/user/auth') {
      session.end('expired');
    }
    return response;
  },
};

// fetch is looked up per call (not captured once), so tests and polyfills can replace it.
export const api = createClient<paths>({ baseUrl: globalThis.location.origin, fetch: (request) => globalThis.fetch(request) });
api.use(headersMiddleware);

// `data` is absent from the schema of operations that answer `null`.
type Envelope<D> = { code: 0; msg: string; data?: D };
type Result<D> = { data?: Envelope<D>; error?: unknown; response: Response };

/** Awaits a call and answers its `data`, or throws ApiError (never resolves with an error). */
export async function unwrap<D>(call: Promise<Result<D>>): Promise<D> {
  let result: Result<D>;
  try {
    result = await call;
  } catch (cause) {
    if (cause instanceof ApiError) throw cause;
    throw new ApiError(0, { code: 'network' }, cause instanceof Error ? cause.message : String(cause));
  }
  if (result.data !== undefined && result.response.ok) return result.data.data as D;
  throw toApiError(result.response.status, result.error);
}
