/**
 * `--log-format json`, set through a `--config` TOML file: one JSON object per line on stdout for
 * each request and lifecycle event, with the route template and the actor, and not one secret in
 * the whole run's output (stdout and stderr): no password, key, session cookie, claim token, key
 * pepper, message body, file name or file content, after a real set of requests (sign-in, a
 * refused sign-in, host and agent creation, a send, a file upload, a claim, an ACK, a download).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminLogin, api, createAgent, createHost, type Server, startServer, tempDir } from './harness.js';

let server: Server;
let output = '';

/**
 * A client that sends the start of a body and closes its connection: the request is over for
 * everyone, and the server's log says so. Resolves once the server has had time to notice.
 */
async function abortMidBody(path: string, key: string, type: string, start: string): Promise<void> {
  const { hostname, port } = new URL(server.url);
  const socket = net.connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.on('error', () => {});
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${key}\r\n` +
      `Content-Type: ${type}\r\nContent-Length: 1000000\r\n\r\n${start}`,
  );
  await new Promise((resolve) => setTimeout(resolve, 500));
  socket.destroy();
  await new Promise((resolve) => setTimeout(resolve, 1_500));
}
const secrets = new Map<string, string>();

beforeAll(async () => {
  const dir = tempDir('switchboard-json-log-');
  const config = join(dir, 'switchboard.toml');
  writeFileSync(config, 'log_format = "json"\n');
  server = await startServer({ args: ['--config', config] });

  const cookie = await adminLogin(server);
  secrets.set('password', server.adminPassword as string);
  secrets.set('cookie', cookie.slice(cookie.indexOf('=') + 1));
  const refused = await api(server, 'POST', '/admin/login', {
    body: { username: 'admin', password: 'wrong-password-LEAKCHECK' },
  });
  expect(refused.status).toBe(401);
  secrets.set('wrong password', 'wrong-password-LEAKCHECK');

  const host = await createHost(server, cookie, ['127.0.0.1']);
  const a = await createAgent(server, cookie, host.host_id);
  const b = await createAgent(server, cookie, host.host_id);
  secrets.set('key a', a.key);
  secrets.set('key b', b.key);

  const body = 'message body LEAKCHECK-7f3a';
  secrets.set('body', body);
  const sent = await api(server, 'POST', '/messages/direct', {
    key: a.key,
    body: { to_agent_ids: [b.agent.agent_id], body },
  });
  expect(sent.status).toBe(200);

  const form = new FormData();
  form.append('metadata', JSON.stringify({ to_agent_ids: [b.agent.agent_id], body: 'with a file LEAKCHECK-b2' }));
  form.append('file', new Blob([Buffer.from('file content LEAKCHECK-c9')]), 'name-LEAKCHECK-d1.txt');
  secrets.set('file body', 'with a file LEAKCHECK-b2');
  secrets.set('file content', 'file content LEAKCHECK-c9');
  secrets.set('file name', 'name-LEAKCHECK-d1');
  const upload = await fetch(`${server.url}/api/v1/messages/direct`, {
    method: 'POST',
    headers: { authorization: `Bearer ${a.key}` },
    body: form,
  });
  expect(upload.status).toBe(200);

  const claim = await api(server, 'POST', '/inbox/claim', { key: b.key, body: { limit: 10 } });
  expect(claim.status).toBe(200);
  const claims = claim.body.claims as {
    claim_token: string;
    message: { message_id: string; attachment?: { file_id: string } | null };
  }[];
  expect(claims.length).toBe(2);
  const items = claims.map((c) => ({ message_id: c.message.message_id, claim_token: c.claim_token }));
  for (const item of items) secrets.set(`claim token ${item.message_id}`, item.claim_token);
  const fileId = claims.find((c) => c.message.attachment)?.message.attachment?.file_id;
  expect((await api(server, 'GET', `/files/${fileId}/content`, { key: b.key })).status).toBe(200);
  const ack = await api(server, 'POST', '/inbox/ack', {
    key: b.key,
    body: { acks: items },
  });
  expect(ack.status).toBe(200);
  // Clients that go away mid-body: a JSON send, and a multipart upload inside its file part.
  await abortMidBody('/api/v1/messages/direct', a.key, 'application/json', '{"to_agent_ids":["');
  await abortMidBody(
    '/api/v1/messages/direct',
    a.key,
    'multipart/form-data; boundary=XyZ',
    `--XyZ\r\nContent-Disposition: form-data; name="metadata"\r\n\r\n${JSON.stringify({ to_agent_ids: [b.agent.agent_id], body: 'abort' })}\r\n--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\n\r\n${'x'.repeat(1000)}`,
  );
  // A key in the query string is no key, but must not be logged either.
  await api(server, 'GET', `/me?api_key=${encodeURIComponent(a.key)}`);

  secrets.set('pepper', readFileSync(join(server.dataDir, 'key-pepper'), 'utf8').trim());
  expect(await server.stop()).toBe(0);
  output = `${server.stdout()}\n${server.stderr()}`;
});

afterAll(async () => {
  await server?.stop();
});

it('writes one JSON object per line on stdout, except the ready line', () => {
  const lines = server.stdout().split('\n').filter(Boolean);
  const text = lines.filter((line) => !line.startsWith('{'));
  expect(text).toEqual([`Switchboard listening on ${server.printedUrl}`]);
  const records = lines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
  for (const record of records) {
    expect(record).toMatchObject({ time: expect.any(String), level: expect.stringMatching(/^(info|warn|error)$/) });
  }
  const events = records.map((r) => r.event);
  expect(events).toEqual(expect.arrayContaining(['listening', 'request', 'shutdown', 'stopped']));
});

it('logs each request with its route template, status, duration, client address and actor', () => {
  const requests = server
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line))
    .filter((r) => r.event === 'request');
  // A client that went away before any answer has no request ID or status (checked below).
  for (const r of requests.filter((r) => !r.aborted)) {
    expect(r).toMatchObject({
      request_id: expect.stringMatching(/^req_/),
      method: expect.any(String),
      route: expect.any(String),
      status: expect.any(Number),
      duration_ms: expect.any(Number),
      client_ip: '127.0.0.1',
    });
  }
  const send = requests.find((r) => r.method === 'POST' && r.route === '/api/v1/messages/direct');
  expect(send).toMatchObject({ status: 200, agent_id: expect.stringMatching(/^agt_/) });
  expect(requests.find((r) => r.route === '/api/v1/files/:file_id/content')).toBeDefined();
  expect(requests.find((r) => r.route === '/api/v1/admin/agents')).toMatchObject({ status: 201, admin: 'admin' });
  expect(requests.filter((r) => r.route === '/api/v1/admin/login').map((r) => r.status)).toEqual([200, 401]);
});

it('logs a client that closed its connection mid-body as an abort, never as an unexpected error', () => {
  const records = server
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line));
  const logs = records.filter((r) => r.event === 'worker_log');
  expect(logs.filter((r) => /unexpected error/i.test(r.message))).toEqual([]);
  const aborts = logs.filter((r) => /^client_aborted\b/.test(r.message));
  expect(aborts.length).toBeGreaterThanOrEqual(1);
  for (const r of aborts) expect(r.level).toBe('warn');
});

it('has no key, token, password, cookie, pepper or message content anywhere in the output', () => {
  expect(secrets.size).toBeGreaterThanOrEqual(12);
  for (const [what, secret] of secrets) {
    expect(output.includes(secret), what).toBe(false);
  }
  // No fragment of a key (its secret part), and nothing that looks like one.
  expect(output).not.toMatch(/sbk_/);
  expect(output).not.toMatch(/LEAKCHECK/);
  expect(output).not.toMatch(/switchboard_session/i);
  expect(output).not.toMatch(/authorization|cookie/i);
});
