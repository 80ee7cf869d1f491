/**
 * Listening on `::` (dual stack), an IPv4 client's peer address is `::ffff:a.b.c.d`; the front
 * hands the worker the IPv4 address, so an allowlist entry `127.0.0.1` matches.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminLogin, api, createAgent, createHost, errorCode, type Server, startServer } from './harness.js';

let server: Server;
let cookie: string;

beforeAll(async () => {
  server = await startServer({ host: '::' });
  cookie = await adminLogin(server);
});

afterAll(async () => {
  await server?.stop();
});

it('prints the wildcard address in brackets', () => {
  expect(server.printedUrl).toBe(`http://[::]:${server.port}`);
  expect(server.stdout()).toContain(`Switchboard listening on http://[::]:${server.port}\n`);
});

it('matches an IPv4 client (127.0.0.1) with the allowlist entry 127.0.0.1', async () => {
  const host = await createHost(server, cookie, ['127.0.0.1']);
  const { key } = await createAgent(server, cookie, host.host_id);
  const res = await api(server, 'GET', '/me', { key, localAddress: '127.0.0.1' });
  expect(res.status).toBe(200);
  const denied = await api(server, 'GET', '/me', { key, localAddress: '127.0.0.2' });
  expect(denied.status).toBe(403);
  expect(errorCode(denied)).toBe('source_ip_denied');
});

it('matches an IPv6 client (::1) with the allowlist entry ::1 and not 127.0.0.1', async () => {
  const v6 = await createHost(server, cookie, ['::1']);
  const { key } = await createAgent(server, cookie, v6.host_id);
  const ipv6Server = { url: `http://[::1]:${server.port}` };
  expect((await api(ipv6Server, 'GET', '/me', { key })).status).toBe(200);

  const v4 = await createHost(server, cookie, ['127.0.0.1']);
  const v4Agent = await createAgent(server, cookie, v4.host_id);
  const denied = await api(ipv6Server, 'GET', '/me', { key: v4Agent.key });
  expect(denied.status).toBe(403);
  expect(errorCode(denied)).toBe('source_ip_denied');
});
