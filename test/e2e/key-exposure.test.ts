/**
 * An API key is shown exactly twice in its life: in the answer that creates it and in the one
 * that regenerates it. No other answer and no log line carries it, and a replaced, revoked or
 * disabled key stops working at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ApiResponse,
  adminLogin,
  api,
  createAgent,
  createHost,
  errorCode,
  type Server,
  startServer,
} from './harness.js';

let server: Server;
let cookie: string;
let hostId: string;
/** Every key the server ever issued in this file, and every answer that must not contain one. */
const issuedKeys: string[] = [];
const otherAnswers: ApiResponse[] = [];

function secretOf(key: string): string {
  return key.slice(key.indexOf('.') + 1);
}

async function record(res: Promise<ApiResponse>): Promise<ApiResponse> {
  const answer = await res;
  otherAnswers.push(answer);
  return answer;
}

beforeAll(async () => {
  server = await startServer();
  cookie = await adminLogin(server);
  hostId = (await createHost(server, cookie, ['127.0.0.1'])).host_id;
});

afterAll(async () => {
  await server?.stop();
});

describe('key lifecycle through the real server', () => {
  it('a regenerated key replaces the old one at once', async () => {
    const { agent, key } = await createAgent(server, cookie, hostId);
    issuedKeys.push(key);
    expect((await record(api(server, 'GET', '/me', { key }))).status).toBe(200);

    const regenerated = await api(server, 'POST', `/admin/agents/${agent.agent_id}/key`, { cookie });
    expect(regenerated.status).toBe(200);
    const fresh = regenerated.body.api_key as string;
    issuedKeys.push(fresh);
    expect(fresh).not.toBe(key);

    const old = await record(api(server, 'GET', '/me', { key }));
    expect(old.status).toBe(401);
    expect(errorCode(old)).toBe('unauthenticated');
    expect((await record(api(server, 'GET', '/me', { key: fresh }))).status).toBe(200);
  });

  it('a revoked key fails at once', async () => {
    const { agent, key } = await createAgent(server, cookie, hostId);
    issuedKeys.push(key);
    expect((await record(api(server, 'GET', '/me', { key }))).status).toBe(200);
    expect((await record(api(server, 'DELETE', `/admin/agents/${agent.agent_id}/key`, { cookie }))).status).toBe(200);
    const after = await record(api(server, 'GET', '/me', { key }));
    expect(after.status).toBe(401);
    expect(errorCode(after)).toBe('unauthenticated');
  });

  it('a disabled agent gets 401 and leaves the directory', async () => {
    const watcher = await createAgent(server, cookie, hostId);
    const target = await createAgent(server, cookie, hostId);
    issuedKeys.push(watcher.key, target.key);
    const namesIn = async () => {
      const res = await record(api(server, 'GET', '/directory', { key: watcher.key }));
      expect(res.status).toBe(200);
      return res.body.agents.map((a: { name: string }) => a.name) as string[];
    };
    expect(await namesIn()).toContain(target.agent.name);

    const disabled = await record(
      api(server, 'PATCH', `/admin/agents/${target.agent.agent_id}`, { cookie, body: { enabled: false } }),
    );
    expect(disabled.status).toBe(200);
    const denied = await record(api(server, 'GET', '/me', { key: target.key }));
    expect(denied.status).toBe(401);
    expect(errorCode(denied)).toBe('unauthenticated');
    expect(await namesIn()).not.toContain(target.agent.name);
  });
});

describe('where a key never appears', () => {
  it('in listings, the directory, identity or settings answers', async () => {
    await record(api(server, 'GET', '/admin/agents', { cookie }));
    await record(api(server, 'GET', `/admin/agents?host_id=${hostId}`, { cookie }));
    await record(api(server, 'GET', '/admin/hosts', { cookie }));
    await record(api(server, 'GET', '/admin/settings', { cookie }));
    await record(api(server, 'GET', '/me', { key: issuedKeys.at(-1) }));
    await record(api(server, 'GET', '/limits', { key: issuedKeys.at(-1) }));
    await record(api(server, 'GET', '/directory', { key: issuedKeys.at(-1) }));
    expect(issuedKeys.length).toBeGreaterThanOrEqual(5);
    expect(otherAnswers.length).toBeGreaterThanOrEqual(10);
    for (const answer of otherAnswers) {
      const everything = answer.text + JSON.stringify(answer.headers);
      for (const key of issuedKeys) {
        expect(everything).not.toContain(secretOf(key));
      }
    }
  });

  it('in the launcher output', () => {
    const output = server.stdout() + server.stderr();
    for (const key of issuedKeys) expect(output).not.toContain(secretOf(key));
    expect(output).not.toContain(server.adminPassword as string);
  });
});
