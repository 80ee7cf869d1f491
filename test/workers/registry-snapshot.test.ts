/**
 * The registry answers getAgents and the directory from an in-memory copy
 * (durable-objects/registry/agent-snapshot.ts). These tests hold it to two promises: it answers
 * what SQLite would (order, cursor, LIKE filter), and every write to agents or hosts shows in the
 * very next read.
 */
import { env, runInDurableObject } from 'cloudflare:test';
import { beforeEach, describe, expect, it } from 'vitest';
import type { DirectoryEntryView } from '../../core/rpc.js';

const registry = () => env.REGISTRY.get(env.REGISTRY.idFromName('registry'));

/** The directory as the SQL it replaced computes it: every matching entry, in order. */
function reference(filter: { host_id?: string; name?: string }): Promise<DirectoryEntryView[]> {
  const pattern = filter.name ? `%${filter.name.replace(/[\\%_]/g, (m) => `\\${m}`)}%` : null;
  return runInDurableObject(registry(), async (_instance, state) =>
    state.storage.sql
      .exec(
        `select a.agent_id, a.name, a.display_name, a.description, a.last_access_at,
           h.host_id, h.name as host_name, h.os
         from agents a join hosts h on h.host_id = a.host_id
         where a.enabled = 1 and (?1 is null or a.host_id = ?1)
           and (?2 is null or a.name like ?2 escape '\\' or a.display_name like ?2 escape '\\')
         order by a.name, a.agent_id`,
        filter.host_id ?? null,
        pattern,
      )
      .toArray()
      .map((r) => ({
        agent_id: r.agent_id as string,
        name: r.name as string,
        display_name: r.display_name as string,
        description: r.description as string,
        last_access_at: r.last_access_at as string | null,
        host: { host_id: r.host_id as string, name: r.host_name as string, os: r.os as string },
      })),
  );
}

/** Every page of the registry's directory, concatenated. */
async function allPages(filter: { host_id?: string; name?: string }, limit: number): Promise<DirectoryEntryView[]> {
  const out: DirectoryEntryView[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const page = await registry().directory(filter, cursor, limit);
    expect(page.agents.length).toBeLessThanOrEqual(limit);
    out.push(...page.agents);
    if (!page.next_cursor) return out;
    cursor = page.next_cursor;
  }
  throw new Error('the directory did not end');
}

async function host(name: string, os = 'linux') {
  return registry().createHost({ name, addresses: ['10.0.0.1'], os });
}

async function agent(hostId: string, name: string, display_name?: string, enabled = true) {
  return (await registry().createAgent({ name, host_id: hostId, display_name, enabled })).agent;
}

describe('the registry snapshot', () => {
  beforeEach(async () => {
    await registry().bootstrapAdmin('root', 'correct horse battery staple');
  });

  it('orders, pages and filters the directory exactly as SQLite does', async () => {
    const alpha = await host('alpha');
    const beta = await host('beta', 'macos');
    const names = ['b', 'B', 'a', 'A', 'ab', 'a-b', 'é', 'z', 'Z9', 'a.b', 'ÿ'];
    for (const [i, name] of names.entries()) {
      await agent(i % 2 ? alpha.host_id : beta.host_id, name, ['50% off', 'under_score', 'Été', 'ÉTÉ'][i % 4]);
    }
    // Same name on both hosts: the agent ID breaks the tie.
    await agent(alpha.host_id, 'twin');
    await agent(beta.host_id, 'twin');
    await agent(alpha.host_id, 'hidden', 'a hidden one', false);

    const filters = [
      {},
      { host_id: alpha.host_id },
      { name: 'a' },
      { name: 'A' },
      { name: '%' },
      { name: '_' },
      { name: 'r_s' },
      { name: 'été' },
      { name: 'É' },
      { name: '\\' },
      { name: 'hidden' },
      { host_id: beta.host_id, name: 'B' },
    ];
    for (const filter of filters) {
      const expected = await reference(filter);
      for (const limit of [1, 2, 5, 100]) expect(await allPages(filter, limit)).toEqual(expected);
    }
    expect((await reference({})).length).toBe(names.length + 2);
  });

  it('sorts in code point order, as SQLite compares UTF-8', async () => {
    const alpha = await host('alpha');
    // Names the API would refuse reach the object through RPC; a surrogate pair (U+1F600) sorts
    // after U+FFFD in UTF-8 but before it in UTF-16. One page: a cursor holds Latin-1 names only.
    for (const name of ['\u{1F600}', '\uFFFD', '\uE000', 'z', '\u{10000}']) await agent(alpha.host_id, name);
    const names = (await registry().directory({}, undefined, 100)).agents.map((e) => e.name);
    expect(names).toEqual((await reference({})).map((e) => e.name));
    expect(names).toEqual(['z', '\uE000', '\uFFFD', '\u{10000}', '\u{1F600}']);
  });

  it('shows every write to agents and hosts in the next read', async () => {
    const alpha = await host('alpha');
    const a = await agent(alpha.host_id, 'one');
    const b = await agent(alpha.host_id, 'two');
    const read = async () => ({
      directory: (await registry().directory({}, undefined, 50)).agents,
      agents: await registry().getAgents([a.agent_id, b.agent_id, 'agt_missing', a.agent_id]),
    });
    const check = async () => {
      const now = await read();
      expect(now.directory).toEqual(await reference({}));
      return now;
    };

    expect((await check()).agents.map((v) => v.agent_id)).toEqual([a.agent_id, b.agent_id]);

    await registry().updateAgent(a.agent_id, { name: 'zed', display_name: 'Zed', description: 'renamed' });
    let now = await check();
    expect(now.directory.map((e) => e.name)).toEqual(['two', 'zed']);
    expect(now.agents[0]).toMatchObject({ name: 'zed', display_name: 'Zed', description: 'renamed' });

    await registry().updateAgent(b.agent_id, { enabled: false });
    now = await check();
    expect(now.directory.map((e) => e.agent_id)).toEqual([a.agent_id]);
    expect(now.agents[1]?.enabled).toBe(false);

    await registry().updateHost(alpha.host_id, { name: 'alpha-2', os: 'freebsd' });
    now = await check();
    expect(now.directory[0]?.host).toEqual({ host_id: alpha.host_id, name: 'alpha-2', os: 'freebsd' });

    const beta = await host('beta');
    await registry().updateAgent(a.agent_id, { host_id: beta.host_id });
    now = await check();
    expect(now.directory[0]?.host.name).toBe('beta');
    expect(now.agents[0]?.host_id).toBe(beta.host_id);

    await registry().revokeKey(a.agent_id);
    now = await check();
    expect(now.agents[0]).toMatchObject({ key_status: 'revoked', key_prefix: null, key_issued_at: null });
    await registry().regenerateKey(a.agent_id);
    now = await check();
    expect(now.agents[0]).toMatchObject({ key_status: 'active', key_revoked_at: null });
    expect(now.agents[0]?.key_prefix).toEqual(expect.any(String));

    await registry().recordAccess(a.agent_id, '2026-01-02T00:00:00.000Z', '10.0.0.7');
    now = await check();
    expect(now.directory[0]?.last_access_at).toBe('2026-01-02T00:00:00.000Z');
    expect(now.agents[0]?.last_access_address).toBe('10.0.0.7');
    // Only ever forward: an older report changes neither the table nor the answer.
    await registry().recordAccess(a.agent_id, '2026-01-01T00:00:00.000Z', '10.0.0.8');
    now = await check();
    expect(now.agents[0]).toMatchObject({
      last_access_at: '2026-01-02T00:00:00.000Z',
      last_access_address: '10.0.0.7',
    });
    await registry().recordAccess(a.agent_id, '2026-01-03T00:00:00.000Z');
    now = await check();
    expect(now.agents[0]).toMatchObject({
      last_access_at: '2026-01-03T00:00:00.000Z',
      last_access_address: '10.0.0.7',
    });

    // Compared with the table itself, not only the directory's columns.
    const stored = await registry().getAgent(a.agent_id);
    expect(now.agents[0]).toEqual(stored);

    await registry().deleteAgent(b.agent_id);
    now = await check();
    expect(now.agents.map((v) => v.agent_id)).toEqual([a.agent_id]);

    await registry().deleteHost(alpha.host_id);
    await registry().createAgent({ name: 'three', host_id: beta.host_id });
    now = await check();
    expect(now.directory.map((e) => e.name)).toEqual(['three', 'zed']);
  });

  it('looks up more agents than one statement could bind, each once', async () => {
    const alpha = await host('alpha');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await agent(alpha.host_id, `n${i}`)).agent_id);
    const asked = [...Array.from({ length: 150 }, (_, i) => `agt_unknown${i}`), ...ids, ...ids];
    const found = await registry().getAgents(asked);
    expect(found.map((v) => v.agent_id)).toEqual(ids);
    for (const view of found) expect(view).toEqual(await registry().getAgent(view.agent_id));
  });

  it('keeps a write that failed out of the answer', async () => {
    const alpha = await host('alpha');
    await agent(alpha.host_id, 'taken');
    const other = await agent(alpha.host_id, 'other');
    expect(await registry().directory({}, undefined, 50)).toMatchObject({
      agents: [{ name: 'other' }, { name: 'taken' }],
    });
    const refused = await registry()
      .updateAgent(other.agent_id, { name: 'taken' })
      .then(
        () => null,
        (error: Error) => error,
      );
    expect(refused?.message).toMatch(/exists/);
    expect((await registry().directory({}, undefined, 50)).agents).toEqual(await reference({}));
  });
});
