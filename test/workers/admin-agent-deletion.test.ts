/**
 * DELETE /admin/agents/{id} (durable-objects/registry/agent-deletion.ts): the key fails at once,
 * the agent leaves the directory, the agents list, its groups and invitations, its deliveries and
 * claims go, its messages stay in the others' history, an owner of an active group is refused
 * until the group has another owner, and its host can then be deleted.
 */
import { env, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { adminCookie, type Call, call, createAgent, createHost } from './helpers.js';

interface Member {
  id: string;
  key: string;
}

function expectOk(res: Call, status = 200) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res.body;
}

async function world(names: string[]) {
  const cookie = await adminCookie();
  const host = await createHost(cookie, ['10.0.0.1']);
  const agents: Record<string, Member> = {};
  for (const name of names) {
    const { agent, key } = await createAgent(cookie, host.host_id, name);
    agents[name] = { id: agent.agent_id, key };
  }
  return { cookie, hostId: host.host_id as string, agents: agents as Record<string, Member> };
}

const del = (cookie: string, agentId: string) => call('DELETE', `/admin/agents/${agentId}`, { cookie });

describe('deleting an agent', () => {
  it('stops its key at once, removes it from every list and channel, keeps its messages for the others', async () => {
    const { cookie, hostId, agents } = await world(['owner', 'doomed', 'peer']);
    const { owner, doomed, peer } = agents as Record<'owner' | 'doomed' | 'peer', Member>;

    // A group it is a member of, one it is only invited to, a private channel with a leased claim.
    const group = expectOk(
      await call('POST', '/groups', { key: owner.key, body: { name: 'team', invitee_ids: [doomed.id] } }),
      201,
    ).group.group_id as string;
    expectOk(await call('POST', `/groups/${group}/join`, { key: doomed.key }));
    const invitation = expectOk(
      await call('POST', '/groups', { key: owner.key, body: { name: 'later', invitee_ids: [doomed.id] } }),
      201,
    ).group.group_id as string;
    const sent = expectOk(
      await call('POST', '/messages/direct', {
        key: doomed.key,
        body: { to_agent_ids: [peer.id], body: 'from doomed' },
      }),
    ).results[0];
    expectOk(
      await call('POST', '/messages/direct', { key: peer.key, body: { to_agent_ids: [doomed.id], body: 'hi' } }),
    );
    const claimed = expectOk(await call('POST', '/inbox/claim', { key: doomed.key, body: {} }));
    expect(claimed.claims.length).toBeGreaterThan(0);

    expectOk(await del(cookie, doomed.id));

    expect((await call('GET', '/inbox', { key: doomed.key })).status).toBe(401);
    const listed = expectOk(await call('GET', '/admin/agents', { cookie })).agents.map(
      (a: { agent_id: string }) => a.agent_id,
    );
    expect(listed).not.toContain(doomed.id);
    const directory = expectOk(await call('GET', '/directory', { key: peer.key })).agents.map(
      (a: { agent_id: string }) => a.agent_id,
    );
    expect(directory).not.toContain(doomed.id);

    const team = expectOk(await call('GET', `/groups/${group}`, { key: owner.key })).group;
    expect(team.members.map((m: { agent_id: string }) => m.agent_id)).not.toContain(doomed.id);
    const later = expectOk(await call('GET', `/groups/${invitation}`, { key: owner.key })).group;
    expect(later.members.map((m: { agent_id: string }) => m.agent_id)).not.toContain(doomed.id);

    // Its deliveries (and so its leased claim) are gone from the private channel.
    const left = await runInDurableObject(env.CHANNEL.get(env.CHANNEL.idFromName(sent.channel_id)), (_i, state) =>
      state.storage.sql.exec('SELECT count(*) AS n FROM deliveries WHERE recipient_id = ?', doomed.id).one(),
    );
    expect(left.n).toBe(0);

    // Its message stays in the peer's history; nobody can send to it or invite it any more.
    const history = expectOk(await call('GET', `/channels/${sent.channel_id}/messages`, { key: peer.key }));
    expect(history.messages.map((m: { message_id: string }) => m.message_id)).toContain(sent.message_id);
    const toGone = await call('POST', '/messages/direct', {
      key: peer.key,
      body: { to_agent_ids: [doomed.id], body: 'x' },
    });
    expect(toGone.body.results?.[0]?.status ?? toGone.body.error?.code).not.toBe('sent');
    const invite = await call('POST', `/groups/${group}/invitations`, {
      key: owner.key,
      body: { agent_ids: [doomed.id] },
    });
    expect(JSON.stringify(invite.body)).not.toMatch(/"invited"/);

    // Gone for good: a second delete is not_found; the host has no agent left but the others.
    expect((await del(cookie, doomed.id)).body.error.code).toBe('not_found');
    expectOk(await del(cookie, peer.id));
    expect((await call('DELETE', `/admin/hosts/${hostId}`, { cookie })).body.error.code).toBe('conflict');
  });

  it('refuses an owner of an active group until the group has another owner, changing nothing', async () => {
    const { cookie, hostId, agents } = await world(['boss', 'heir']);
    const { boss, heir } = agents as Record<'boss' | 'heir', Member>;
    const group = expectOk(
      await call('POST', '/groups', { key: boss.key, body: { name: 'g', invitee_ids: [heir.id] } }),
      201,
    ).group.group_id as string;
    expectOk(await call('POST', `/groups/${group}/join`, { key: heir.key }));

    const refused = await del(cookie, boss.id);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('conflict');
    expect(refused.body.error.target).toBe(group);
    expectOk(await call('GET', '/inbox', { key: boss.key }));

    expectOk(await call('POST', `/admin/groups/${group}/owner`, { cookie, body: { agent_id: heir.id } }));
    expectOk(await del(cookie, boss.id));
    // The heir owns the group now: refused until it is dissolved.
    expect((await del(cookie, heir.id)).status).toBe(409);
    expectOk(await call('DELETE', `/admin/groups/${group}`, { cookie }));
    expectOk(await del(cookie, heir.id));
    // A host whose agents were all deleted can be deleted.
    expectOk(await call('DELETE', `/admin/hosts/${hostId}`, { cookie }));
  });

  it('answers not_found for an unknown agent and validation_failed for a malformed ID', async () => {
    const cookie = await adminCookie();
    expect((await del(cookie, 'agt_doesnotexist0000000000')).status).toBe(404);
    expect((await del(cookie, 'not an id')).body.error.code).toBe('validation_failed');
  });
});
