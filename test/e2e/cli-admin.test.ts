/**
 * Headless set-up with the administrator commands: sign in (password from stdin, session cookie
 * kept in the profile), hosts, agents (the key printed once), keys, settings, sign out.
 */
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../client/errors.js';
import { expectNoStack, runCli, tempConfig } from './cli-process.js';
import { type Server, startServer } from './harness.js';

let server: Server;
let config: string;
const env = () => ({ SWITCHBOARD_CONFIG: config });

beforeAll(async () => {
  server = await startServer();
  config = tempConfig();
  const login = await runCli(['login', '--url', server.url], { env: env() });
  expect(login.code, login.stderr).toBe(EXIT.ok);
});
afterAll(async () => {
  await server?.stop();
});

describe('admin commands', () => {
  it('admin commands before signing in: exit 2 with the way to sign in', async () => {
    const run = await runCli(['admin', 'hosts', 'list'], { env: env() });
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr).toMatch(/not signed in as an administrator.*switchboard admin login/);
  });

  it('a wrong password is exit 3 unauthenticated; the password never comes from argv', async () => {
    const wrong = await runCli(['admin', 'login', '--username', 'admin', '--password-stdin'], {
      env: env(),
      input: 'not-the-password\n',
    });
    expect(wrong.code).toBe(EXIT.request);
    expect(wrong.stderr).toMatch(/unauthenticated \(HTTP 401\)/);
    const argv = await runCli(['admin', 'login', '--username', 'admin', '--password', 'x'], { env: env() });
    expect(argv.code).toBe(EXIT.usage);
    expect(argv.stderr).toMatch(/unknown option '--password'/);
    expectNoStack(wrong.stderr + argv.stderr);
  });

  it('admin login stores the session in the profile; hosts, agents, keys and settings work', async () => {
    const login = await runCli(['admin', 'login', '--username', 'admin', '--password-stdin'], {
      env: env(),
      input: `${server.adminPassword}\n`,
    });
    expect(login.code, login.stderr).toBe(EXIT.ok);
    expect(login.json.username).toBe('admin');
    expect(JSON.parse(readFileSync(config, 'utf8')).profiles.default.admin_cookie).toMatch(/^switchboard_session=/);
    expect(login.stdout).not.toContain('switchboard_session');

    const host = await runCli(
      [
        'admin',
        'hosts',
        'create',
        '--name',
        'build-box',
        '--addresses',
        '127.0.0.1',
        '--addresses',
        '::1',
        '--os',
        'linux',
      ],
      { env: env() },
    );
    expect(host.code, host.stderr).toBe(EXIT.ok);
    expect(host.json.host).toMatchObject({ name: 'build-box', addresses: ['127.0.0.1', '::1'] });
    const hostId = host.json.host.host_id as string;

    const agent = await runCli(['admin', 'agents', 'create', '--name', 'codex-laptop', '--host-id', hostId], {
      env: env(),
    });
    expect(agent.code, agent.stderr).toBe(EXIT.ok);
    const key = agent.json.api_key as string;
    expect(key).toMatch(/^sbk_/);
    const agentId = agent.json.agent.agent_id as string;

    // The printed key works: the agent profile is set up from it.
    const agentLogin = await runCli(['login', '--profile', 'codex', '--url', server.url, '--key-stdin'], {
      env: env(),
      input: key,
    });
    expect(agentLogin.code, agentLogin.stderr).toBe(EXIT.ok);
    expect(agentLogin.json.agent.agent_id).toBe(agentId);

    const list = await runCli(['admin', 'agents', 'list', '--host-id', hostId], { env: env() });
    expect(list.json.agents.map((a: { agent_id: string }) => a.agent_id)).toEqual([agentId]);
    expect(list.stdout).not.toContain(key);

    const disable = await runCli(['admin', 'agents', 'update', agentId, '--no-enabled'], { env: env() });
    expect(disable.json.agent.enabled).toBe(false);
    const denied = await runCli(['me', '--profile', 'codex'], { env: env() });
    expect(denied.code).toBe(EXIT.request);
    await runCli(['admin', 'agents', 'update', agentId, '--enabled'], { env: env() });

    const regenerated = await runCli(['admin', 'agents', 'regenerate-key', agentId], { env: env() });
    const newKey = regenerated.json.api_key as string;
    expect(newKey).not.toBe(key);
    const old = await runCli(['me', '--profile', 'codex'], { env: env() });
    expect(old.code).toBe(EXIT.request);
    expect(old.stderr).toMatch(/unauthenticated/);
    const fresh = await runCli(['me'], { env: { ...env(), SWITCHBOARD_API_KEY: newKey } });
    expect(fresh.json.agent_id).toBe(agentId);

    // The agent page from the command line: the new key's status, and the refusals above.
    const seen = await runCli(['admin', 'agents', 'get', agentId], { env: env() });
    expect(seen.code, seen.stderr).toBe(EXIT.ok);
    expect(seen.json.agent).toMatchObject({
      key_status: 'active',
      key_prefix: newKey.slice(0, newKey.indexOf('.') + 5),
    });
    expect(seen.json.inbox).toEqual({ unread: 0, claimable: 0, leased: 0, parked: 0 });
    const refused = await runCli(['admin', 'agents', 'rejections', agentId], { env: env() });
    expect(refused.code, refused.stderr).toBe(EXIT.ok);
    const reasons = refused.json.rejections.map((r: { reason: string }) => r.reason);
    expect(reasons).toEqual(expect.arrayContaining(['agent_disabled', 'wrong_key']));
    expect(refused.stdout).not.toContain(key.slice(key.indexOf('.') + 1));

    const settings = await runCli(['admin', 'settings', 'set', '--claim-seconds', '120'], { env: env() });
    expect(settings.code, settings.stderr).toBe(EXIT.ok);
    expect(settings.json.settings.claim_seconds).toBe(120);
    const invalid = await runCli(['admin', 'settings', 'set', '--claim-seconds', '0'], { env: env() });
    expect(invalid.code).toBe(EXIT.usage);
    expect(invalid.stderr).toMatch(/--claim-seconds/);
  });

  it('admin agents import: all or nothing, every refused row named; the keys printed once, or written 0600 instead', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-import-'));
    const bad = join(dir, 'bad.csv');
    writeFileSync(
      bad,
      'name,host,display_name\nimp-ok,build-box,OK\nimp bad,build-box,\nimp-lost,nowhere,\nimp-ok,build-box,\n',
    );
    const refused = await runCli(['admin', 'agents', 'import', bad], { env: env() });
    expect(refused.code).toBe(EXIT.request);
    expect(refused.stderr).toMatch(/row 2 \(name\)/);
    expect(refused.stderr).toMatch(/row 3 \(host\): No host "nowhere"/);
    expect(refused.stderr).toMatch(/row 4 \(name\): Row 1 already names "imp-ok"/);
    const none = await runCli(['admin', 'agents', 'list', '--q', 'imp-'], { env: env() });
    expect(none.json.agents).toEqual([]);

    const unreadable = join(dir, 'unreadable.csv');
    writeFileSync(unreadable, 'name,host\n,build-box\n');
    const local = await runCli(['admin', 'agents', 'import', unreadable], { env: env() });
    expect(local.code).toBe(EXIT.usage);
    expect(local.stderr).toMatch(/row 1: name is missing/);

    const good = join(dir, 'good.json');
    writeFileSync(
      good,
      JSON.stringify([
        { name: 'imp-a', host: 'build-box', description: 'A, with "quotes"' },
        { name: 'imp-b', host: 'build-box' },
      ]),
    );
    const keysOut = join(dir, 'keys.csv');
    const done = await runCli(['admin', 'agents', 'import', good, '--keys-out', keysOut], { env: env() });
    expect(done.code, done.stderr).toBe(EXIT.ok);
    expect(done.json.agents.map((a: { agent: { name: string } }) => a.agent.name)).toEqual(['imp-a', 'imp-b']);
    // The keys went to the file, not to stdout.
    expect(done.json.keys_file).toBe(keysOut);
    expect(statSync(keysOut).mode & 0o777).toBe(0o600);
    const [header, ...lines] = readFileSync(keysOut, 'utf8').trim().split(/\r?\n/);
    expect(header).toBe('agent_id,name,api_key');
    expect(lines.map((l) => l.split(',')[1])).toEqual(['imp-a', 'imp-b']);
    for (const line of lines) expect(done.stdout).not.toContain(line.split(',')[2]);
    expect(done.json.agents[0].api_key).toBeUndefined();
    const firstKey = lines[0]?.split(',')[2] as string;
    const fresh = await runCli(['me'], { env: { ...env(), SWITCHBOARD_API_KEY: firstKey } });
    expect(fresh.json.name).toBe('imp-a');

    // A keys file that exists already is not overwritten: the keys are printed after all, exit 4.
    writeFileSync(good, JSON.stringify([{ name: 'imp-c', host: 'build-box' }]));
    const again = await runCli(['admin', 'agents', 'import', good, '--keys-out', keysOut], { env: env() });
    expect(again.code).toBe(EXIT.partial);
    expect(again.stderr).toMatch(/the keys were not written to .*cannot be shown again/);
    expect(again.json.agents[0].api_key).toMatch(/^sbk_/);
    expect(readFileSync(keysOut, 'utf8')).not.toContain(again.json.agents[0].api_key);

    // A bulk action from the command line: exit 4 when some agent was rejected.
    const ids = done.json.agents.map((a: { agent: { agent_id: string } }) => a.agent.agent_id);
    const bulk = await runCli(['admin', 'agents', 'bulk', 'disable', ...ids, 'agt_unknown00000000'], { env: env() });
    expect(bulk.code).toBe(EXIT.partial);
    expect(bulk.json.results.map((r: { status: string }) => r.status)).toEqual(['done', 'done', 'rejected']);
  });

  it('admin logout ends the session and forgets the cookie', async () => {
    const out = await runCli(['admin', 'logout'], { env: env() });
    expect(out.code, out.stderr).toBe(EXIT.ok);
    expect(JSON.parse(readFileSync(config, 'utf8')).profiles.default.admin_cookie).toBeUndefined();
    const after = await runCli(['admin', 'settings', 'get'], { env: env() });
    expect(after.code).toBe(EXIT.usage);
  });
});
