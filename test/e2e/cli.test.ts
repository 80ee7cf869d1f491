/**
 * The `switchboard` CLI against the real server: global config profiles (REQ-07), and the agent
 * round trip me / directory / limits / send / inbox / claim | ack / history (REQ-14), with files
 * once the registry has them.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../client/errors.js';
import { operationList } from '../../core/contract/index.js';
import { expectNoStack, runCli, tempConfig } from './cli-process.js';
import {
  adminLogin,
  api,
  createAgent,
  createHost,
  type Server,
  startWithAliceAndBob,
  type TestAgent,
  tempDir,
} from './harness.js';

let server: Server;
let config: string;
let alice: TestAgent;
let bob: TestAgent;

const as = (profile: string) => ({ env: { SWITCHBOARD_CONFIG: config, SWITCHBOARD_PROFILE: profile } });
const cliOf = (id: string) => {
  const op = operationList.find((o) => o.id === id);
  return op?.cli ? op.cli.command.split(' ') : undefined;
};

beforeAll(async () => {
  ({ server, alice, bob } = await startWithAliceAndBob());
  config = tempConfig();
});
afterAll(async () => {
  await server?.stop();
});

describe('global configuration (REQ-07)', () => {
  it('login verifies the key and writes a 0600 profile; config show never prints the key', async () => {
    const login = await runCli(['login', '--profile', 'alice', '--url', server.url, '--key-stdin'], {
      env: { SWITCHBOARD_CONFIG: config },
      input: `${alice.key}\n`,
    });
    expect(login.code, login.stderr).toBe(EXIT.ok);
    expect(login.json).toMatchObject({ profile: 'alice', current: true, agent: { agent_id: alice.agent.agent_id } });
    expect(login.stdout).not.toContain(alice.key.split('.')[1]);
    if (process.platform !== 'win32') expect(statSync(config).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(config, 'utf8'));
    expect(stored.profiles.alice).toEqual({ url: server.url, api_key: alice.key });

    const bobLogin = await runCli(['login', '--url', server.url, '--key', bob.key, '--profile', 'bob'], {
      env: { SWITCHBOARD_CONFIG: config },
    });
    expect(bobLogin.code, bobLogin.stderr).toBe(EXIT.ok);
    expect(bobLogin.json.current).toBe(false);

    const show = await runCli(['config', 'show'], { env: { SWITCHBOARD_CONFIG: config } });
    expect(show.json).toMatchObject({ profile: 'alice', url: server.url, api_key_source: 'profile' });
    expect(show.stdout).not.toContain(alice.key.split('.')[1]);
    const list = await runCli(['config', 'list'], { env: { SWITCHBOARD_CONFIG: config } });
    expect(list.json.profiles.map((p: { name: string }) => p.name)).toEqual(['alice', 'bob']);
  });

  it('refuses a wrong key at login and saves nothing', async () => {
    const before = readFileSync(config, 'utf8');
    const bad = await runCli(['login', '--profile', 'mallory', '--url', server.url, '--key', `${alice.key}x`], {
      env: { SWITCHBOARD_CONFIG: config },
    });
    expect(bad.code).toBe(EXIT.request);
    expect(bad.stderr).toMatch(/unauthenticated \(HTTP 401\)/);
    expect(bad.stderr).toMatch(/nothing was saved/);
    expect(readFileSync(config, 'utf8')).toBe(before);
  });

  it('sessions of one configured agent share its account: --profile, SWITCHBOARD_PROFILE and config use', async () => {
    const byEnv = await runCli(['me'], as('bob'));
    expect(byEnv.json.agent_id).toBe(bob.agent.agent_id);
    const byFlag = await runCli(['me', '--profile', 'bob'], { env: { SWITCHBOARD_CONFIG: config } });
    expect(byFlag.json.agent_id).toBe(bob.agent.agent_id);
    const byDefault = await runCli(['me'], { env: { SWITCHBOARD_CONFIG: config } });
    expect(byDefault.json.agent_id).toBe(alice.agent.agent_id);
    // SWITCHBOARD_URL/SWITCHBOARD_API_KEY override the profile (how an MCP client is pointed at it).
    const byKey = await runCli(['me'], { env: { SWITCHBOARD_CONFIG: config, SWITCHBOARD_API_KEY: bob.key } });
    expect(byKey.json.agent_id).toBe(bob.agent.agent_id);

    const other = tempConfig();
    writeFileSync(other, readFileSync(config));
    const use = await runCli(['config', 'use', 'bob'], { env: { SWITCHBOARD_CONFIG: other } });
    expect(use.code).toBe(EXIT.ok);
    const after = await runCli(['me'], { env: { SWITCHBOARD_CONFIG: other } });
    expect(after.json.agent_id).toBe(bob.agent.agent_id);
  });
});

describe('agent round trip', () => {
  it('me, directory and limits answer JSON on stdout', async () => {
    const me = await runCli(['me'], as('alice'));
    expect(me.code).toBe(EXIT.ok);
    expect(me.stderr).toBe('');
    expect(me.json).toMatchObject({ agent_id: alice.agent.agent_id, name: 'alice' });
    const directory = await runCli(['directory', '--name', 'bo', '--limit', '10'], as('alice'));
    expect(directory.json.agents.map((a: { agent_id: string }) => a.agent_id)).toEqual([bob.agent.agent_id]);
    const limits = await runCli(['limits'], as('alice'));
    expect(limits.json.limits.claim_seconds).toBeGreaterThan(0);
  });

  it('send gives per-target results; a rejected target is exit 4 and does not block the other', async () => {
    const sent = await runCli(
      ['send', '--to', bob.agent.agent_id, '--to', 'agt_nosuchagent', 'hello bob'],
      as('alice'),
    );
    expect(sent.code).toBe(EXIT.partial);
    expect(sent.stderr).toMatch(/1 of 2 results rejected/);
    const byTarget = Object.fromEntries(
      sent.json.results.map((r: { target_agent_id: string }) => [r.target_agent_id, r]),
    );
    expect(byTarget[bob.agent.agent_id]).toMatchObject({ status: 'sent' });
    expect(byTarget.agt_nosuchagent).toMatchObject({ status: 'rejected', error: { code: 'unknown_agent' } });

    const piped = await runCli(['send', '--to', bob.agent.agent_id, '--stdin'], {
      ...as('alice'),
      input: 'line one\nline two\n',
    });
    expect(piped.code, piped.stderr).toBe(EXIT.ok);
    expect(piped.json.results[0].status).toBe('sent');
  });

  it('inbox counts, then `claim | ack` through a real shell pipe, then history', async () => {
    const inbox = await runCli(['inbox'], as('bob'));
    expect(inbox.json).toMatchObject({ unread: 2, claimable: 2, leased: 0 });

    const pipe = await runCli(['node "$CLI" claim --limit 10 | node "$CLI" ack'], { ...as('bob'), shell: true });
    expect(pipe.code, pipe.stderr).toBe(EXIT.ok);
    expect(pipe.json.results).toHaveLength(2);
    expect(pipe.json.results.every((r: { status: string }) => r.status === 'read')).toBe(true);

    const after = await runCli(['inbox'], as('bob'));
    expect(after.json).toMatchObject({ unread: 0, claimable: 0, leased: 0 });
    // A bare `inbox` takes the entry's quick path (cli/quick-inbox.ts): the same answer as the
    // full program's, and the same error line, JSON body and exit code.
    const full = await runCli(['inbox', '--kind', 'private'], as('bob'));
    expect(after.stdout).toBe(full.stdout);
    const wrongKey = {
      env: { SWITCHBOARD_CONFIG: tempConfig(), SWITCHBOARD_URL: server.url, SWITCHBOARD_API_KEY: `${bob.key}x` },
    };
    const [quick, slow] = await Promise.all([
      runCli(['inbox'], wrongKey),
      runCli(['inbox', '--kind', 'private'], wrongKey),
    ]);
    expect(quick.code).toBe(EXIT.request);
    expect(slow.code).toBe(EXIT.request);
    expect(quick.stderr).toMatch(/unauthenticated \(HTTP 401\)/);
    expect(quick.stderr.replace(/req_[\w-]+/g, 'req')).toBe(slow.stderr.replace(/req_[\w-]+/g, 'req'));

    const channel = inbox.json.channels[0].channel_id as string;
    const history = await runCli(['history', channel], as('bob'));
    expect(history.code).toBe(EXIT.ok);
    // --stdin sends the body exactly as piped, its final newline included.
    expect(history.json.messages.map((m: { body: string }) => m.body)).toEqual(['hello bob', 'line one\nline two\n']);

    // Nothing left to claim: the same pipeline sends nothing and succeeds.
    const empty = await runCli(['node "$CLI" claim --limit 10 | node "$CLI" ack'], { ...as('bob'), shell: true });
    expect(empty.code, empty.stderr).toBe(EXIT.ok);
    expect(empty.json).toEqual({ results: [] });
  });

  it('source_ip_denied shows the address the server saw', async () => {
    const cookie = await adminLogin(server);
    const elsewhere = await createHost(server, cookie, ['192.0.2.7']);
    const remote = await createAgent(server, cookie, elsewhere.host_id, 'remote-cli');
    const denied = await runCli(['me'], { env: { SWITCHBOARD_URL: server.url, SWITCHBOARD_API_KEY: remote.key } });
    expect(denied.code).toBe(EXIT.request);
    expect(denied.stderr).toMatch(/source_ip_denied \(HTTP 403\)/);
    expect(denied.stderr).toMatch(/the server saw 127\.0\.0\.1/);
    expect(JSON.parse(denied.stderr.split('\n')[1] as string).error.target).toBe('127.0.0.1');
  });

  it('ack with MESSAGE_ID:TOKEN words; a stale token is a per-item rejection (exit 4)', async () => {
    await runCli(['send', '--to', bob.agent.agent_id, 'ack me by words'], as('alice'));
    const claim = await runCli(['claim', '--order', 'newest'], as('bob'));
    const [entry] = claim.json.claims;
    expect(entry.message.body).toBe('ack me by words');
    const word = `${entry.message.message_id}:${entry.claim_token}`;
    const ack = await runCli(['ack', word, `${entry.message.message_id}:not-the-token`], as('bob'));
    expect(ack.code).toBe(EXIT.partial);
    expect(ack.json.results).toEqual([
      { message_id: entry.message.message_id, status: 'read' },
      expect.objectContaining({ status: 'rejected', error: expect.objectContaining({ code: 'invalid_claim_token' }) }),
    ]);
  });

  it('extend and release with MESSAGE_ID:TOKEN words: delivery_count, parking, refusals that change nothing', async () => {
    await runCli(['send', '--to', bob.agent.agent_id, 'lease me by words'], as('alice'));
    const first = (await runCli(['claim', '--order', 'newest', '--limit', '1'], as('bob'))).json.claims[0];
    expect(first).toMatchObject({ delivery_count: 1, message: { body: 'lease me by words' } });
    const id = first.message.message_id as string;
    const word = `${id}:${first.claim_token}`;
    const extended = await runCli(['extend', '--seconds', '30', word], as('bob'));
    expect(extended.code, extended.stderr).toBe(EXIT.ok);
    expect(extended.json.results[0]).toMatchObject({ message_id: id, status: 'extended' });
    // Refused: a forged token (per item, exit 4), a malformed ID (nothing sent), a foreign caller.
    const forged = await runCli(['release', `${id}:forged`], as('bob'));
    expect(forged.code).toBe(EXIT.partial);
    expect(forged.json.results[0].error.code).toBe('invalid_claim_token');
    const malformed = await runCli(['extend', `bob:${first.claim_token}`], as('bob'));
    expect(malformed.code).not.toBe(EXIT.ok);
    expect(malformed.stderr).toMatch(/message_id/);
    expectNoStack(malformed.stderr);
    expect((await runCli(['release', word], as('alice'))).json.results[0].error.code).toBe('not_found');
    // The lease is as it was: its token still extends it.
    expect((await runCli(['extend', word], as('bob'))).json.results[0].status).toBe('extended');

    const released = await runCli(['release', word], as('bob'));
    expect(released.json.results[0]).toEqual({ message_id: id, status: 'released' });
    const stale = await runCli(['extend', word], as('bob'));
    expect(stale.code).toBe(EXIT.partial);
    expect(stale.json.results[0].error.code).toBe('claim_expired');
    const second = (await runCli(['claim', '--order', 'newest', '--limit', '1'], as('bob'))).json.claims[0];
    expect(second).toMatchObject({ delivery_count: 2, message: { message_id: id } });

    const cookie = await adminLogin(server);
    const setMax = async (n: number) =>
      expect((await api(server, 'PATCH', '/admin/settings', { cookie, body: { max_deliveries: n } })).status).toBe(200);
    await setMax(2);
    try {
      await runCli(['release', `${id}:${second.claim_token}`], as('bob'));
      expect((await runCli(['inbox'], as('bob'))).json).toMatchObject({ parked: 1 });
      const parked = (await runCli(['claim', '--parked'], as('bob'))).json.claims;
      expect(parked).toEqual([
        expect.objectContaining({ delivery_count: 3, message: expect.objectContaining({ message_id: id }) }),
      ]);
      const acked = await runCli(['ack', `${id}:${parked[0].claim_token}`], as('bob'));
      expect(acked.json.results[0].status).toBe('read');
    } finally {
      await setMax(0);
    }
  });

  it("search finds the caller's messages, pages with --cursor, and refuses an empty query", async () => {
    await runCli(['send', '--to', bob.agent.agent_id, 'Rollout Straße: 東京タワー build 7 failed'], as('alice'));
    await runCli(['send', '--to', bob.agent.agent_id, 'rollout done'], as('alice'));
    const found = await runCli(['search', 'ROLLOUT'], as('bob'));
    expect(found.code, found.stderr).toBe(EXIT.ok);
    expect(found.json.hits.map((h: { snippet: string }) => h.snippet)).toEqual([
      'rollout done',
      'Rollout Straße: 東京タワー build 7 failed',
    ]);
    expect(found.json.hits[0]).toMatchObject({ sender_id: alice.agent.agent_id, kind: 'private' });
    const cjk = await runCli(['search', 'タワー strasse'], as('bob'));
    expect(cjk.json.hits).toHaveLength(1);
    const first = await runCli(['search', 'rollout', '--limit', '1'], as('bob'));
    expect(first.json.hits).toHaveLength(1);
    const second = await runCli(['search', 'rollout', '--limit', '1', '--cursor', first.json.next_cursor], as('bob'));
    expect(second.json.hits[0].message_id).not.toBe(first.json.hits[0].message_id);
    const hostile = await runCli(['search', '"NEAR(* -x'], as('bob'));
    expect(hostile.code, hostile.stderr).toBe(EXIT.ok);
    expect(hostile.json.hits).toEqual([]);
    const empty = await runCli(['search', ' '], as('bob'));
    expect(empty.code).toBe(EXIT.usage);
    expect(empty.stderr).toMatch(/<Q>: Too small/);
  });

  it('a server error is exit 3 with its code and message on stderr, nothing on stdout', async () => {
    const missing = await runCli(['history', 'dm_doesnotexist'], as('bob'));
    expect(missing.code).toBe(EXIT.request);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(/not_found \(HTTP 404\)/);
    expect(JSON.parse(missing.stderr.split('\n')[1] as string).error.code).toBe('not_found');
    expectNoStack(missing.stderr);
  });

  it('threads: send --reply-to, claim shows the thread and the names, history --thread-id filters', async () => {
    const root = await runCli(['send', '--to', bob.agent.agent_id, 'which branch?'], as('alice'));
    const rootId = root.json.results[0].message_id as string;
    expect(root.json.results[0]).toMatchObject({ status: 'sent', thread_id: rootId, reply_to: null });
    await runCli(['send', '--to', bob.agent.agent_id, 'unrelated'], as('alice'));
    const answer = await runCli(['send', '--to', alice.agent.agent_id, '--reply-to', rootId, 'main'], as('bob'));
    expect(answer.code, answer.stderr).toBe(EXIT.ok);
    expect(answer.json.results[0]).toMatchObject({ status: 'sent', reply_to: rootId, thread_id: rootId });

    const claim = await runCli(['claim', '--order', 'newest'], as('alice'));
    expect(claim.json.claims[0].message).toMatchObject({
      body: 'main',
      reply_to: rootId,
      thread_id: rootId,
      sender_display_name: 'bob',
      channel_kind: 'private',
      group_name: null,
    });
    const channel = answer.json.results[0].channel_id as string;
    const thread = await runCli(['history', channel, '--thread-id', rootId], as('alice'));
    expect(thread.json.messages.map((m: { body: string }) => m.body)).toEqual(['which branch?', 'main']);

    // A reply_to of no message in that channel: a clear error, exit 3, nothing sent.
    const bad = await runCli(
      ['send', '--to', bob.agent.agent_id, '--reply-to', `${rootId.slice(0, -4)}AAAA`, 'lost'],
      as('alice'),
    );
    expect(bad.code).toBe(EXIT.request);
    expect(bad.stderr).toMatch(/reply_to_not_found \(HTTP 400\)/);
    const after = await runCli(['history', channel, '--order', 'desc', '--limit', '1'], as('alice'));
    expect(after.json.messages[0].body).toBe('main');
  });
});

// The files issue adds the download operation; until it is in the registry there is nothing to run.
describe('files', () => {
  it('send --file uploads the bytes; download --out writes them byte-equal', async () => {
    const folder = tempDir('switchboard-cli-files-');
    const bytes = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7919) % 256));
    const source = join(folder, 'data.bin');
    writeFileSync(source, bytes);
    const sent = await runCli(['send', '--to', bob.agent.agent_id, '--file', source, 'a file'], as('alice'));
    expect(sent.code, sent.stderr).toBe(EXIT.ok);
    const channel = sent.json.results[0].channel_id as string;
    const history = await runCli(['history', channel, '--order', 'desc', '--limit', '1'], as('bob'));
    const attachment = history.json.messages[0].attachment;
    expect(attachment).toMatchObject({ filename: 'data.bin', size: bytes.length });
    const out = join(folder, 'copy.bin');
    // The agent's download (the admin download is another raw-response operation).
    const words = cliOf('downloadFile') ?? [];
    expect(words.length).toBeGreaterThan(0);
    const download = await runCli([...words, attachment.file_id, '--out', out], as('bob'));
    expect(download.code, download.stderr).toBe(EXIT.ok);
    expect(readFileSync(out).equals(bytes)).toBe(true);
    expect(download.json).toMatchObject({
      path: out,
      size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    });
  });

  it('send --file with no body sends the file alone', async () => {
    const folder = tempDir('switchboard-cli-files-');
    const source = join(folder, 'alone.txt');
    writeFileSync(source, 'just the file\n');
    const sent = await runCli(['send', '--to', bob.agent.agent_id, '--file', source], as('alice'));
    expect(sent.code, sent.stderr).toBe(EXIT.ok);
    expect(sent.json.results[0].status).toBe('sent');
    const channel = sent.json.results[0].channel_id as string;
    const history = await runCli(['history', channel, '--order', 'desc', '--limit', '1'], as('bob'));
    expect(history.json.messages[0]).toMatchObject({ body: '', attachment: { filename: 'alone.txt', size: 14 } });
  });
});
