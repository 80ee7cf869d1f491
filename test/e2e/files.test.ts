/**
 * Attachments against the real server: real multipart requests over real sockets, downloads,
 * the size limit on a streamed (chunked) upload, and crashes (SIGKILL) during an upload and during
 * retroactive cleanup, after which the R2 objects on disk must be exactly the live attachments.
 */
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join, sep } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { childPids } from '../../server/orphan-guard.js';
import { adminLogin, api, createAgent, createHost, errorCode, type Server, startServer, tempDir } from './harness.js';
import { storedObjects } from './r2-objects.js';

const running: Server[] = [];
async function start(dataDir?: string): Promise<Server> {
  const server = await startServer(dataDir ? { dataDir } : {});
  running.push(server);
  return server;
}

afterEach(async () => {
  for (const server of running.splice(0)) await server.kill();
});

const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');

interface Setup {
  server: Server;
  cookie: string;
  agents: { id: string; key: string }[];
}

async function setup(count: number, dataDir?: string): Promise<Setup> {
  const server = await start(dataDir);
  const cookie = await adminLogin(server);
  const host = await createHost(server, cookie, ['127.0.0.1']);
  const agents: Setup['agents'] = [];
  for (let i = 0; i < count; i++) {
    const { agent, key } = await createAgent(server, cookie, host.host_id);
    agents.push({ id: agent.agent_id, key });
  }
  return { server, cookie, agents };
}

/** A real multipart request built by fetch's FormData (as the CLI sends it). */
async function sendFile(
  server: Server,
  key: string,
  path: string,
  metadata: unknown,
  file: { name: string; type?: string; bytes: Uint8Array | string } | null,
): Promise<{ status: number; body: any }> {
  const form = new FormData();
  form.append('metadata', JSON.stringify(metadata));
  if (file) form.append('file', new Blob([Buffer.from(file.bytes)], { type: file.type ?? '' }), file.name);
  const response = await fetch(`${server.url}/api/v1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  return { status: response.status, body: await response.json() };
}

async function sendDirectFile(server: Server, from: string, to: string[], body: string, name: string, bytes: string) {
  const res = await sendFile(server, from, '/messages/direct', { to_agent_ids: to, body }, { name, bytes });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.results as { status: string; message_id?: string; channel_id?: string }[];
}

/** Every live attachment (as listed through the API) of the given agents' channels. */
async function liveAttachments(server: Server, keys: string[]): Promise<{ file_id: string; sha256: string }[]> {
  const seen = new Map<string, string>();
  for (const key of keys) {
    const channels = await api(server, 'GET', '/channels', { key });
    for (const channel of channels.body.channels as { channel_id: string }[]) {
      let cursor: string | null = null;
      do {
        const page = await api(
          server,
          'GET',
          `/channels/${channel.channel_id}/files?limit=200${cursor ? `&cursor=${cursor}` : ''}`,
          { key },
        );
        expect(page.status).toBe(200);
        for (const f of page.body.files) seen.set(f.file_id, f.sha256);
        cursor = page.body.next_cursor;
      } while (cursor);
    }
  }
  return [...seen].map(([file_id, hash]) => ({ file_id, sha256: hash }));
}

async function waitFor<T>(what: string, fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Stops the server cleanly and compares the bucket with the live attachments (as sha256 multisets). */
async function expectStoredEqualsLive(server: Server, live: { sha256: string }[]): Promise<void> {
  // Miniflare deletes a deleted object's blobs in the background (r2 bucket.worker.js): give that
  // a moment before the stop, or a stop right after a cleanup run can cut it off. A blob that
  // never goes still fails below.
  const blobFiles = () =>
    filesUnder(join(server.dataDir, 'state', 'r2')).filter((p) => p.includes(`${sep}blobs${sep}`)).length;
  await waitFor(
    'deleted blobs to go',
    async () => blobFiles(),
    (n) => n <= live.length,
    15_000,
  ).catch(() => {});
  expect(await server.stop('SIGTERM')).toBe(0);
  const stored = await storedObjects(server.dataDir);
  expect(stored.every((o) => o.key.startsWith('files/'))).toBe(true);
  expect(stored.map((o) => o.sha256).sort()).toEqual(live.map((f) => f.sha256).sort());
  // Below the objects, Miniflare keeps one blob per stored part: an aborted multipart upload must
  // leave none behind (every live object here is a single part).
  const blobs = filesUnder(join(server.dataDir, 'state', 'r2')).filter((p) => p.includes(`${sep}blobs${sep}`));
  expect(blobs).toHaveLength(stored.length);
}

/**
 * A crash of the runtime itself: workerd is SIGKILLed first (nothing in it runs any more, no
 * request sees its client go away), then the launcher.
 */
async function crash(server: Server): Promise<void> {
  for (const pid of childPids(server.pid, 'workerd')) process.kill(pid, 'SIGKILL');
  await server.kill();
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path));
    else out.push(path);
  }
  return out;
}

describe('attachments over HTTP', () => {
  it('stores, lists and downloads a file; the name ../../etc/passwd is only metadata', async () => {
    const { server, agents } = await setup(3);
    const [a, b, c] = agents as [Setup['agents'][0], Setup['agents'][0], Setup['agents'][0]];
    const content = 'root:x:0:0:not really\n';
    const res = await sendFile(
      server,
      a.key,
      '/messages/direct',
      { to_agent_ids: [b.id], body: 'see attached' },
      { name: '../../etc/passwd', type: 'text/plain', bytes: content },
    );
    expect(res.status).toBe(200);
    const [result] = res.body.results;
    expect(result.status).toBe('sent');

    const files = await api(server, 'GET', `/channels/${result.channel_id}/files`, { key: b.key });
    expect(files.status).toBe(200);
    const [file] = files.body.files;
    expect(file).toMatchObject({
      message_id: result.message_id,
      filename: '../../etc/passwd',
      media_type: 'text/plain',
      size: content.length,
      sha256: sha256(content),
    });

    const download = await api(server, 'GET', `/files/${file.file_id}/content`, { key: b.key });
    expect(download.status).toBe(200);
    expect(download.text).toBe(content);
    expect(download.headers['content-type']).toBe('text/plain');
    expect(download.headers['x-content-type-options']).toBe('nosniff');
    expect(download.headers['content-length']).toBe(String(content.length));
    expect(download.headers['content-disposition']).toBe(
      `attachment; filename=".._.._etc_passwd"; filename*=UTF-8''.._.._etc_passwd`,
    );
    // The sender reads it too; an agent never in the channel gets not_found, as for any unknown file.
    expect((await api(server, 'GET', `/files/${file.file_id}/content`, { key: a.key })).status).toBe(200);
    const outsider = await api(server, 'GET', `/files/${file.file_id}/content`, { key: c.key });
    expect(outsider.status).toBe(404);
    expect(errorCode(outsider)).toBe('not_found');
    expect((await api(server, 'GET', `/channels/${result.channel_id}/files`, { key: c.key })).status).toBe(404);

    // Nothing on disk is named after the client's path: the key is opaque.
    await expectStoredEqualsLive(server, [file]);
    const stored = await storedObjects(server.dataDir);
    expect(stored[0]!.key).toMatch(new RegExp(`^files/${result.channel_id}/[A-Za-z0-9_-]+$`));
    expect(filesUnder(server.dataDir).some((p) => p.includes('passwd') || p.includes('etc/'))).toBe(false);
  });

  it('refuses a streamed upload over max_file_bytes without storing it', async () => {
    const { server, cookie, agents } = await setup(2);
    const [a, b] = agents as [Setup['agents'][0], Setup['agents'][0]];
    expect(
      (await api(server, 'PATCH', '/admin/settings', { cookie, body: { max_file_bytes: 1_000_000 } })).status,
    ).toBe(200);
    const boundary = 'e2e-boundary-0c7d';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="metadata"\r\n\r\n` +
        JSON.stringify({ to_agent_ids: [b.id], body: 'big' }) +
        `\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n`,
    );
    let sent = 0;
    const total = 3_000_000;
    // A chunked body (no Content-Length): the server cannot know the size before counting it.
    const body = new Readable({
      read() {
        if (sent === 0) this.push(head);
        if (sent >= total) {
          this.push(Buffer.from(`\r\n--${boundary}--\r\n`));
          this.push(null);
          return;
        }
        const chunk = Buffer.alloc(64 * 1024, 1);
        sent += chunk.length;
        this.push(chunk);
      },
    });
    const res = await api(server, 'POST', '/messages/direct', {
      key: a.key,
      rawBody: body,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'transfer-encoding': 'chunked' },
    });
    expect(res.status).toBe(413);
    expect(errorCode(res)).toBe('file_too_large');
    expect(res.body.error.limit).toBe(1_000_000);
    const history = await api(server, 'GET', '/channels', { key: b.key });
    expect(history.body.channels).toEqual([]);
    await expectStoredEqualsLive(server, []);
  });

  it('refuses a download by a member who left the group', async () => {
    const { server, agents } = await setup(2);
    const [owner, member] = agents as [Setup['agents'][0], Setup['agents'][0]];
    const created = await api(server, 'POST', '/groups', {
      key: owner.key,
      body: { name: 'files', invitee_ids: [member.id] },
    });
    expect(created.status).toBe(201);
    const groupId = created.body.group.group_id as string;
    expect((await api(server, 'POST', `/groups/${groupId}/join`, { key: member.key })).status).toBe(200);
    const sent = await sendFile(
      server,
      owner.key,
      `/groups/${groupId}/messages`,
      { body: 'group file' },
      { name: 'plan.md', type: 'text/markdown', bytes: '# plan' },
    );
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const files = await api(server, 'GET', `/channels/${groupId}/files`, { key: member.key });
    const fileId = files.body.files[0].file_id as string;
    expect((await api(server, 'GET', `/files/${fileId}/content`, { key: member.key })).text).toBe('# plan');

    expect((await api(server, 'POST', `/groups/${groupId}/leave`, { key: member.key })).status).toBe(200);
    const after = await api(server, 'GET', `/files/${fileId}/content`, { key: member.key });
    expect(after.status).toBe(404);
    expect((await api(server, 'GET', `/channels/${groupId}/files`, { key: member.key })).status).toBe(404);
    // One group-owned object for the group message.
    await expectStoredEqualsLive(server, files.body.files);
  });
});

describe('crashes', () => {
  it('SIGKILL during an upload: after a restart the staged bytes are swept', async () => {
    const dataDir = tempDir();
    const first = await setup(2, dataDir);
    const [a, b] = first.agents as [Setup['agents'][0], Setup['agents'][0]];
    await sendDirectFile(first.server, a.key, [b.id], 'kept', 'kept.txt', 'kept bytes');

    const boundary = 'crash-boundary-91';
    const body = new Readable({ read() {} });
    body.push(
      `--${boundary}\r\nContent-Disposition: form-data; name="metadata"\r\n\r\n` +
        JSON.stringify({ to_agent_ids: [b.id], body: 'never committed' }) +
        `\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="partial.bin"\r\n\r\n`,
    );
    // More than one staging part, so bytes are already in R2 (a multipart upload) when the crash comes.
    for (let i = 0; i < 7; i++) body.push(Buffer.alloc(1024 * 1024, i));
    const pending = api(first.server, 'POST', '/messages/direct', {
      key: a.key,
      rawBody: body,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'transfer-encoding': 'chunked' },
    }).catch((error: unknown) => error);
    await new Promise((r) => setTimeout(r, 2_000));
    expect((await api(first.server, 'GET', '/admin/cleanup', { cookie: first.cookie })).body.uploads_in_progress).toBe(
      1,
    );
    await crash(first.server);
    await pending;

    const second = await start(dataDir);
    const cookie = await adminLogin(second);
    // The launcher ends the previous boot's upload leases before it serves anything; the staged
    // object is then a deletion job, which the retention alarm runs (it aborts the multipart upload).
    const during = await api(second, 'GET', '/admin/cleanup', { cookie });
    expect(during.body.uploads_in_progress).toBe(0);
    await waitFor(
      'cleanup after the crash',
      async () => (await api(second, 'GET', '/admin/cleanup', { cookie })).body,
      (s) => s.state === 'idle' && s.pending_jobs === 0 && s.uploads_in_progress === 0,
    );
    const live = await liveAttachments(second, [a.key, b.key]);
    expect(live).toHaveLength(1);
    await expectStoredEqualsLive(second, live);
  }, 150_000);

  it('SIGKILL during retroactive cleanup: after a restart the run finishes and storage matches', async () => {
    const dataDir = tempDir();
    const first = await setup(4, dataDir);
    const [a, ...others] = first.agents as [Setup['agents'][0], ...Setup['agents']];
    for (let i = 0; i < 4; i++) {
      await sendDirectFile(
        first.server,
        a.key,
        others.map((o) => o.id),
        `file ${i}`,
        `f${i}.txt`,
        `bytes ${i} ${'x'.repeat(i * 100)}`,
      );
    }
    expect(await liveAttachments(first.server, [a.key])).toHaveLength(12);
    const lowered = await api(first.server, 'PATCH', '/admin/settings', {
      cookie: first.cookie,
      body: { max_files_per_channel: 1 },
    });
    expect(lowered.status).toBe(200);
    await crash(first.server);

    const second = await start(dataDir);
    const cookie = await adminLogin(second);
    const status = await waitFor(
      'retroactive cleanup',
      async () => (await api(second, 'GET', '/admin/cleanup', { cookie })).body,
      (s) => s.state === 'idle' && s.last_completed_at !== null,
    );
    expect(status).toMatchObject({ pending_jobs: 0, failed_jobs: 0, channels_total: 3, channels_done: 3 });
    const live = await liveAttachments(second, [a.key]);
    expect(live).toHaveLength(3);
    await expectStoredEqualsLive(second, live);
  }, 150_000);
});
