/**
 * Keep-alive against the real launcher (issue 10, item 3). workerd closes a connection after an
 * answer that left the request body unread, and the front used to hand the next request on that
 * pooled connection a `503 unavailable`. Every operation of the registry (generated from
 * operationList, so a new route cannot be forgotten) is driven with and without bodies through ONE
 * keep-alive client, then 200 mixed requests: every answer must be the operation's own. Plus
 * refused multipart uploads and static assets after body-carrying requests. The front's resend
 * and clean-close logic against a misbehaving upstream: test/node/front-upstream.test.ts.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_ERRORS,
  AGENT_ERRORS,
  COMMON_ERRORS,
  type ErrorCode,
  type OperationDef,
  operationList,
} from '../../core/contract/index.js';
import { API_BASE, adminLogin, api, createAgent, createHost, type Server, startServer } from './harness.js';

let server: Server;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
let freshConnections = 0;

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: any;
}

/** One request through the single keep-alive client. `path` is below the origin. */
function send(method: string, path: string, headers: Record<string, string> = {}, body?: Buffer): Promise<Answer> {
  const url = new URL(path, server.url);
  return new Promise((done, fail) => {
    const request = http.request(url, { method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', fail);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        done({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    request.on('socket', () => {
      if (!request.reusedSocket) freshConnections++;
    });
    request.on('error', fail);
    if (body && headers['transfer-encoding'] === undefined) request.setHeader('content-length', body.length);
    request.end(body);
  });
}

const json = (value: unknown) => Buffer.from(JSON.stringify(value));

function multipart(metadata: string, file: Buffer): { body: Buffer; type: string } {
  const boundary = `----keepalive${Math.random().toString(36).slice(2)}`;
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="metadata"\r\nContent-Type: application/json\r\n\r\n` +
        `${metadata}\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="data.bin"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    ),
    file,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, type: `multipart/form-data; boundary=${boundary}` };
}

/** The error codes an operation may answer with (its own, its role's, and the common ones). */
function allowedErrors(op: OperationDef): Set<ErrorCode> {
  const role = op.role === 'agent' ? AGENT_ERRORS : op.role === 'admin' ? ADMIN_ERRORS : [];
  return new Set([...op.errors, ...role, ...COMMON_ERRORS]);
}

/** Why `answer` is not the operation's own answer, or null when it is. */
function notOwn(op: OperationDef, answer: Answer): string | null {
  const requestId = answer.headers['x-request-id'];
  if (typeof requestId !== 'string' || !requestId.startsWith('req_')) return 'no X-Request-Id';
  if (answer.status < 300) {
    if (answer.status !== (op.status ?? 200)) return `success status ${answer.status}`;
    if (op.response && !op.response.safeParse(answer.json).success) return `not a ${op.id} answer: ${answer.text}`;
    return null;
  }
  const code = answer.json?.error?.code;
  if (answer.json?.request_id !== requestId) return `not a structured error: ${answer.status} ${answer.text}`;
  // The front's own answer for a connection that failed: exactly what must never happen.
  if (code === 'unavailable') return `503 unavailable: ${answer.text}`;
  if (!allowedErrors(op).has(code)) return `undeclared error ${code}: ${answer.text}`;
  return null;
}

interface Fixture {
  cookie: string;
  ownerKey: string;
  memberKey: string;
  memberId: string;
  spareAgentId: string;
  /** deleteAgent's own target, so the key operations still find the spare agent. */
  doomedAgentId: string;
  spareHostId: string;
  groupId: string;
  spareGroupId: string;
  dmChannelId: string;
  fileId: string;
}
let fx: Fixture;

beforeAll(async () => {
  server = await startServer();
  // Set-up on connections of its own (the harness's api()), so the keep-alive client starts clean.
  const cookie = await adminLogin(server);
  const host = await createHost(server, cookie, ['127.0.0.1']);
  const spareHost = await createHost(server, cookie, ['192.0.2.7']);
  const owner = await createAgent(server, cookie, host.host_id);
  const member = await createAgent(server, cookie, host.host_id);
  const spare = await createAgent(server, cookie, host.host_id);
  const doomed = await createAgent(server, cookie, host.host_id);
  const group = await api(server, 'POST', '/groups', {
    key: owner.key,
    body: { name: 'keep-alive', invitee_ids: [member.agent.agent_id] },
  });
  const spareGroup = await api(server, 'POST', '/groups', { key: owner.key, body: { name: 'to-dissolve' } });
  const upload = multipart(
    JSON.stringify({ to_agent_ids: [member.agent.agent_id], body: 'a file' }),
    Buffer.alloc(2048, 7),
  );
  const sent = await api(server, 'POST', '/messages/direct', {
    key: owner.key,
    rawBody: upload.body,
    headers: { 'content-type': upload.type },
  });
  const dmChannelId = sent.body.results[0].channel_id as string;
  const files = await api(server, 'GET', `/channels/${dmChannelId}/files`, { key: owner.key });
  fx = {
    cookie,
    ownerKey: owner.key,
    memberKey: member.key,
    memberId: member.agent.agent_id,
    spareAgentId: spare.agent.agent_id,
    doomedAgentId: doomed.agent.agent_id,
    spareHostId: spareHost.host_id,
    groupId: group.body.group.group_id,
    spareGroupId: spareGroup.body.group.group_id,
    dmChannelId,
    fileId: files.body.files[0].file_id,
  };
});

afterAll(async () => {
  agent.destroy();
  await server?.stop();
});

/** Path parameters: destructive operations get targets of their own. */
function pathFor(op: OperationDef): string {
  const ids: Record<string, string> = {
    host_id: fx.spareHostId,
    agent_id: op.id === 'deleteAgent' ? fx.doomedAgentId : fx.spareAgentId,
    group_id: op.id === 'dissolveGroup' || op.id === 'reassignGroupOwner' ? fx.spareGroupId : fx.groupId,
    channel_id: fx.dmChannelId,
    file_id: fx.fileId,
  };
  return API_BASE + op.path.replace(/\{(\w+)\}/g, (_, name: string) => ids[name] as string);
}

async function credentialsFor(op: OperationDef): Promise<Record<string, string>> {
  if (op.role === 'agent') {
    const key = op.id === 'joinGroup' || op.id === 'leaveGroup' ? fx.memberKey : fx.ownerKey;
    return { authorization: `Bearer ${key}` };
  }
  if (op.id === 'adminLogout') return { cookie: await adminLogin(server) };
  if (op.role === 'admin') return { cookie: fx.cookie };
  return {};
}

describe('one keep-alive client, every operation, with and without bodies', () => {
  it('gets only the operation’s own answers, then 200 mixed requests do too', async () => {
    const padding = json({ padding: 'x'.repeat(100_000) });
    const variants: [string, Buffer | undefined][] = [
      ['{}', json({})],
      ['100 KB', padding],
      ['no body', undefined],
    ];
    const wrong: string[] = [];
    const firstStatus = new Map<string, number>();
    for (const op of operationList) {
      const credentials = await credentialsFor(op);
      for (const [label, body] of variants) {
        const headers = body ? { ...credentials, 'content-type': 'application/json' } : credentials;
        const answer = await send(op.method.toUpperCase(), pathFor(op), headers, body);
        firstStatus.set(`${op.id} ${label}`, firstStatus.get(`${op.id} ${label}`) ?? answer.status);
        const why = notOwn(op, answer);
        if (why) wrong.push(`${op.id} (${label}): ${why}`);
      }
    }
    expect(wrong).toEqual([]);
    // The answers of the report succeed with a body: join, leave, key regenerate and revoke,
    // deletes, logout, and GETs.
    for (const id of [
      'joinGroup',
      'leaveGroup',
      'regenerateAgentKey',
      'revokeAgentKey',
      'deleteHost',
      'dissolveGroup',
      'adminLogout',
      'getMe',
      'listHosts',
      'downloadFile',
    ]) {
      expect(firstStatus.get(`${id} {}`), id).toBe(200);
    }

    // 200 mixed requests, in an order that is random but the same on every run.
    const byId = new Map(operationList.map((op) => [op.id, op]));
    const mixed: [string, () => Promise<Answer>][] = [
      ['getMe', () => send('GET', `${API_BASE}/me`, { authorization: `Bearer ${fx.ownerKey}` })],
      [
        'getInbox',
        () =>
          send(
            'GET',
            `${API_BASE}/inbox`,
            { authorization: `Bearer ${fx.memberKey}`, 'content-type': 'text/plain' },
            Buffer.from('x'),
          ),
      ],
      [
        'claimMessages',
        () =>
          send(
            'POST',
            `${API_BASE}/inbox/claim`,
            { authorization: `Bearer ${fx.memberKey}`, 'content-type': 'application/json' },
            json({ limit: 1 }),
          ),
      ],
      [
        'sendDirect',
        () =>
          send(
            'POST',
            `${API_BASE}/messages/direct`,
            { authorization: `Bearer ${fx.ownerKey}`, 'content-type': 'application/json' },
            json({ to_agent_ids: [fx.memberId], body: `mixed ${Math.random()}` }),
          ),
      ],
      [
        'joinGroup',
        () =>
          send(
            'POST',
            `${API_BASE}/groups/${fx.groupId}/join`,
            { authorization: `Bearer ${fx.memberKey}`, 'content-type': 'application/json' },
            json({}),
          ),
      ],
      [
        'listHosts',
        () =>
          send('GET', `${API_BASE}/admin/hosts`, { cookie: fx.cookie, 'content-type': 'application/json' }, padding),
      ],
      ['adminLogin', () => send('POST', `${API_BASE}/admin/login`, { 'content-type': 'application/json' }, padding)],
    ];
    let seed = 42;
    const nextIndex = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % mixed.length;
    };
    for (let i = 0; i < 200; i++) {
      const [id, run] = mixed[nextIndex()] as [string, () => Promise<Answer>];
      const why = notOwn(byId.get(id) as OperationDef, await run());
      if (why) wrong.push(`mixed #${i} ${id}: ${why}`);
    }
    expect(wrong).toEqual([]);
  });

  it('answers a refused multipart upload (bad metadata, then 500 KB) with its 400, 20 times', async () => {
    const file = Buffer.alloc(500_000, 3);
    const key = { authorization: `Bearer ${fx.ownerKey}` };
    for (let i = 0; i < 20; i++) {
      const upload = multipart('{"to_agent_ids": 5, "body": "x"}', file);
      const refused = await send(
        'POST',
        `${API_BASE}/messages/direct`,
        { ...key, 'content-type': upload.type },
        upload.body,
      );
      expect(refused.status, refused.text).toBe(400);
      expect(refused.json.error.code).toBe('validation_failed');
      const next = await send('GET', `${API_BASE}/me`, key);
      expect(next.status, next.text).toBe(200);
    }
  });

  it('keeps the connection after a chunked JSON body larger than the JSON cap (read partly, then drained)', async () => {
    // No Content-Length: the json-body middleware finds the excess while reading, releases the
    // stream, and the drain middleware reads the rest of workerd's own stream before answering.
    const big = json({ limit: 1, padding: 'x'.repeat(2_000_000) });
    const chunked = { 'content-type': 'application/json', 'transfer-encoding': 'chunked' };
    const key = { authorization: `Bearer ${fx.ownerKey}` };
    const before = freshConnections;
    for (let i = 0; i < 4; i++) {
      const refused = await send('POST', `${API_BASE}/inbox/claim`, { ...chunked, ...key }, big);
      expect(refused.status, refused.text).toBe(413);
      expect(refused.json.error.code).toBe('payload_too_large');
      const unauthenticated = await send('POST', `${API_BASE}/inbox/claim`, chunked, big);
      expect(unauthenticated.status, unauthenticated.text).toBe(401);
      const next = await send('GET', `${API_BASE}/me`, key);
      expect(next.status, next.text).toBe(200);
    }
    expect(freshConnections - before).toBeLessThanOrEqual(1);
  });

  it('answers a refusal of a body larger than the drain bound, then closes that connection', async () => {
    // 70 MB: past the worker's 64 MB drain bound (worker/body/drain.ts), so the answer goes out
    // while the body is still arriving, and that connection must end cleanly.
    const huge = Buffer.alloc(70_000_000, 1);
    const multipartType = { 'content-type': 'multipart/form-data; boundary=x' };
    for (let i = 0; i < 4; i++) {
      const withKey = i % 2 === 1;
      const headers = withKey ? { ...multipartType, authorization: `Bearer ${fx.ownerKey}` } : multipartType;
      const refused = await send('POST', `${API_BASE}/messages/direct`, headers, huge);
      expect(refused.status, refused.text).toBe(withKey ? 413 : 401);
      expect(refused.json.error.code).toBe(withKey ? 'file_too_large' : 'unauthenticated');
      expect(refused.headers.connection).toBe('close');
      const next = await send('GET', `${API_BASE}/me`, { authorization: `Bearer ${fx.ownerKey}` });
      expect(next.status, next.text).toBe(200);
    }
  });

  it('serves a static asset right after a body-carrying GET, and after a static asset with a body', async () => {
    const key = { authorization: `Bearer ${fx.ownerKey}`, 'content-type': 'application/json' };
    const before = freshConnections;
    for (let i = 0; i < 20; i++) {
      expect((await send('GET', `${API_BASE}/me`, key, json({ i }))).status).toBe(200);
      const asset = await send('GET', '/favicon.svg');
      expect(asset.status).toBe(200);
      expect(asset.headers['content-type']).toMatch(/svg/);
      expect((await send('GET', '/', { 'content-type': 'text/plain' }, Buffer.from('hello'))).status).toBe(200);
      const page = await send('GET', '/');
      expect(page.status).toBe(200);
      expect(page.text).toMatch(/<html/i);
    }
    // Connections were reused, not re-opened for every request.
    expect(freshConnections - before).toBeLessThanOrEqual(1);
  });
});
