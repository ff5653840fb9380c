// Direct calls to the server under test, to arrange and to check what the UI did.
export async function call(baseUrl: string, method: string, path: string, options: { token?: string; apiKey?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.apiKey) headers['x-api-key'] = options.apiKey;
  const res = await fetch(baseUrl + path, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await res.text();
  let json: { code?: unknown; msg?: string; data?: unknown } = {};
  try {
    json = JSON.parse(text) as typeof json;
  } catch {
    // not JSON
  }
  return { status: res.status, json, data: json.data as Record<string, unknown> };
}

export async function login(baseUrl: string, user: string, password: string): Promise<string> {
  const res = await call(baseUrl, 'POST', '/api/v1/user/auth', { body: { user, password } });
  if (res.status !== 200) throw new Error(`login failed: ${res.status}`);
  return res.data.token as string;
}
