/**
 * How group membership reaches each agent's inbox index and the administrators' catalog: notes
 * and snapshots carry the group's membership version, so late deliveries (outbox retries) never
 * bring back a membership that ended, and the index is only a hint that each group confirms.
 */
import { env, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { drizzle } from 'drizzle-orm/durable-sqlite';
import { describe, expect, it } from 'vitest';
import type { ChannelNote } from '../../durable-objects/agent/inbox-index.js';
import { GroupMembership } from '../../durable-objects/channel/membership.js';
import * as schema from '../../durable-objects/channel/schema.js';
import { adminCookie, call, createAgent, createHost } from './helpers.js';

const GROUP = 'grp_indexTestGroup01';

function note(state: 'active' | 'pending' | 'gone', version: number, pending = false): ChannelNote {
  return {
    channel_id: GROUP,
    kind: 'group',
    peer_agent_id: null,
    group_id: GROUP,
    name: 'indexed',
    last_message_at: 1_000,
    pending,
    membership: { state, version },
  };
}

describe('group membership in the inbox index', () => {
  it('lists a group channel only while active, and keeps invitations apart', async () => {
    const index = env.AGENT.get(env.AGENT.idFromName('agt_indexA'));
    await index.noteChannels([note('pending', 1)]);
    expect(await index.groupMemberships()).toEqual([{ group_id: GROUP, state: 'pending' }]);
    expect(await index.listChannels()).toEqual([]);

    await index.noteChannels([note('active', 2)]);
    expect(await index.groupMemberships()).toEqual([{ group_id: GROUP, state: 'active' }]);
    expect(await index.listChannels('group')).toEqual([
      expect.objectContaining({ channel_id: GROUP, kind: 'group', group_id: GROUP, name: 'indexed' }),
    ]);

    await index.noteChannels([note('gone', 3)]);
    expect(await index.groupMemberships()).toEqual([]);
    expect(await index.listChannels()).toEqual([]);
    expect(await index.pendingChannels()).toEqual([]);
  });

  it('ignores a late note from before the agent left, even one carrying a message hint', async () => {
    const index = env.AGENT.get(env.AGENT.idFromName('agt_indexB'));
    await index.noteChannels([note('active', 2)]);
    await index.noteChannels([note('gone', 3)]);
    await index.noteChannels([note('active', 2, true)]); // delivered late by an outbox retry
    expect(await index.groupMemberships()).toEqual([]);
    expect(await index.listChannels()).toEqual([]);
    expect(await index.pendingChannels()).toEqual([]);
  });

  it('keeps a late message hint while the membership it belongs to still holds', async () => {
    const index = env.AGENT.get(env.AGENT.idFromName('agt_indexC'));
    await index.noteChannels([note('active', 2)]);
    await index.noteChannels([note('active', 5)]); // someone else joined meanwhile
    await index.noteChannels([note('active', 4, true)]);
    expect(await index.pendingChannels()).toEqual([expect.objectContaining({ channel_id: GROUP })]);
  });

  it('continues the hint generation after a rejoin, so a clear read before leaving cannot match', async () => {
    const index = env.AGENT.get(env.AGENT.idFromName('agt_indexD'));
    await index.noteChannels([note('active', 1, true), note('active', 1, true)]);
    const [before] = await index.pendingChannels();
    await index.noteChannels([note('gone', 2), note('pending', 3), note('active', 4)]);
    await index.noteChannels([note('active', 4, true), note('active', 4, true)]);
    await index.clearPending([{ channel_id: GROUP, gen: before!.gen }]); // a poll from before the leave
    const [after] = await index.pendingChannels();
    expect(after?.channel_id).toBe(GROUP);
    expect(after!.gen).toBeGreaterThan(before!.gen);
  });

  it('shows in GET /groups only what the group itself confirms', async () => {
    const cookie = await adminCookie();
    const host = await createHost(cookie, ['10.0.0.1']);
    const { agent, key } = await createAgent(cookie, host.host_id);
    // An index entry for a group that never invited this agent (a stale or forged hint).
    await env.AGENT.get(env.AGENT.idFromName(agent.agent_id)).noteChannels([note('active', 7)]);
    const res = await call('GET', '/groups', { key });
    expect(res.body).toEqual({ memberships: [], invitations: [] });
  });
});

describe('a membership change committed before a crash', () => {
  it('reaches the invitee index and the catalog by the channel alarm', async () => {
    const cookie = await adminCookie();
    const host = await createHost(cookie, ['10.0.0.1']);
    const owner = await createAgent(cookie, host.host_id);
    const invitee = await createAgent(cookie, host.host_id);
    const stub = env.CHANNEL.get(env.CHANNEL.idFromName(GROUP));
    // Commit the creation without delivering anything, as if the object died right after the commit.
    await runInDurableObject(stub, async (_instance, state) => {
      new GroupMembership(drizzle(state.storage, { schema })).create({
        groupId: GROUP,
        name: 'survivor',
        ownerId: owner.agent.agent_id,
        targets: [invitee.agent.agent_id],
        accounts: new Map([[invitee.agent.agent_id, { enabled: true }]]),
        maxMembers: 10,
        now: Date.now(),
      });
      await state.storage.setAlarm(Date.now() + 60_000);
    });
    const catalog = env.GROUPS.get(env.GROUPS.idFromName('groups'));
    expect((await call('GET', '/groups', { key: invitee.key })).body.invitations).toEqual([]);
    expect((await catalog.list({}, undefined, 10)).groups).toEqual([]);

    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const listed = (await call('GET', '/groups', { key: invitee.key })).body;
    expect(listed.invitations).toEqual([expect.objectContaining({ group_id: GROUP, name: 'survivor' })]);
    expect((await call('GET', '/groups', { key: owner.key })).body.memberships).toHaveLength(1);
    expect((await catalog.list({}, undefined, 10)).groups).toEqual([
      expect.objectContaining({ group_id: GROUP, owner_id: owner.agent.agent_id, pending_count: 1 }),
    ]);
    await runInDurableObject(stub, (_instance, state) => {
      const db = drizzle(state.storage, { schema });
      expect(db.select().from(schema.notifyOutbox).all()).toEqual([]);
      expect(new GroupMembership(db).catalogSnapshot()).toBeNull();
    });
  });
});

describe('the group catalog', () => {
  const snapshot = (version: number, status: 'active' | 'dissolved', owner = 'agt_o') => ({
    group_id: GROUP,
    name: 'catalogued',
    owner_id: owner,
    status,
    members: [{ agent_id: owner, state: 'active' as const }],
    created_at: 1_000,
    version,
  });

  it('applies snapshots in version order only, and never lists a dissolved group again', async () => {
    const catalog = env.GROUPS.get(env.GROUPS.idFromName('groups'));
    await catalog.record(snapshot(1, 'active'));
    await catalog.record(snapshot(3, 'active', 'agt_new'));
    await catalog.record(snapshot(2, 'active', 'agt_old'));
    expect((await catalog.list({}, undefined, 10)).groups).toEqual([
      expect.objectContaining({ group_id: GROUP, owner_id: 'agt_new' }),
    ]);
    await catalog.record(snapshot(4, 'dissolved', 'agt_new'));
    await catalog.record(snapshot(3, 'active', 'agt_new'));
    expect((await catalog.list({}, undefined, 10)).groups).toEqual([]);
    expect((await catalog.list({ participant: 'agt_new' }, undefined, 10)).groups).toEqual([]);
  });

  it('pages newest first with a cursor', async () => {
    const catalog = env.GROUPS.get(env.GROUPS.idFromName('groups'));
    for (let i = 0; i < 5; i++) {
      await catalog.record({ ...snapshot(1, 'active'), group_id: `grp_page${i}`, created_at: 1_000 + i });
    }
    const first = await catalog.list({}, undefined, 2);
    expect(first.groups.map((g) => g.group_id)).toEqual(['grp_page4', 'grp_page3']);
    const second = await catalog.list({}, first.next_cursor ?? undefined, 2);
    expect(second.groups.map((g) => g.group_id)).toEqual(['grp_page2', 'grp_page1']);
    const last = await catalog.list({}, second.next_cursor ?? undefined, 2);
    expect(last).toEqual({ groups: [expect.objectContaining({ group_id: 'grp_page0' })], next_cursor: null });
  });
});
