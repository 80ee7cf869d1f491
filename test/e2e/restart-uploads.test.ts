/**
 * A launcher killed during uploads (SIGKILL): on the next start the dead uploads' admission leases
 * are released at once (no 30 s of upload_admission_denied for their agent) and the partial blobs
 * workerd left in state/r2 are swept.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { adminLogin, api, createAgent, createHost, errorCode, type Server, startServer, tempDir } from './harness.js';

const running: Server[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) await server.kill();
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [entry.name],
  );
}

const BOUNDARY = 'restart-boundary';
function multipartHead(to: string): string {
  return (
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="metadata"\r\n\r\n` +
    JSON.stringify({ to_agent_ids: [to], body: 'a file' }) +
    `\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="f.bin"\r\n\r\n`
  );
}
const headers = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` };

describe('uploads cut by a crash', () => {
  it('releases the dead uploads’ leases and sweeps partial blobs on the next start', async () => {
    const dataDir = tempDir();
    const first = await startServer({ dataDir });
    running.push(first);
    const cookie = await adminLogin(first);
    const host = await createHost(first, cookie, ['127.0.0.1']);
    const a = await createAgent(first, cookie, host.host_id);
    const b = await createAgent(first, cookie, host.host_id);
    // Two uploads that never finish: the agent's whole share of concurrent uploads.
    const streams = [new PassThrough(), new PassThrough()];
    for (const stream of streams) {
      stream.write(multipartHead(b.agent.agent_id));
      stream.write('x'.repeat(1024));
      api(first, 'POST', '/messages/direct', { key: a.key, headers, rawBody: stream }).catch(() => {});
    }
    const status = async (server: Server) =>
      (await api(server, 'GET', '/admin/cleanup', { cookie: await adminLogin(server) })).body.uploads_in_progress;
    await expect.poll(() => status(first), { timeout: 20_000 }).toBe(2);
    const third = new PassThrough();
    third.end(`${multipartHead(b.agent.agent_id)}xyz\r\n--${BOUNDARY}--\r\n`);
    const refused = await api(first, 'POST', '/messages/direct', { key: a.key, headers, rawBody: third });
    expect(errorCode(refused)).toBe('upload_admission_denied');

    await first.kill();
    for (const stream of streams) stream.destroy();
    // What workerd leaves of a blob it was writing when it died.
    const blobs = join(dataDir, 'state', 'r2', 'switchboard-files', 'blobs');
    mkdirSync(blobs, { recursive: true });
    writeFileSync(join(blobs, '.kj-tmp.a1b2c3.partial'), 'half a file');

    const second = await startServer({ dataDir });
    running.push(second);
    expect(filesUnder(join(dataDir, 'state', 'r2')).filter((name) => name.endsWith('.partial'))).toEqual([]);
    expect(await status(second)).toBe(0);
    const again = new PassThrough();
    again.end(`${multipartHead(b.agent.agent_id)}xyz\r\n--${BOUNDARY}--\r\n`);
    const sent = await api(second, 'POST', '/messages/direct', { key: a.key, headers, rawBody: again });
    expect(sent.status, sent.text).toBe(200);
  });
});
