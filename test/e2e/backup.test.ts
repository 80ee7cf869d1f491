/**
 * Online backup and restore (api-v1.md, "Running it as a service"): `switchboard backup` taken
 * while senders (messages, some with a file) and claimers run against the real server, restored
 * into a new directory, and a server started on it. The fault test's invariants: nothing answered
 * `sent` before the backup began is missing; no message without its file (each downloads, bytes
 * equal) and no file without its message (the restored bucket holds exactly the attachments of the
 * restored messages); every agent key works. No request during the backup failed. Then the bad
 * inputs of restore, which must leave nothing behind.
 */
import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { adminLogin, api, CLI, createAgent, createHost, type Server, startServer, tempDir } from './harness.js';
import { storedObjects } from './r2-objects.js';

const run = promisify(execFile);
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { timeout: 180_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

interface Agent {
  id: string;
  key: string;
}

interface Sent {
  messageId: string;
  channelId: string;
  body: string;
  /** The attached file's text, when there is one. */
  file?: string;
}

async function sendDirect(server: Server, from: Agent, to: Agent, body: string, file?: string) {
  if (!file) return api(server, 'POST', '/messages/direct', { key: from.key, body: { to_agent_ids: [to.id], body } });
  const form = new FormData();
  form.append('metadata', JSON.stringify({ to_agent_ids: [to.id], body }));
  form.append('file', new Blob([file], { type: 'text/plain' }), 'note.txt');
  const response = await fetch(`${server.url}/api/v1/messages/direct`, {
    method: 'POST',
    headers: { authorization: `Bearer ${from.key}` },
    body: form,
  });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text), text };
}

/** Every message of the agent's channels, through the API. */
async function history(server: Server, agent: Agent): Promise<Map<string, any>> {
  const out = new Map<string, any>();
  const channels = await api(server, 'GET', '/channels', { key: agent.key });
  expect(channels.status, channels.text).toBe(200);
  for (const channel of channels.body.channels as { channel_id: string }[]) {
    let cursor: string | null = null;
    do {
      const page = await api(
        server,
        'GET',
        `/channels/${channel.channel_id}/messages?limit=200${cursor ? `&cursor=${cursor}` : ''}`,
        { key: agent.key },
      );
      expect(page.status, page.text).toBe(200);
      for (const m of page.body.messages) out.set(m.message_id, m);
      cursor = page.body.next_cursor;
    } while (cursor);
  }
  return out;
}

const servers: Server[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop().catch(() => {});
});

describe('switchboard backup and restore', () => {
  it('back up a running server under load, restore it, and lose nothing answered before', async () => {
    const server = await startServer();
    servers.push(server);
    const cookie = await adminLogin(server);
    const host = await createHost(server, cookie, ['127.0.0.1']);
    const agents: Agent[] = [];
    for (let i = 0; i < 4; i++) {
      const { agent, key } = await createAgent(server, cookie, host.host_id);
      agents.push({ id: agent.agent_id, key });
    }
    expect((await api(server, 'PATCH', '/admin/settings', { cookie, body: { claim_seconds: 5 } })).status).toBe(200);

    const sent: Sent[] = [];
    const failures: string[] = [];
    let stop = false;
    let n = 0;
    const sender = async (from: Agent, to: Agent) => {
      while (!stop) {
        const i = n++;
        const body = `m${i} ${randomUUID()}`;
        const file = i % 3 === 0 ? `file of ${body}` : undefined;
        const res = await sendDirect(server, from, to, body, file);
        const result = res.body?.results?.[0];
        if (res.status !== 200 || result?.status !== 'sent') failures.push(`send ${res.status} ${res.text}`);
        else sent.push({ messageId: result.message_id, channelId: result.channel_id, body, ...(file && { file }) });
      }
    };
    const claimer = async (agent: Agent) => {
      while (!stop) {
        const res = await api(server, 'POST', '/inbox/claim', { key: agent.key, body: { limit: 5 } });
        if (res.status !== 200) failures.push(`claim ${res.status} ${res.text}`);
        const claims = (res.body?.claims ?? []) as { message: { message_id: string }; claim_token: string }[];
        if (claims.length > 0) {
          const acks = claims.map((c) => ({ message_id: c.message.message_id, claim_token: c.claim_token }));
          const acked = await api(server, 'POST', '/inbox/ack', { key: agent.key, body: { acks } });
          if (acked.status !== 200) failures.push(`ack ${acked.status} ${acked.text}`);
        } else {
          await sleep(50);
        }
      }
    };
    const [a, b, c, d] = agents as [Agent, Agent, Agent, Agent];
    const load = Promise.all([sender(a, b), sender(c, d), sender(b, c), claimer(b), claimer(c), claimer(d)]);
    while (sent.length < 12) await sleep(50);

    const out = join(tempDir(), 'switchboard.backup.tar.gz');
    const before = [...sent];
    const backedUp = await cli(['backup', '--data', server.dataDir, '--out', out]);
    const during = sent.length - before.length;
    // Some load after the server let the held requests through.
    const after = sent.length;
    while (sent.length < after + 3) await sleep(50);
    stop = true;
    await load;
    expect(backedUp.code, backedUp.stderr).toBe(0);
    expect(JSON.parse(backedUp.stdout)).toMatchObject({ online: true });
    expect(failures).toEqual([]);
    expect(server.stdout()).toContain('backup snapshot taken');
    // The snapshot folder is gone from the live data directory.
    expect(readdirSync(join(server.dataDir, 'run')).filter((f) => f.startsWith('backup-'))).toEqual([]);
    expect(await server.stop('SIGTERM')).toBe(0);

    const restoredDir = join(tempDir(), 'restored');
    const restored = await cli(['restore', '--from', out, '--data', restoredDir]);
    expect(restored.code, restored.stderr).toBe(0);
    const second = await startServer({ dataDir: restoredDir });
    servers.push(second);
    for (const agent of agents) expect((await api(second, 'GET', '/me', { key: agent.key })).status).toBe(200);
    const settings = await api(second, 'GET', '/limits', { key: a.key });
    expect(settings.body.limits.claim_seconds, settings.text).toBe(5);

    const messages = new Map<string, any>();
    for (const agent of agents) for (const [id, m] of await history(second, agent)) messages.set(id, m);
    const missing = before.filter((s) => !messages.has(s.messageId));
    expect(missing, `${during} sends ran during the backup`).toEqual([]);
    const attached: string[] = [];
    for (const m of messages.values()) {
      const own = sent.find((s) => s.messageId === m.message_id);
      expect(own, `a restored message nobody sent: ${m.message_id}`).toBeDefined();
      expect(m.body).toBe(own?.body);
      expect(m.attachment === null, m.message_id).toBe(own?.file === undefined);
      if (m.attachment) {
        const senderKey = agents.find((x) => x.id === m.sender_id)?.key;
        const download = await api(second, 'GET', `/files/${m.attachment.file_id}/content`, { key: senderKey });
        expect(download.status, download.text).toBe(200);
        expect(download.text).toBe(own?.file);
        attached.push(sha256(own?.file ?? ''));
      }
    }
    expect(attached.length).toBeGreaterThan(0);
    expect(await second.stop('SIGTERM')).toBe(0);
    const objects = await storedObjects(restoredDir);
    expect(objects.map((o) => o.sha256).sort()).toEqual(attached.sort());

    // A truncated copy of the same backup is refused, and nothing is created.
    const truncated = join(tempDir(), 'truncated.tar.gz');
    writeFileSync(truncated, readFileSync(out).subarray(0, Math.floor(statSync(out).size * 0.6)));
    const target = join(dirname(truncated), 'from-truncated');
    const refused = await cli(['restore', '--from', truncated, '--data', target]);
    expect(refused.code, refused.stdout).toBe(2);
    expect(refused.stderr).toMatch(/not a readable Switchboard backup|incomplete or damaged|damaged/);
    expect(readdirSync(dirname(truncated))).toEqual(['truncated.tar.gz']);
  }, 240_000);

  it('refuses a non-empty directory, a damaged or foreign file, and leaves nothing behind', async () => {
    const root = tempDir();
    const notEmpty = join(root, 'not-empty');
    mkdirSync(notEmpty);
    writeFileSync(join(notEmpty, 'keep'), 'mine');
    const junk = join(root, 'junk.tar.gz');
    writeFileSync(junk, 'not an archive');

    const refusedDir = await cli(['restore', '--from', junk, '--data', notEmpty]);
    expect(refusedDir.code).toBe(2);
    expect(refusedDir.stderr).toContain('is not empty');
    expect(readdirSync(notEmpty)).toEqual(['keep']);

    const refusedJunk = await cli(['restore', '--from', junk, '--data', join(root, 'new')]);
    expect(refusedJunk.code).toBe(2);
    expect(refusedJunk.stderr).toContain('is not a readable Switchboard backup');

    // A real archive of something else (tar accepts it; the manifest check does not).
    const foreign = join(root, 'foreign');
    mkdirSync(join(foreign, 'state'), { recursive: true });
    writeFileSync(join(foreign, 'state', 'x'), 'x');
    const foreignTar = join(root, 'foreign.tar.gz');
    await run('tar', ['czf', foreignTar, '-C', foreign, 'state']);
    const refusedForeign = await cli(['restore', '--from', foreignTar, '--data', join(root, 'new')]);
    expect(refusedForeign.code).toBe(2);
    expect(refusedForeign.stderr).toContain('is not a Switchboard backup');

    const refusedBackup = await cli(['backup', '--data', foreign, '--out', join(root, 'b.tar.gz')]);
    expect(refusedBackup.code).toBe(2);
    expect(refusedBackup.stderr).toContain('is not a Switchboard data directory');

    expect(existsSync(join(root, 'new'))).toBe(false);
    expect(existsSync(join(root, 'b.tar.gz'))).toBe(false);
    expect(readdirSync(root).sort()).toEqual(['foreign', 'foreign.tar.gz', 'junk.tar.gz', 'not-empty']);
    expect(readFileSync(join(notEmpty, 'keep'), 'utf8')).toBe('mine');
  });
});
