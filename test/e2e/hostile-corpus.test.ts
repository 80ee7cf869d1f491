/**
 * The hostile-input corpus (issue 10, "keep the proofs in the repo") against the real launcher,
 * through its front. Cases are data (`hostile/corpus-cases.ts`); for each one: a 4xx with the
 * structured error of api-v1.md (the front's own refusals included), no new Durable Object,
 * database or R2 blob on disk, and a normal request still answered. At the end, nothing the
 * cases tried to create is visible through the API.
 */
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formPart, multipartBody } from '../workers/multipart-body.js';
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
import { CORPUS, type CorpusContext } from './hostile/corpus-cases.js';
import { diskSnapshot, storageChanges } from './hostile/data-dir.js';

let server: Server;
let ctx: CorpusContext;

/** What an attacker could have changed, read through the API (last access times left out). */
async function visibleState(): Promise<unknown> {
  const get = async (path: string, auth: { key?: string; cookie?: string }) => {
    const res = await api(server, 'GET', path, auth);
    expect(res.status, `${path}: ${res.text}`).toBe(200);
    return res.body;
  };
  const admin = { cookie: ctx.cookie };
  const agents = (await get('/admin/agents?limit=200', admin)).agents.map(
    ({ last_access_at: _, ...agent }: Record<string, unknown>) => agent,
  );
  return {
    hosts: await get('/admin/hosts?limit=200', admin),
    agents,
    groups: await get('/admin/groups?limit=200', admin),
    channels: await get('/admin/channels?limit=200', admin),
    settings: await get('/admin/settings', admin),
    group: await get(`/groups/${ctx.groupId}`, { key: ctx.a.key }),
    history: await get(`/channels/${ctx.groupId}/messages`, { key: ctx.a.key }),
    inboxA: await get('/inbox', { key: ctx.a.key }),
    inboxB: await get('/inbox', { key: ctx.b.key }),
    channelsA: await get('/channels', { key: ctx.a.key }),
    channelsB: await get('/channels', { key: ctx.b.key }),
  };
}

let baseline: unknown;

beforeAll(async () => {
  server = await startServer();
  const cookie = await adminLogin(server);
  const spareCookie = await adminLogin(server);
  const host = await createHost(server, cookie, ['127.0.0.1']);
  const spareHost = await createHost(server, cookie, ['192.0.2.200']);
  const a = await createAgent(server, cookie, host.host_id);
  const b = await createAgent(server, cookie, host.host_id);
  const group = await api(server, 'POST', '/groups', {
    key: a.key,
    body: { name: 'corpus', invitee_ids: [b.agent.agent_id] },
  });
  expect(group.status, group.text).toBe(201);
  const groupId = group.body.group.group_id as string;
  expect((await api(server, 'POST', `/groups/${groupId}/join`, { key: b.key })).status).toBe(200);
  const spareAgent = await createAgent(server, cookie, host.host_id);
  const spareGroup = await api(server, 'POST', '/groups', { key: a.key, body: { name: 'corpus-spare' } });
  expect(spareGroup.status, spareGroup.text).toBe(201);
  // One accepted upload first: R2's own metadata database is created by the first upload ever,
  // which is not something a refused request did.
  const form = new FormData();
  form.append('metadata', JSON.stringify({ to_agent_ids: [b.agent.agent_id], body: 'setup file' }));
  form.append('file', new Blob(['setup bytes'], { type: 'text/plain' }), 'setup.txt');
  const uploaded = await fetch(`${server.url}/api/v1/messages/direct`, {
    method: 'POST',
    headers: { authorization: `Bearer ${a.key}` },
    body: form,
  });
  expect(uploaded.status).toBe(200);
  await uploaded.arrayBuffer();
  ctx = {
    server,
    cookie,
    spareCookie,
    a: { id: a.agent.agent_id, key: a.key },
    b: { id: b.agent.agent_id, key: b.key },
    hostId: host.host_id,
    spareHostId: spareHost.host_id,
    groupId,
    spareAgentId: spareAgent.agent.agent_id,
    spareGroupId: spareGroup.body.group.group_id,
    dmId: `dm_${createHash('sha256').update(randomBytes(8)).digest('base64url').slice(0, 22)}`,
  };
  baseline = await visibleState();
});

afterAll(async () => {
  await server?.stop();
});

describe('the corpus', () => {
  it('has at least 80 named cases, each name unique', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(80);
    expect(new Set(CORPUS.map((c) => c.name)).size).toBe(CORPUS.length);
  });

  for (const hostile of CORPUS) {
    const codes = typeof hostile.code === 'string' ? [hostile.code] : hostile.code;
    const fixed = hostile.fixedOn ? ` [needs: ${hostile.fixedOn}]` : '';
    it(`${hostile.category}: ${hostile.name} → ${hostile.status} ${codes.join('|')}${fixed}`, async () => {
      const before = diskSnapshot(server.dataDir);
      const res = await hostile.send(ctx);
      expect(res.status, res.text.slice(0, 500)).toBe(hostile.status);
      expect(codes).toContain(errorCode(res));
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(storageChanges(before, diskSnapshot(server.dataDir))).toEqual([]);
      const health = await api(server, 'GET', '/me', { key: ctx.a.key });
      expect(health.status, health.text).toBe(200);
    });
  }
});

describe('after the corpus', () => {
  it('nothing the cases sent is visible and the server still serves every role [needs: every fix above]', async () => {
    expect(await visibleState()).toEqual(baseline);
  });
});

describe('hostile file names', () => {
  // A file name is metadata only (objects are stored under random keys), so these may be stored;
  // what must hold is that the name never reaches disk and never comes back with a control or
  // direction character in Content-Disposition. A refusal must be the structured 4xx.
  // The first three need the fix "bidi characters in filename*" (another branch of issue 10).
  const NAMES: [string, string][] = [
    ['a right-to-left override [needs: bidi characters in filename*]', 'invoice\u202Egpj.exe'],
    ['a right-to-left isolate [needs: bidi characters in filename*]', 'report\u2067exe.pdf\u2069'],
    ['a left-to-right mark and embedding [needs: bidi characters in filename*]', '\u200Ea\u202Ab\u202C.txt'],
    ['a path traversal', '../../../../tmp/switchboard-pwn.sh'],
    ['a Windows path traversal', '..\\..\\Windows\\system32\\evil.dll'],
    ['CR LF header injection', 'a.txt\r\nSet-Cookie: x=1'],
  ];
  const BOUNDARY = 'corpus-filenames-boundary';

  for (const [name, filename] of NAMES) {
    it(name, async () => {
      const before = diskSnapshot(server.dataDir);
      const body = multipartBody(BOUNDARY, [
        formPart({ name: 'metadata', data: JSON.stringify({ to_agent_ids: [ctx.b.id], body: `file ${name}` }) }),
        {
          headers: `Content-Disposition: form-data; name="file"; filename*=UTF-8''${encodeURIComponent(filename)}\r\nContent-Type: text/plain`,
          data: `bytes of ${name}`,
        },
      ]);
      const res = await api(server, 'POST', '/messages/direct', {
        key: ctx.a.key,
        rawBody: Buffer.from(body),
        headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      });
      for (const path of diskSnapshot(server.dataDir).keys()) {
        expect(path).not.toMatch(/switchboard-pwn|evil\.dll|invoice|\.\./);
      }
      if (res.status !== 200) {
        expect(res.status, res.text).toBeGreaterThanOrEqual(400);
        expect(res.status).toBeLessThan(500);
        errorCode(res);
        expect(storageChanges(before, diskSnapshot(server.dataDir))).toEqual([]);
        return;
      }
      const result = res.body.results[0];
      expect(result.status, res.text).toBe('sent');
      const files = await api(server, 'GET', `/channels/${result.channel_id}/files?order=desc&limit=1`, {
        key: ctx.b.key,
      });
      expect(files.status, files.text).toBe(200);
      const fileId = files.body.files[0].file_id as string;
      const download = await api(server, 'GET', `/files/${fileId}/content`, { key: ctx.b.key });
      expect(download.status).toBe(200);
      const disposition = String(download.headers['content-disposition']);
      const decoded = decodeURIComponent(/filename\*=UTF-8''([^;]*)/i.exec(disposition)?.[1] ?? '');
      // C0 controls, DEL, and the bidi marks, embeddings, overrides and isolates.
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is checked for.
      const forbidden = /[\x00-\x1f\x7f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
      expect(`${disposition} ${decoded}`).not.toMatch(forbidden);
      expect(download.headers['set-cookie']).toBeUndefined();
    });
  }
});

describe('trickling uploads', () => {
  // One agent holding uploads open by trickling their bytes must not deny uploads to the others
  // (issue 10, item 6): its own extra upload is refused, another agent's goes through.
  const LIMIT = 4;
  const BOUNDARY = 'corpus-trickle-boundary';
  const held: http.ClientRequest[] = [];

  afterAll(() => {
    for (const request of held) request.destroy();
  });

  /** Starts an upload that sends its metadata and the first byte of its file, then nothing. */
  function trickle(key: string): Promise<ApiResponse> {
    const url = new URL(server.url);
    const head = Buffer.concat([
      Buffer.from(
        multipartBody(BOUNDARY, [
          formPart({ name: 'metadata', data: JSON.stringify({ to_agent_ids: [ctx.b.id], body: 'trickle' }) }),
        ]),
      ).subarray(0, -`--${BOUNDARY}--\r\n`.length),
      Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="slow.bin"\r\n\r\nx`),
    ]);
    return new Promise((done) => {
      const request = http.request(
        {
          hostname: url.hostname,
          port: url.port,
          method: 'POST',
          path: '/api/v1/messages/direct',
          headers: { authorization: `Bearer ${key}`, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
          agent: false,
        },
        (response) => {
          let text = '';
          response.setEncoding('utf8').on('data', (chunk: string) => {
            text += chunk;
          });
          response.on('end', () => {
            let body: unknown = text;
            try {
              body = JSON.parse(text);
            } catch {
              // not JSON
            }
            done({ status: response.statusCode ?? 0, body, text, headers: response.headers });
          });
        },
      );
      // Destroyed by afterAll, or cut by the server: an answer of status 0.
      request.on('error', () => done({ status: 0, body: '', text: '', headers: {} }));
      held.push(request);
      request.write(head);
    });
  }

  async function uploadsInProgress(): Promise<number> {
    const res = await api(server, 'GET', '/admin/cleanup', { cookie: ctx.cookie });
    return res.body.uploads_in_progress as number;
  }

  it(`an agent holding ${LIMIT} trickling uploads is refused more, another agent is not [needs: trickling uploads]`, async () => {
    const patch = await api(server, 'PATCH', '/admin/settings', {
      cookie: ctx.cookie,
      body: { max_concurrent_uploads: LIMIT },
    });
    expect(patch.status, patch.text).toBe(200);
    const start = await uploadsInProgress();

    // Open trickles until the server has admitted LIMIT of them or refuses one.
    let refusal: ApiResponse | undefined;
    for (let opened = 1; opened <= LIMIT && !refusal; opened++) {
      const answer = trickle(ctx.a.key);
      let settled: ApiResponse | undefined;
      answer.then((res) => {
        settled = res;
      });
      while (!settled && (await uploadsInProgress()) < start + opened) await new Promise((r) => setImmediate(r));
      if (settled) refusal = settled;
    }
    if (!refusal) {
      const form = new FormData();
      form.append('metadata', JSON.stringify({ to_agent_ids: [ctx.b.id], body: 'one more from a' }));
      form.append('file', new Blob(['more'], { type: 'text/plain' }), 'more.txt');
      const more = await fetch(`${server.url}/api/v1/messages/direct`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ctx.a.key}` },
        body: form,
      });
      const text = await more.text();
      refusal = {
        status: more.status,
        body: JSON.parse(text),
        text,
        headers: { 'x-request-id': more.headers.get('x-request-id') ?? undefined },
      };
    }
    expect(refusal.status, refusal.text).toBe(429);
    expect(errorCode(refusal)).toBe('upload_admission_denied');
    expect(refusal.body.error.retry_after_ms).toBeGreaterThan(0);

    const form = new FormData();
    form.append('metadata', JSON.stringify({ to_agent_ids: [ctx.a.id], body: 'from b while a trickles' }));
    form.append('file', new Blob(['b bytes'], { type: 'text/plain' }), 'b.txt');
    const other = await fetch(`${server.url}/api/v1/messages/direct`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ctx.b.key}` },
      body: form,
    });
    expect(other.status, await other.clone().text()).toBe(200);
    expect(((await other.json()) as { results: { status: string }[] }).results[0]?.status).toBe('sent');
  });
});
