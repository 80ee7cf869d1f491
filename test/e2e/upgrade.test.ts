/**
 * Upgrades that lose nothing (api-v1.md, "Running it as a service"): every data directory a
 * release wrote (test/fixtures/upgrade/<version>/, made by scripts/make-upgrade-fixture.mjs from
 * its tag) opens under the current code with nothing lost: hosts, agents and their keys,
 * messages and their files, the group, the settings, and bob's deliveries in each state (ACKed,
 * leased, parked, unread). The migrations run by themselves: the release's migrations are a prefix
 * of today's, the server answers /readyz, and everything reads back.
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as tar from 'tar';
import { afterAll, describe, expect, it } from 'vitest';
import { adminLogin, api, ROOT, type Server, startServer, tempDir } from './harness.js';

const FIXTURES = join(ROOT, 'test/fixtures/upgrade');

interface Fixture {
  version: string;
  admin: { username: string; password: string };
  settings: Record<string, number>;
  hosts: { host_id: string; name: string; addresses: string[] }[];
  agents: Record<string, { id: string; key: string }>;
  group: { group_id: string; name: string; owner: string; members: string[] };
  messages: { message_id: string; channel_id: string; from: string; to: string[]; body: string; file: string | null }[];
  deliveries: { agent: string; acked: string; leased: string; parked: string; unread: string[] };
  migrations: Record<string, string[]>;
}

const servers: Server[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop().catch(() => {});
});

describe.each(readdirSync(FIXTURES).sort())('data written by release %s', (version) => {
  const fixture = JSON.parse(readFileSync(join(FIXTURES, version, 'fixture.json'), 'utf8')) as Fixture;

  it('has migrations that are a prefix of the current ones', () => {
    for (const [name, tags] of Object.entries(fixture.migrations)) {
      const journal = JSON.parse(readFileSync(join(ROOT, 'migrations', name, 'meta/_journal.json'), 'utf8')) as {
        entries: { tag: string }[];
      };
      expect(journal.entries.map((e) => e.tag).slice(0, tags.length), name).toEqual(tags);
    }
  });

  it('opens under the current code with every host, agent, key, message, file, group, setting and delivery', async () => {
    const dataDir = join(tempDir(), 'data');
    mkdirSync(dataDir);
    await tar.extract({ file: join(FIXTURES, version, 'data.tar.gz'), cwd: dataDir, strict: true });
    const server = await startServer({ dataDir, env: { SWITCHBOARD_ADMIN_PASSWORD: undefined } });
    servers.push(server);
    expect((await api(server, 'GET', '/readyz', { absolutePath: true })).status).toBe(200);
    const cookie = await adminLogin(server, fixture.admin);

    const settings = await api(server, 'GET', '/admin/settings', { cookie });
    expect(settings.body.settings).toMatchObject(fixture.settings);

    const hosts = (await api(server, 'GET', '/admin/hosts', { cookie })).body.hosts as typeof fixture.hosts;
    for (const host of fixture.hosts) {
      expect(hosts.find((h) => h.host_id === host.host_id)).toMatchObject({
        name: host.name,
        addresses: host.addresses,
      });
    }

    const agents = (await api(server, 'GET', '/admin/agents', { cookie })).body.agents as { agent_id: string }[];
    for (const [name, agent] of Object.entries(fixture.agents)) {
      expect(
        agents.some((a) => a.agent_id === agent.id),
        name,
      ).toBe(true);
      // dave's host is 127.0.0.2 (and a LAN address): his key works from there only.
      const me = await api(server, 'GET', '/me', {
        key: agent.key,
        ...(name === 'dave' && { localAddress: '127.0.0.2' }),
      });
      expect(me.status, `${name}: ${me.text}`).toBe(200);
      expect(me.body.agent_id).toBe(agent.id);
    }

    const key = (name: string) => fixture.agents[name]?.key as string;
    for (const message of fixture.messages) {
      const page = await api(server, 'GET', `/channels/${message.channel_id}/messages?limit=200`, {
        key: key(message.from),
      });
      expect(page.status, page.text).toBe(200);
      const stored = page.body.messages.find((m: { message_id: string }) => m.message_id === message.message_id);
      expect(stored, message.body).toMatchObject({ body: message.body, sender_id: fixture.agents[message.from]?.id });
      expect(stored.attachment === null).toBe(message.file === null);
      if (message.file !== null) {
        for (const reader of [message.from, ...message.to]) {
          const download = await api(server, 'GET', `/files/${stored.attachment.file_id}/content`, {
            key: key(reader),
          });
          expect(download.status, download.text).toBe(200);
          expect(download.text).toBe(message.file);
        }
      }
    }

    const groups = await api(server, 'GET', '/admin/groups', { cookie });
    const group = groups.body.groups.find((g: { group_id: string }) => g.group_id === fixture.group.group_id);
    expect(group, groups.text).toMatchObject({ name: fixture.group.name });
    const mine = await api(server, 'GET', `/groups/${fixture.group.group_id}`, { key: key('carol') });
    expect(mine.status, mine.text).toBe(200);

    // bob's deliveries: one parked, the ACKed one gone, the leased one's claim kept (its lease has
    // long expired, so it is claimable again and counts a second delivery), the rest unread.
    const d = fixture.deliveries;
    const inbox = await api(server, 'GET', '/inbox', { key: key(d.agent) });
    expect(inbox.body).toMatchObject({ unread: 2 + d.unread.length, parked: 1 });
    const claimed = await api(server, 'POST', '/inbox/claim', { key: key(d.agent), body: { limit: 10 } });
    const byId = new Map(
      (claimed.body.claims as { message: { message_id: string }; delivery_count: number }[]).map((c) => [
        c.message.message_id,
        c.delivery_count,
      ]),
    );
    expect([...byId.keys()].sort()).toEqual([d.leased, ...d.unread].sort());
    expect(byId.get(d.leased)).toBe(2);
    for (const id of d.unread) expect(byId.get(id)).toBe(1);
    const parked = await api(server, 'POST', '/inbox/claim', { key: key(d.agent), body: { limit: 10, parked: true } });
    expect(parked.body.claims.map((c: { message: { message_id: string } }) => c.message.message_id)).toEqual([
      d.parked,
    ]);
    expect(await server.stop('SIGTERM')).toBe(0);
  }, 120_000);
});
