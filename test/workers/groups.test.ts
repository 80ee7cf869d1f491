/**
 * Groups, black-box through the worker (SELF.fetch): creation and invitations, the authorization
 * matrix of every group route, join/leave semantics (claims, history, rejoin), group messages in
 * the unified inbox, and the administrator's owner reassignment and dissolution.
 */
import { describe, expect, it } from 'vitest';
import { adminCookie, type Call, call, createAgent, createHost } from './helpers.js';

interface Member {
  id: string;
  key: string;
}

async function world(names: string[]) {
  const cookie = await adminCookie();
  const host = await createHost(cookie, ['10.0.0.1']);
  const agents: Record<string, Member> = {};
  for (const name of names) {
    const { agent, key } = await createAgent(cookie, host.host_id, name);
    agents[name] = { id: agent.agent_id, key };
  }
  return { cookie, agents };
}

function expectOk(res: Call, status = 200) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res.body;
}

function expectError(res: Call, status: number, code: string) {
  expect({ status: res.status, code: res.body?.error?.code }, JSON.stringify(res.body)).toEqual({ status, code });
}

async function createGroup(owner: Member, name: string, invitees: Member[]) {
  const res = await call('POST', '/groups', { key: owner.key, body: { name, invitee_ids: invitees.map((m) => m.id) } });
  return expectOk(res, 201).group.group_id as string;
}

const join = (m: Member, groupId: string) => call('POST', `/groups/${groupId}/join`, { key: m.key });
const leave = (m: Member, groupId: string) => call('POST', `/groups/${groupId}/leave`, { key: m.key });
const say = (m: Member, groupId: string, body: string) =>
  call('POST', `/groups/${groupId}/messages`, { key: m.key, body: { body } });
const inbox = (m: Member, query = '') => call('GET', `/inbox${query}`, { key: m.key });
const claim = (m: Member, body: object = {}) => call('POST', '/inbox/claim', { key: m.key, body });
const ack = (m: Member, items: { message_id: string; claim_token: string }[]) =>
  call('POST', '/inbox/ack', { key: m.key, body: { acks: items } });
const history = (m: Member, channelId: string) => call('GET', `/channels/${channelId}/messages`, { key: m.key });

/**
 * owner O; member M (invited, joined); pending P (invited); stranger S (never invited); former F
 * (invited, joined, left); spare X (an enabled agent nobody invited, to be invited).
 */
async function matrixWorld() {
  const w = await world(['owner', 'member', 'pending', 'stranger', 'former', 'spare']);
  const { owner, member, pending, former } = w.agents as Record<string, Member>;
  const groupId = await createGroup(owner!, 'matrix', [member!, pending!, former!]);
  expectOk(await join(member!, groupId));
  expectOk(await join(former!, groupId));
  expectOk(await leave(former!, groupId));
  expectOk(await say(owner!, groupId, 'hello group'));
  return { ...w, groupId };
}

type Relation = 'owner' | 'member' | 'pending' | 'stranger' | 'former';
type Expectation = [status: number, code?: string];

/** The expected answer of every group route for every relation (the contract, written out). */
const MATRIX: Record<
  string,
  { call: (m: Member, g: string, spare: Member) => Promise<Call> } & Record<Relation, Expectation>
> = {
  'GET /groups/{id}': {
    call: (m, g) => call('GET', `/groups/${g}`, { key: m.key }),
    owner: [200],
    member: [200],
    pending: [200],
    stranger: [404, 'not_found'],
    former: [404, 'not_found'],
  },
  'POST /groups/{id}/invitations': {
    call: (m, g, spare) => call('POST', `/groups/${g}/invitations`, { key: m.key, body: { agent_ids: [spare.id] } }),
    owner: [200],
    member: [403, 'not_group_owner'],
    pending: [403, 'not_group_owner'],
    stranger: [404, 'not_found'],
    former: [403, 'not_group_owner'],
  },
  'POST /groups/{id}/join': {
    call: (m, g) => join(m, g),
    owner: [409, 'already_member'],
    member: [409, 'already_member'],
    pending: [200],
    stranger: [403, 'not_invited'],
    former: [403, 'not_invited'],
  },
  'POST /groups/{id}/leave': {
    call: (m, g) => leave(m, g),
    owner: [403, 'owner_cannot_leave'],
    member: [200],
    pending: [403, 'not_group_member'],
    stranger: [404, 'not_found'],
    former: [403, 'not_group_member'],
  },
  'POST /groups/{id}/messages': {
    call: (m, g) => say(m, g, `from ${m.id}`),
    owner: [200],
    member: [200],
    pending: [403, 'not_group_member'],
    stranger: [404, 'not_found'],
    former: [403, 'not_group_member'],
  },
  'GET /channels/{id}/messages': {
    call: (m, g) => history(m, g),
    owner: [200],
    member: [200],
    pending: [404, 'not_found'],
    stranger: [404, 'not_found'],
    former: [404, 'not_found'],
  },
};

const RELATIONS: Relation[] = ['owner', 'member', 'pending', 'stranger', 'former'];
const CASES = Object.entries(MATRIX).flatMap(([route, row]) =>
  RELATIONS.map((relation) => ({ route, relation, expected: row[relation] })),
);

describe('the group authorization matrix', () => {
  it.each(CASES)('$route as $relation answers $expected', async ({ route, relation, expected }) => {
    const w = await matrixWorld();
    const res = await MATRIX[route]!.call(w.agents[relation]!, w.groupId, w.agents.spare!);
    const [status, code] = expected;
    if (code) expectError(res, status, code);
    else expectOk(res, status);
  });

  it('shows members the member list and an invitee only its invitation', async () => {
    const w = await matrixWorld();
    const { owner, member, pending } = w.agents as Record<string, Member>;
    const full = expectOk(await call('GET', `/groups/${w.groupId}`, { key: member!.key })).group;
    expect(full).toMatchObject({ group_id: w.groupId, name: 'matrix', owner_id: owner!.id, status: 'active' });
    expect(full.members).toEqual([
      { agent_id: owner!.id, state: 'active' },
      { agent_id: member!.id, state: 'active' },
      { agent_id: pending!.id, state: 'pending' },
    ]);
    const invitation = expectOk(await call('GET', `/groups/${w.groupId}`, { key: pending!.key })).group;
    expect(invitation).toEqual({
      group_id: w.groupId,
      name: 'matrix',
      owner_id: owner!.id,
      status: 'active',
      members: [{ agent_id: pending!.id, state: 'pending' }],
      created_at: full.created_at,
    });
  });

  it('treats an ID that names no group like a group the caller is not in', async () => {
    const w = await matrixWorld();
    const s = w.agents.stranger!;
    const ghost = 'grp_doesNotExist123';
    expectError(await call('GET', `/groups/${ghost}`, { key: s.key }), 404, 'not_found');
    expectError(await join(s, ghost), 403, 'not_invited');
    expectError(await leave(s, ghost), 404, 'not_found');
    expectError(await say(s, ghost, 'x'), 404, 'not_found');
    expectError(
      await call('POST', `/groups/${ghost}/invitations`, { key: s.key, body: { agent_ids: [w.agents.spare!.id] } }),
      404,
      'not_found',
    );
  });
});

describe('creating a group and inviting', () => {
  it('makes the creator the active owner and valid invitees pending, with one result per invitee', async () => {
    const w = await world(['o', 'a', 'b', 'off']);
    const { o, a, b, off } = w.agents as Record<string, Member>;
    expectOk(await call('PATCH', `/admin/agents/${off!.id}`, { cookie: w.cookie, body: { enabled: false } }));
    const res = await call('POST', '/groups', {
      key: o!.key,
      body: { name: 'team', invitee_ids: [a!.id, 'agt_nobodyHere', o!.id, b!.id, a!.id, off!.id] },
    });
    const answer = expectOk(res, 201);
    expect(answer.results).toEqual([
      { target_agent_id: a!.id, status: 'invited' },
      expect.objectContaining({
        target_agent_id: 'agt_nobodyHere',
        status: 'rejected',
        error: expect.objectContaining({ code: 'unknown_agent' }),
      }),
      expect.objectContaining({
        target_agent_id: o!.id,
        status: 'rejected',
        error: expect.objectContaining({ code: 'already_member' }),
      }),
      { target_agent_id: b!.id, status: 'invited' },
      expect.objectContaining({
        target_agent_id: off!.id,
        status: 'rejected',
        error: expect.objectContaining({ code: 'agent_disabled' }),
      }),
    ]);
    expect(answer.group).toMatchObject({ name: 'team', owner_id: o!.id, status: 'active' });
    expect(answer.group.group_id).toMatch(/^grp_/);
    // The owner first; invitees of one request share their invitation time, so their order is by ID.
    expect(answer.group.members).toEqual([
      { agent_id: o!.id, state: 'active' },
      ...[a!.id, b!.id].sort().map((agent_id) => ({ agent_id, state: 'pending' })),
    ]);
  });

  it('sends no invitation message: invitees find the invitation by polling GET /groups', async () => {
    const w = await world(['o', 'a']);
    const { o, a } = w.agents as Record<string, Member>;
    const groupId = await createGroup(o!, 'quiet', [a!]);
    expect(expectOk(await inbox(a!)).unread).toBe(0);
    expect(expectOk(await call('GET', '/channels', { key: a!.key })).channels).toEqual([]);
    const listed = expectOk(await call('GET', '/groups', { key: a!.key }));
    expect(listed.memberships).toEqual([]);
    expect(listed.invitations).toEqual([
      expect.objectContaining({
        group_id: groupId,
        name: 'quiet',
        owner_id: o!.id,
        members: [{ agent_id: a!.id, state: 'pending' }],
      }),
    ]);
    const mine = expectOk(await call('GET', '/groups', { key: o!.key }));
    expect(mine.invitations).toEqual([]);
    expect(mine.memberships.map((g: { group_id: string }) => g.group_id)).toEqual([groupId]);

    expectOk(await join(a!, groupId));
    const after = expectOk(await call('GET', '/groups', { key: a!.key }));
    expect(after.invitations).toEqual([]);
    expect(after.memberships).toEqual([
      expect.objectContaining({
        group_id: groupId,
        members: expect.arrayContaining([{ agent_id: a!.id, state: 'active' }]),
      }),
    ]);
  });

  it('caps members plus pending invitations at max_group_members', async () => {
    const w = await world(['o', 'a', 'b', 'c']);
    const { o, a, b, c } = w.agents as Record<string, Member>;
    expectOk(await call('PATCH', '/admin/settings', { cookie: w.cookie, body: { max_group_members: 2 } }));
    const res = expectOk(
      await call('POST', '/groups', { key: o!.key, body: { name: 'tiny', invitee_ids: [a!.id, b!.id] } }),
      201,
    );
    expect(res.results.map((r: any) => r.error?.code ?? r.status)).toEqual(['invited', 'group_full']);
    const groupId = res.group.group_id;
    const more = expectOk(
      await call('POST', `/groups/${groupId}/invitations`, { key: o!.key, body: { agent_ids: [c!.id, a!.id] } }),
    );
    expect(more.results.map((r: any) => r.error?.code ?? r.status)).toEqual(['group_full', 'already_invited']);
  });

  it('reports re-inviting an active member per target', async () => {
    const w = await world(['o', 'a', 'b']);
    const { o, a, b } = w.agents as Record<string, Member>;
    const groupId = await createGroup(o!, 'again', [a!]);
    expectOk(await join(a!, groupId));
    const res = expectOk(
      await call('POST', `/groups/${groupId}/invitations`, { key: o!.key, body: { agent_ids: [a!.id, b!.id] } }),
    );
    expect(res.results).toEqual([
      expect.objectContaining({
        target_agent_id: a!.id,
        status: 'rejected',
        error: expect.objectContaining({ code: 'already_member' }),
      }),
      { target_agent_id: b!.id, status: 'invited' },
    ]);
  });
});

describe('group messages', () => {
  it('gives every other active member an unread delivery, never the author, never a pending invitee', async () => {
    const w = await world(['o', 'a', 'p']);
    const { o, a, p } = w.agents as Record<string, Member>;
    const groupId = await createGroup(o!, 'chat', [a!, p!]);
    expectOk(await join(a!, groupId));
    const sent = expectOk(await say(a!, groupId, 'hi all'));
    expect(sent).toMatchObject({ status: 'sent', message_id: expect.stringMatching(/^msg_/) });
    expect(expectOk(await inbox(o!)).unread).toBe(1);
    expect(expectOk(await inbox(a!)).unread).toBe(0);
    expect(expectOk(await inbox(p!)).unread).toBe(0);
    const again = expectOk(await say(a!, groupId, 'hi all'));
    expect(again).toMatchObject({ status: 'duplicate', message_id: sent.message_id });
    expect(expectOk(await inbox(o!)).unread).toBe(1);
  });

  it('lets a joiner read history from before it joined without making it unread', async () => {
    const w = await world(['o', 'p']);
    const { o, p } = w.agents as Record<string, Member>;
    const groupId = await createGroup(o!, 'history', [p!]);
    expectOk(await say(o!, groupId, 'before 1'));
    expectOk(await say(o!, groupId, 'before 2'));
    expectError(await history(p!, groupId), 404, 'not_found');
    expectOk(await join(p!, groupId));
    const page = expectOk(await history(p!, groupId));
    expect(page.messages.map((m: { body: string }) => m.body)).toEqual(['before 1', 'before 2']);
    expect(expectOk(await inbox(p!)).unread).toBe(0);
    expect(expectOk(await claim(p!, { limit: 10 })).claims).toEqual([]);
    expectOk(await say(o!, groupId, 'after'));
    const claims = expectOk(await claim(p!, { limit: 10 })).claims;
    expect(claims.map((c: { message: { body: string } }) => c.message.body)).toEqual(['after']);
  });

  it('joins the unified inbox with the group kind and channel filters', async () => {
    const w = await world(['o', 'a']);
    const { o, a } = w.agents as Record<string, Member>;
    const groupId = await createGroup(o!, 'mixed', [a!]);
    expectOk(await join(a!, groupId));
    expectOk(await say(o!, groupId, 'group one'));
    expectOk(await say(o!, groupId, 'group two'));
    expectOk(
      await call('POST', '/messages/direct', { key: o!.key, body: { to_agent_ids: [a!.id], body: 'private one' } }),
    );

    const all = expectOk(await inbox(a!));
    expect(all.unread).toBe(3);
    const groupOnly = expectOk(await inbox(a!, '?kind=group'));
    expect(groupOnly).toMatchObject({ unread: 2 });
    expect(groupOnly.channels).toEqual([expect.objectContaining({ channel_id: groupId, kind: 'group', unread: 2 })]);
    expect(expectOk(await inbox(a!, '?kind=private')).unread).toBe(1);
    expect(expectOk(await inbox(a!, `?channel_id=${groupId}`)).unread).toBe(2);

    const claims = expectOk(await claim(a!, { limit: 10, kind: 'group' })).claims;
    expect(claims.map((c: any) => [c.message.channel_id, c.message.body])).toEqual([
      [groupId, 'group one'],
      [groupId, 'group two'],
    ]);
    const channels = expectOk(await call('GET', '/channels?kind=group', { key: a!.key })).channels;
    expect(channels).toEqual([
      expect.objectContaining({ channel_id: groupId, kind: 'group', group_id: groupId, name: 'mixed' }),
    ]);
  });
});

describe('leaving', () => {
  it('ends an outstanding claim: the ACK fails and the delivery is gone from the inbox', async () => {
    const w = await world(['o', 'a']);
    const { o, a } = w.agents as Record<string, Member>;
    const groupId = await createGroup(o!, 'claims', [a!]);
    expectOk(await join(a!, groupId));
    expectOk(await say(o!, groupId, 'claim me'));
    const [held] = expectOk(await claim(a!)).claims;
    expect(held.message.body).toBe('claim me');
    expect(expectOk(await inbox(a!))).toMatchObject({ unread: 1, leased: 1 });

    expect(expectOk(await leave(a!, groupId))).toEqual({ group_id: groupId, status: 'left' });
    const acked = expectOk(await ack(a!, [{ message_id: held.message.message_id, claim_token: held.claim_token }]));
    expect(acked.results).toEqual([
      expect.objectContaining({
        message_id: held.message.message_id,
        status: 'rejected',
        error: expect.objectContaining({ code: 'not_group_member' }),
      }),
    ]);
    expect(expectOk(await inbox(a!))).toMatchObject({ unread: 0, claimable: 0, leased: 0, channels: [] });
    expect(expectOk(await call('GET', '/channels', { key: a!.key })).channels).toEqual([]);
    expect(expectOk(await call('GET', '/groups', { key: a!.key }))).toEqual({ memberships: [], invitations: [] });
    expectError(await history(a!, groupId), 404, 'not_found');
    // Others keep the history, the leaver's messages included.
    expect(expectOk(await history(o!, groupId)).messages).toHaveLength(1);
  });

  it('consumes the invitation: rejoining needs a new one and replays nothing', async () => {
    const w = await world(['o', 'a']);
    const { o, a } = w.agents as Record<string, Member>;
    const groupId = await createGroup(o!, 'rejoin', [a!]);
    expectOk(await join(a!, groupId));
    expectOk(await say(a!, groupId, 'my words stay'));
    expectOk(await say(o!, groupId, 'unread when a left'));
    expectOk(await leave(a!, groupId));
    expectError(await join(a!, groupId), 403, 'not_invited');
    expectOk(await say(o!, groupId, 'while a was away'));

    const again = expectOk(
      await call('POST', `/groups/${groupId}/invitations`, { key: o!.key, body: { agent_ids: [a!.id] } }),
    );
    expect(again.results).toEqual([{ target_agent_id: a!.id, status: 'invited' }]);
    expectOk(await join(a!, groupId));
    expect(expectOk(await inbox(a!)).unread).toBe(0);
    const bodies = expectOk(await history(a!, groupId)).messages.map((m: { body: string }) => m.body);
    expect(bodies).toEqual(['my words stay', 'unread when a left', 'while a was away']);
  });
});

describe('administration', () => {
  it('lists groups with owner, members and pending invitations, filtered by owner or participant', async () => {
    const w = await world(['o', 'a', 'p', 'x']);
    const { o, a, p, x } = w.agents as Record<string, Member>;
    const groupId = await createGroup(o!, 'listed', [a!, p!]);
    expectOk(await join(a!, groupId));
    const other = await createGroup(x!, 'other', []);
    const all = expectOk(await call('GET', '/admin/groups', { cookie: w.cookie }));
    expect(all.groups.map((g: { group_id: string }) => g.group_id).sort()).toEqual([groupId, other].sort());
    const listed = all.groups.find((g: { group_id: string }) => g.group_id === groupId);
    expect(listed).toMatchObject({
      name: 'listed',
      owner_id: o!.id,
      member_count: 2,
      pending_count: 1,
      members: [
        { agent_id: o!.id, state: 'active' },
        { agent_id: a!.id, state: 'active' },
        { agent_id: p!.id, state: 'pending' },
      ],
    });
    // The page names its agents itself: the console needs no agent list.
    const named = Object.fromEntries(all.agents.map((a: { agent_id: string; name: string }) => [a.agent_id, a.name]));
    expect(named).toEqual({ [o!.id]: 'o', [a!.id]: 'a', [p!.id]: 'p', [x!.id]: 'x' });
    const byOwner = expectOk(await call('GET', `/admin/groups?owner=${x!.id}`, { cookie: w.cookie }));
    expect(byOwner.groups.map((g: { group_id: string }) => g.group_id)).toEqual([other]);
    const byParticipant = expectOk(await call('GET', `/admin/groups?participant=${p!.id}`, { cookie: w.cookie }));
    expect(byParticipant.groups.map((g: { group_id: string }) => g.group_id)).toEqual([groupId]);
    expectError(await call('GET', '/admin/groups', { key: o!.key }), 401, 'unauthenticated');
  });

  it('reassigns the owner to an active member; the old owner becomes an ordinary member', async () => {
    const w = await world(['o', 'a', 'p', 'off']);
    const { o, a, p, off } = w.agents as Record<string, Member>;
    const groupId = await createGroup(o!, 'handover', [a!, p!, off!]);
    expectOk(await join(a!, groupId));
    expectOk(await join(off!, groupId));
    const owner = (agentId: string) =>
      call('POST', `/admin/groups/${groupId}/owner`, { cookie: w.cookie, body: { agent_id: agentId } });
    expectError(await owner(p!.id), 409, 'conflict');
    expectError(await owner('agt_nobodyAtAll'), 409, 'conflict');
    expectOk(await call('PATCH', `/admin/agents/${off!.id}`, { cookie: w.cookie, body: { enabled: false } }));
    expectError(await owner(off!.id), 400, 'agent_disabled');
    expectError(
      await call('POST', '/admin/groups/grp_noSuchGroup1/owner', { cookie: w.cookie, body: { agent_id: a!.id } }),
      404,
      'not_found',
    );

    // The owner's account is disabled: the group keeps working and an administrator hands it over.
    expectOk(await call('PATCH', `/admin/agents/${o!.id}`, { cookie: w.cookie, body: { enabled: false } }));
    expectOk(await say(a!, groupId, 'owner is away'));
    const moved = expectOk(await owner(a!.id)).group;
    expect(moved.owner_id).toBe(a!.id);
    expect(moved.members).toEqual(expect.arrayContaining([{ agent_id: o!.id, state: 'active' }]));
    expectOk(await call('PATCH', `/admin/agents/${o!.id}`, { cookie: w.cookie, body: { enabled: true } }));

    expectError(await leave(a!, groupId), 403, 'owner_cannot_leave');
    expectError(
      await call('POST', `/groups/${groupId}/invitations`, { key: o!.key, body: { agent_ids: [p!.id] } }),
      403,
      'not_group_owner',
    );
    expectOk(await call('POST', `/groups/${groupId}/invitations`, { key: a!.key, body: { agent_ids: [p!.id] } }));
    expect(expectOk(await inbox(o!)).unread).toBe(1);
    expectOk(await leave(o!, groupId));
  });

  it('dissolves a group: content goes, and it leaves every list and inbox', async () => {
    const w = await world(['o', 'a', 'p']);
    const { o, a, p } = w.agents as Record<string, Member>;
    const groupId = await createGroup(o!, 'doomed', [a!, p!]);
    expectOk(await join(a!, groupId));
    expectOk(await say(o!, groupId, 'one'));
    expectOk(await say(o!, groupId, 'two'));
    const [held] = expectOk(await claim(a!)).claims;

    expect(expectOk(await call('DELETE', `/admin/groups/${groupId}`, { cookie: w.cookie }))).toEqual({
      group_id: groupId,
      status: 'dissolved',
    });
    for (const m of [o!, a!, p!]) {
      expect(expectOk(await call('GET', '/groups', { key: m.key }))).toEqual({ memberships: [], invitations: [] });
      expect(expectOk(await call('GET', '/channels', { key: m.key })).channels).toEqual([]);
      expect(expectOk(await inbox(m))).toMatchObject({ unread: 0, channels: [] });
      expectError(await call('GET', `/groups/${groupId}`, { key: m.key }), 404, 'not_found');
      expectError(await history(m, groupId), 404, 'not_found');
    }
    expectError(await say(o!, groupId, 'three'), 404, 'not_found');
    expectError(await join(p!, groupId), 403, 'not_invited');
    const acked = expectOk(await ack(a!, [{ message_id: held.message.message_id, claim_token: held.claim_token }]));
    expect(acked.results[0]).toMatchObject({ status: 'rejected', error: { code: 'message_purged' } });
    expect(expectOk(await call('GET', '/admin/groups', { cookie: w.cookie })).groups).toEqual([]);
    expectError(await call('DELETE', `/admin/groups/${groupId}`, { cookie: w.cookie }), 404, 'not_found');
  });
});
