/**
 * Issue 10, item 6, against the real launcher: one agent holding trickling multipart uploads (one
 * byte every 2 s over real sockets) must not deny uploads to other agents. Its uploads beyond its
 * share are refused at once, the ones it holds are cancelled by the minimum transfer rate, and
 * nothing is left behind: no lease, no staged object, no orphaned R2 part.
 */
import { readdirSync } from 'node:fs';
import http from 'node:http';
import { join, sep } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { API_BASE, adminLogin, api, createAgent, createHost, errorCode, type Server, startServer } from './harness.js';
import { storedObjects } from './r2-objects.js';

const running: Server[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) await server.kill();
});

/** The stall window the test sets through the public settings route (the default is 20 s). */
const STALL_SECONDS = 8;

interface Answer {
  status: number;
  body: any;
  headers: http.IncomingHttpHeaders;
}

/**
 * A multipart send whose file part trickles one byte every `everyMs` on its own connection, until
 * the server answers. `settled` tells whether the answer came already.
 */
function trickleUpload(server: Server, key: string, to: string, everyMs: number) {
  const url = new URL(server.url);
  const boundary = `trickle-${Math.random().toString(36).slice(2)}`;
  const request = http.request({
    hostname: url.hostname,
    port: url.port,
    method: 'POST',
    path: `${API_BASE}/messages/direct`,
    agent: false,
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'transfer-encoding': 'chunked',
    },
  });
  request.write(
    `--${boundary}\r\nContent-Disposition: form-data; name="metadata"\r\n\r\n` +
      JSON.stringify({ to_agent_ids: [to], body: 'slow file' }) +
      `\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.bin"\r\n\r\n`,
  );
  const timer = setInterval(() => request.write('x'), everyMs);
  const handle = { settled: false, answer: null as unknown as Promise<Answer> };
  handle.answer = new Promise<Answer>((resolve, reject) => {
    request.on('response', (response) => {
      clearInterval(timer);
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        handle.settled = true;
        // The client stops sending: this upload is over for it too.
        request.destroy();
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: response.statusCode ?? 0, body: JSON.parse(text), headers: response.headers });
      });
    });
    request.on('error', (error) => {
      clearInterval(timer);
      handle.settled = true;
      reject(error);
    });
  });
  return handle;
}

/** A normal upload, as the CLI sends it (fetch with FormData). */
async function sendFile(server: Server, key: string, to: string, bytes: string): Promise<Answer> {
  const form = new FormData();
  form.append('metadata', JSON.stringify({ to_agent_ids: [to], body: `file ${bytes.length}` }));
  form.append('file', new Blob([bytes]), 'normal.txt');
  const response = await fetch(`${server.url}${API_BASE}/messages/direct`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  return { status: response.status, body: await response.json(), headers: {} };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

describe('slow uploads do not starve everyone', () => {
  it('one agent trickling 8 uploads gets its share, others still upload, and its stalled uploads leave nothing', async () => {
    const server = await startServer();
    running.push(server);
    const cookie = await adminLogin(server);
    const host = await createHost(server, cookie, ['127.0.0.1']);
    const hog = await createAgent(server, cookie, host.host_id, 'hog');
    const victim = await createAgent(server, cookie, host.host_id, 'victim');
    const peer = await createAgent(server, cookie, host.host_id, 'peer');
    const patched = await api(server, 'PATCH', '/admin/settings', {
      cookie,
      body: { upload_stall_seconds: STALL_SECONDS },
    });
    expect(patched.status, patched.text).toBe(200);
    const limits = (await api(server, 'GET', '/limits', { key: victim.key })).body.limits;
    expect(limits).toMatchObject({
      max_concurrent_uploads: 8,
      max_concurrent_uploads_per_agent: 2,
      upload_stall_seconds: STALL_SECONDS,
      min_upload_bytes_per_second: 1_000,
    });

    // Eight uploads from one agent, each trickling one byte every 2 s on its own connection.
    const trickles = Array.from({ length: 8 }, () => trickleUpload(server, hog.key, peer.agent.agent_id, 2_000));
    // Six are refused at once: one agent holds at most its share, two.
    const refused: Answer[] = [];
    for (;;) {
      const done = trickles.filter((t) => t.settled);
      if (done.length >= 6) {
        refused.push(...(await Promise.all(done.map((t) => t.answer))));
        break;
      }
      await Promise.race(trickles.filter((t) => !t.settled).map((t) => t.answer));
    }
    expect(refused).toHaveLength(6);
    for (const answer of refused) {
      expect(answer.status).toBe(429);
      expect(answer.body.error).toMatchObject({ code: 'upload_admission_denied', limit: 2 });
      expect(answer.body.error.retry_after_ms).toBeGreaterThan(0);
    }
    const held = trickles.filter((t) => !t.settled);
    expect(held).toHaveLength(2);
    expect((await api(server, 'GET', '/admin/cleanup', { cookie })).body.uploads_in_progress).toBe(2);

    // Meanwhile every other agent uploads as usual.
    for (let i = 0; i < 3; i++) {
      const sent = await sendFile(server, victim.key, peer.agent.agent_id, `victim file ${i}`);
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      expect(sent.body.results[0].status).toBe('sent');
    }
    // (The hog's uploads were still in progress all along, so the share is what let them in.)
    expect(held.every((t) => !t.settled)).toBe(true);

    // The held uploads send far less than 1,000 bytes a second: cancelled with a structured error.
    for (const answer of await Promise.all(held.map((t) => t.answer))) {
      expect(answer.status).toBe(408);
      expect(errorCode({ ...answer, text: JSON.stringify(answer.body) })).toBe('upload_stalled');
      expect(answer.body.error.limit).toBe(STALL_SECONDS * 1_000);
    }
    // Their leases ended with the answer, and the hog may upload again at once.
    expect((await api(server, 'GET', '/admin/cleanup', { cookie })).body).toMatchObject({
      uploads_in_progress: 0,
      pending_jobs: 0,
      failed_jobs: 0,
    });
    const again = await sendFile(server, hog.key, peer.agent.agent_id, 'hog file');
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    // The stalled messages were never stored.
    const channel = again.body.results[0].channel_id as string;
    const history = await api(server, 'GET', `/channels/${channel}/messages`, { key: peer.key });
    expect(history.body.messages.map((m: { body: string }) => m.body)).toEqual(['file 8']);

    // On disk: exactly the four attachments, no staged object, no orphaned part.
    expect(await server.stop('SIGTERM')).toBe(0);
    const stored = await storedObjects(server.dataDir);
    expect(stored).toHaveLength(4);
    expect(stored.every((o) => o.key.startsWith('files/'))).toBe(true);
    const blobs = filesUnder(join(server.dataDir, 'state', 'r2')).filter((p) => p.includes(`${sep}blobs${sep}`));
    expect(blobs).toHaveLength(stored.length);
  }, 120_000);
});
