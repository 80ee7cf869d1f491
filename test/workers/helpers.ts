import { env, SELF } from 'cloudflare:test';

export const BASE = 'https://switchboard.test/api/v1';
export const ADMIN = { username: 'root', password: 'correct horse battery staple' };

export interface Call {
  status: number;
  body: any;
  headers: Headers;
}

export async function call(
  method: string,
  path: string,
  options: {
    body?: unknown;
    rawBody?: BodyInit;
    key?: string;
    ip?: string;
    cookie?: string;
    headers?: Record<string, string>;
  } = {},
): Promise<Call> {
  const headers: Record<string, string> = { 'cf-connecting-ip': options.ip ?? '10.0.0.1', ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.cookie) headers.cookie = options.cookie;
  let body: BodyInit | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await SELF.fetch(BASE + path, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, body: parsed, headers: response.headers };
}

/** Creates the administrator (once per test's storage) and signs in; returns the cookie. */
export async function adminCookie(): Promise<string> {
  const registry = env.REGISTRY.get(env.REGISTRY.idFromName('registry'));
  await registry.bootstrapAdmin(ADMIN.username, ADMIN.password);
  const login = await call('POST', '/admin/login', { body: ADMIN });
  const cookie = login.headers.get('set-cookie');
  if (login.status !== 200 || !cookie) throw new Error(`login failed: ${login.status} ${JSON.stringify(login.body)}`);
  return cookie.split(';')[0] as string;
}

export async function createHost(
  cookie: string,
  addresses: string[],
  name = `host-${crypto.randomUUID().slice(0, 8)}`,
) {
  const res = await call('POST', '/admin/hosts', { cookie, body: { name, addresses, os: 'linux' } });
  if (res.status !== 201) throw new Error(`createHost: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.host as { host_id: string; addresses: string[] };
}

export async function createAgent(cookie: string, hostId: string, name = `agent-${crypto.randomUUID().slice(0, 8)}`) {
  const res = await call('POST', '/admin/agents', { cookie, body: { name, host_id: hostId } });
  if (res.status !== 201) throw new Error(`createAgent: ${res.status} ${JSON.stringify(res.body)}`);
  return { agent: res.body.agent as { agent_id: string; name: string }, key: res.body.api_key as string };
}
