/**
 * `--log-format json`, set through a `--config` TOML file: one JSON object per line on stdout for
 * each request and lifecycle event, with the route template and the actor, and not one secret in
 * the whole run's output (stdout and stderr): no password, key, session cookie, claim token, key
 * pepper, message body, file name or file content, after a real set of requests (sign-in, a
 * refused sign-in, host and agent creation, a send, a file upload, a claim, an ACK, a download).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminLogin, api, createAgent, createHost, type Server, startServer, tempDir } from './harness.js';

let server: Server;
let output = '';
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
  for (const r of requests) {
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
