/**
 * DNS rebinding: a page on a name the attacker controls, resolved to this server, sends that name
 * in Host and in Origin alike. The server answers only to its own names (the bound host, the
 * loopback names, the machine's addresses, SWITCHBOARD_ALLOWED_HOSTS), and a browser's Origin
 * must be its own scheme and Host, on the console's writes and on every /mcp request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminLogin, api, createAgent, createHost, errorCode, type Server, startServer } from './harness.js';

let server: Server;
let cookie: string;
let key: string;

beforeAll(async () => {
  server = await startServer({ env: { SWITCHBOARD_ALLOWED_HOSTS: 'switchboard.test, Other.Example' } });
  cookie = await adminLogin(server);
  const host = await createHost(server, cookie, ['127.0.0.1']);
  key = (await createAgent(server, cookie, host.host_id)).key;
});

afterAll(async () => {
  await server?.stop();
});

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const MCP_HEADERS = { accept: 'application/json, text/event-stream' };

let n = 0;
const write = (headers: Record<string, string>) =>
  api(server, 'POST', '/admin/hosts', { cookie, headers, body: { name: `h${n++}`, addresses: ['192.0.2.1'] } });
const mcp = (headers: Record<string, string>) =>
  api(server, 'POST', '/mcp', { absolutePath: true, key, headers: { ...MCP_HEADERS, ...headers }, body: initialize });

describe('Host and Origin', () => {
  it('refuses a console write whose Host and Origin name a foreign host', async () => {
    const rebound = await write({ host: 'evil.example', origin: 'http://evil.example' });
    expect(rebound.status).toBe(403);
    expect(errorCode(rebound)).toBe('forbidden');
    const signIn = await api(server, 'POST', '/admin/login', {
      headers: { host: 'evil.example', origin: 'http://evil.example' },
      body: { username: 'admin', password: server.adminPassword },
    });
    expect(signIn.status).toBe(403);
  });

  it('takes the server’s own names, with the scheme, and refuses another scheme or port', async () => {
    const port = server.port;
    for (const name of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `switchboard.test:${port}`,
      `other.example:${port}`,
    ]) {
      const res = await write({ host: name, origin: `http://${name}` });
      expect(res.status, name).toBe(201);
    }
    expect((await write({ host: `127.0.0.1:${port}`, origin: `https://127.0.0.1:${port}` })).status).toBe(403);
    expect((await write({ host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port + 1}` })).status).toBe(403);
    expect((await write({ host: `127.0.0.1:${port}`, origin: 'null' })).status).toBe(403);
    // No Origin (an agent, the CLI): no browser to forge for, so no Host check on writes.
    expect((await write({ host: 'any.example' })).status).toBe(201);
  });

  it('checks /mcp’s Host on every request, and its Origin against it with the scheme', async () => {
    const rebound = await mcp({ host: 'evil.example', origin: 'http://evil.example' });
    expect(rebound.status).toBe(403);
    expect(errorCode(rebound)).toBe('forbidden');
    expect((await mcp({ host: 'evil.example' })).status).toBe(403);
    expect((await mcp({ origin: 'http://evil.example' })).status).toBe(403);
    expect((await mcp({ host: `localhost:${server.port}`, origin: `https://localhost:${server.port}` })).status).toBe(
      403,
    );
    expect((await mcp({})).status).toBe(200);
    expect(
      (await mcp({ host: `switchboard.test:${server.port}`, origin: `http://switchboard.test:${server.port}` })).status,
    ).toBe(200);
  });
});
