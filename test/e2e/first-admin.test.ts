/**
 * Start-up settings and the first administrator (api-v1.md "Running it"): a short
 * SWITCHBOARD_ADMIN_PASSWORD stops the launcher with a clear message; without it the first start
 * prints a one-time setup link whose token really opens the console once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { api, errorCode, runUntilExit, type Server, startServer, tempDir } from './harness.js';

const running: Server[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) await server.kill();
});

describe('SWITCHBOARD_ADMIN_PASSWORD', () => {
  it('shorter than 12 characters: exits non-zero with a clear message and serves nothing', async () => {
    const result = await runUntilExit({ env: { SWITCHBOARD_ADMIN_PASSWORD: 'short-11chr' } });
    expect(result.code).not.toBe(0);
    expect(result.code).not.toBeNull();
    expect(result.stderr).toContain('SWITCHBOARD_ADMIN_PASSWORD is too short');
    expect(result.stderr).toContain('at least 12 characters');
    expect(result.stderr).not.toContain('short-11chr');
    expect(result.stdout).not.toContain('Switchboard listening on');
  });

  it('creates administrator admin on the first start only', async () => {
    const dataDir = tempDir();
    const first = await startServer({ dataDir, env: { SWITCHBOARD_ADMIN_PASSWORD: 'first-password-123' } });
    running.push(first);
    expect(first.stdout()).toContain('Created administrator "admin"');
    expect(first.stdout()).not.toContain('/setup#token=');
    expect(await first.stop()).toBe(0);

    // A later start with another password changes nothing: the first one still signs in.
    const second = await startServer({ dataDir, env: { SWITCHBOARD_ADMIN_PASSWORD: 'second-password-456' } });
    running.push(second);
    expect(second.stdout()).not.toContain('Created administrator');
    const old = await api(second, 'POST', '/admin/login', {
      body: { username: 'admin', password: 'first-password-123' },
    });
    expect(old.status).toBe(200);
    const other = await api(second, 'POST', '/admin/login', {
      body: { username: 'admin', password: 'second-password-456' },
    });
    expect(other.status).toBe(401);
  });
});

describe('without SWITCHBOARD_ADMIN_PASSWORD', () => {
  it('prints a one-time setup link that creates the first administrator once', async () => {
    const dataDir = tempDir();
    const server = await startServer({ dataDir, env: { SWITCHBOARD_ADMIN_PASSWORD: undefined } });
    running.push(server);
    const link = new RegExp(`^  http://127\\.0\\.0\\.1:${server.port}/setup#token=([A-Za-z0-9_-]+)$`, 'm').exec(
      server.stdout(),
    );
    expect(link, server.stdout()).not.toBeNull();
    const token = link?.[1] as string;
    // The link comes before the ready line, so a reader of the ready line has it already.
    expect(server.stdout().indexOf('/setup#token=')).toBeLessThan(server.stdout().indexOf('Switchboard listening'));

    const status = await api(server, 'GET', '/admin/setup');
    expect(status.body).toEqual({ needs_setup: true });

    const wrong = await api(server, 'POST', '/admin/setup', {
      body: { token: 'not-the-token', username: 'root', password: 'a-good-long-password' },
    });
    expect(wrong.status).toBe(401);
    expect(errorCode(wrong)).toBe('unauthenticated');

    const done = await api(server, 'POST', '/admin/setup', {
      body: { token, username: 'root', password: 'a-good-long-password' },
    });
    expect(done.status, done.text).toBe(201);
    expect(done.headers['set-cookie']?.some((c) => c.startsWith('switchboard_session='))).toBe(true);

    const again = await api(server, 'POST', '/admin/setup', {
      body: { token, username: 'root2', password: 'a-good-long-password' },
    });
    expect(again.status).toBeGreaterThanOrEqual(400);

    // Once an administrator exists, a restart prints no link.
    expect(await server.stop()).toBe(0);
    const restarted = await startServer({ dataDir, env: { SWITCHBOARD_ADMIN_PASSWORD: undefined } });
    running.push(restarted);
    expect(restarted.stdout()).not.toContain('/setup#token=');
    const login = await api(restarted, 'POST', '/admin/login', {
      body: { username: 'root', password: 'a-good-long-password' },
    });
    expect(login.status).toBe(200);
  });
});

describe('other settings', () => {
  it('refuses an invalid port', async () => {
    const result = await runUntilExit({ args: ['--port', '70000'] });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('--port must be a port number');
  });

  it('refuses --tls-cert without --tls-key', async () => {
    const result = await runUntilExit({ args: ['--tls-cert', '/nonexistent.pem'] });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('TLS needs both --tls-cert FILE and --tls-key FILE');
  });

  it('reports a port that is taken instead of crashing', async () => {
    const server = await startServer();
    running.push(server);
    const result = await runUntilExit({ args: ['--port', String(server.port)] });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`Cannot listen on 127.0.0.1:${server.port}`);
  });
});
