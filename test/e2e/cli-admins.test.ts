/**
 * The administrator-account commands the CLI derives from the registry: `admin admins`,
 * `admin sessions`, `admin audit` and `admin password` (passwords never from argv).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../client/errors.js';
import { expectNoStack, runCli, tempConfig } from './cli-process.js';
import { type Server, startServer } from './harness.js';

let server: Server;
const first = { config: '' };
const second = { config: '' };
const envOf = (who: { config: string }) => ({ SWITCHBOARD_CONFIG: who.config });

async function signIn(who: { config: string }, username: string, password: string) {
  const login = await runCli(['login', '--url', server.url], { env: envOf(who) });
  expect(login.code, login.stderr).toBe(EXIT.ok);
  const admin = await runCli(['admin', 'login', '--username', username, '--password-stdin'], {
    env: envOf(who),
    input: `${password}\n`,
  });
  expect(admin.code, admin.stderr).toBe(EXIT.ok);
}

beforeAll(async () => {
  server = await startServer();
  first.config = tempConfig();
  second.config = tempConfig();
  await signIn(first, 'admin', server.adminPassword as string);
});
afterAll(async () => {
  await server?.stop();
});

describe('administrator accounts from the CLI', () => {
  it('creates a second administrator, lists and ends its session, and reads the audit log', async () => {
    const argv = await runCli(['admin', 'admins', 'create', 'second', '--password', 'x'], { env: envOf(first) });
    expect(argv.code).toBe(EXIT.usage);
    const created = await runCli(['admin', 'admins', 'create', 'second', '--password-stdin'], {
      env: envOf(first),
      input: 'second admin passphrase\n',
    });
    expect(created.code, created.stderr).toBe(EXIT.ok);
    expect(created.json.admin).toMatchObject({ username: 'second', enabled: true });
    const list = await runCli(['admin', 'admins', 'list'], { env: envOf(first) });
    expect(list.json.admins.map((a: { username: string }) => a.username)).toEqual(['admin', 'second']);

    await signIn(second, 'second', 'second admin passphrase');
    const sessions = await runCli(['admin', 'sessions', 'list', '--username', 'second'], { env: envOf(first) });
    expect(sessions.code, sessions.stderr).toBe(EXIT.ok);
    expect(sessions.json.sessions).toHaveLength(1);
    expect(sessions.json.sessions[0].user_agent).toMatch(/^switchboard-cli\//);
    const ended = await runCli(['admin', 'sessions', 'end', sessions.json.sessions[0].session_id], {
      env: envOf(first),
    });
    expect(ended.json).toEqual({ ok: true, signed_out: false });
    const whoami = await runCli(['admin', 'whoami'], { env: envOf(second) });
    expect(whoami.code).toBe(EXIT.request);
    expect(whoami.stderr).toMatch(/unauthenticated/);

    const audit = await runCli(['admin', 'audit', '--admin', 'second'], { env: envOf(first) });
    expect(audit.code, audit.stderr).toBe(EXIT.ok);
    expect(audit.json.entries.map((e: { action: string }) => e.action)).toEqual(['adminLogin']);
    const ends = await runCli(['admin', 'audit', '--action', 'endAdminSession'], { env: envOf(first) });
    expect(ends.json.entries[0]).toMatchObject({ admin: 'admin', outcome: 'ok' });
    expect(ends.json.entries[0].targets).toEqual([sessions.json.sessions[0].session_id]);

    const off = await runCli(['admin', 'admins', 'update', 'second', '--no-enabled'], { env: envOf(first) });
    expect(off.json.admin).toMatchObject({ username: 'second', enabled: false });
    // Now the last enabled administrator: refused, and still signed in.
    const refused = await runCli(['admin', 'admins', 'update', 'admin', '--no-enabled'], { env: envOf(first) });
    expect(refused.code).toBe(EXIT.request);
    expect(refused.stderr).toMatch(/conflict \(HTTP 409\)/);
    expect((await runCli(['admin', 'whoami'], { env: envOf(first) })).code).toBe(EXIT.ok);
    expectNoStack(argv.stderr + refused.stderr);
  });

  it('admin password needs a terminal for its two secrets (never argv)', async () => {
    const run = await runCli(['admin', 'password'], { env: envOf(first) });
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr).toMatch(/never taken from the command line/);
    expectNoStack(run.stderr);
  });
});
