/**
 * Data lives in the data directory and survives the launcher: a clean stop (SIGTERM/SIGINT exits
 * 0) and a crash (SIGKILL) alike. The key pepper is made once, private, and never changes.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { childPids } from '../../server/orphan-guard.js';
import { adminLogin, api, createAgent, createHost, type Server, startServer, tempDir } from './harness.js';

const running: Server[] = [];
async function start(dataDir: string): Promise<Server> {
  const server = await startServer({ dataDir });
  running.push(server);
  return server;
}

afterEach(async () => {
  for (const server of running.splice(0)) await server.kill();
});

/** A running process: a zombie waiting for its new parent to reap it counts as gone. */
function pidAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
}

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return condition();
}

describe('data directory', () => {
  it('keeps hosts, agents and keys across a clean restart', async () => {
    const dataDir = tempDir();
    const first = await start(dataDir);
    const cookie = await adminLogin(first);
    const host = await createHost(first, cookie, ['127.0.0.1'], 'persisted-host');
    const { agent, key } = await createAgent(first, cookie, host.host_id, 'persisted-agent');
    expect((await api(first, 'GET', '/me', { key })).status).toBe(200);
    const pepper = readFileSync(join(dataDir, 'key-pepper'), 'utf8');

    expect(await first.stop('SIGTERM')).toBe(0);
    expect(existsSync(join(dataDir, 'run', 'launcher.json'))).toBe(false);

    const second = await start(dataDir);
    expect(second.stdout()).not.toContain('/setup#token=');
    expect(readFileSync(join(dataDir, 'key-pepper'), 'utf8')).toBe(pepper);
    const me = await api(second, 'GET', '/me', { key });
    expect(me.status).toBe(200);
    expect(me.body.agent_id).toBe(agent.agent_id);
    const cookie2 = await adminLogin(second);
    const hosts = await api(second, 'GET', '/admin/hosts', { cookie: cookie2 });
    expect(hosts.status).toBe(200);
    expect(hosts.body.hosts.map((h: { name: string }) => h.name)).toContain('persisted-host');
    expect(await second.stop('SIGINT')).toBe(0);
  });

  it('keeps data after a crash (SIGKILL) and leaves no workerd behind', async () => {
    const dataDir = tempDir();
    const first = await start(dataDir);
    const cookie = await adminLogin(first);
    const host = await createHost(first, cookie, ['127.0.0.1']);
    const { key } = await createAgent(first, cookie, host.host_id);
    const workerd = childPids(first.pid, 'workerd');
    expect(workerd).toHaveLength(1);

    await first.kill();
    expect(await waitUntil(() => !pidAlive(workerd[0] as number), 10_000)).toBe(true);

    const second = await start(dataDir);
    expect((await api(second, 'GET', '/me', { key })).status).toBe(200);
  });

  it('answers exact overview counts at once after a crash, when the channels had not reported yet', async () => {
    const dataDir = tempDir();
    const first = await start(dataDir);
    const cookie = await adminLogin(first);
    const host = await createHost(first, cookie, ['127.0.0.1']);
    const a = await createAgent(first, cookie, host.host_id);
    const b = await createAgent(first, cookie, host.host_id);
    const c = await createAgent(first, cookie, host.host_id);
    // Channels report their figures to the catalog behind the overview later, by alarm: a crash
    // right after the sends leaves the catalog behind.
    for (const to of [b, c]) {
      for (let i = 0; i < 3; i++) {
        const form = new FormData();
        form.append('metadata', JSON.stringify({ to_agent_ids: [to.agent.agent_id], body: `file ${i}` }));
        form.append('file', new Blob([Buffer.from(`bytes ${i}`)]), `f${i}.txt`);
        const res = await fetch(`${first.url}/api/v1/messages/direct`, {
          method: 'POST',
          headers: { authorization: `Bearer ${a.key}` },
          body: form,
        });
        expect(res.status).toBe(200);
      }
      const text = await api(first, 'POST', '/messages/direct', {
        key: a.key,
        body: { to_agent_ids: [to.agent.agent_id], body: 'no file' },
      });
      expect(text.status).toBe(200);
    }
    await first.kill();

    const second = await start(dataDir);
    const cookie2 = await adminLogin(second);
    const overview = await api(second, 'GET', '/admin/overview', { cookie: cookie2 });
    expect(overview.status).toBe(200);
    expect(overview.body.counts).toMatchObject({ private_channels: 2, messages: 8, files: 6 });
  });

  it('stores the key pepper with mode 0600 and writes run/launcher.json while running', async () => {
    const dataDir = tempDir();
    const server = await start(dataDir);
    expect(statSync(join(dataDir, 'key-pepper')).mode & 0o777).toBe(0o600);
    const launcher = JSON.parse(readFileSync(join(dataDir, 'run', 'launcher.json'), 'utf8'));
    // The control socket (backup) is loopback only and carries its per-boot secret.
    expect(launcher).toEqual({
      pid: server.pid,
      public_url: `http://127.0.0.1:${server.port}`,
      internal_url: server.internalUrl,
      control_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      control_secret: expect.stringMatching(/^[A-Za-z0-9_-]{32,}$/),
    });
    expect(server.internalUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('stops on SIGTERM with exit code 0 and leaves no workerd behind', async () => {
    const server = await start(tempDir());
    const workerd = childPids(server.pid, 'workerd');
    expect(workerd).toHaveLength(1);
    expect(await server.stop('SIGTERM')).toBe(0);
    expect(server.stderr()).toContain('SIGTERM received');
    expect(pidAlive(workerd[0] as number)).toBe(false);
  });
});
