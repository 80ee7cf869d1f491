/**
 * The fleet view's refused requests and inbox backlog (GET /admin/fleet), exact after known
 * traffic: refusals as the agents' objects count and report them, the backlog as the channels
 * report it to the catalog in their next alarm (run here instead of waited for), lease ends
 * included.
 */
import { env, runDurableObjectAlarm } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { call } from './helpers.js';
import { ack, claim, sendOne, setLimits, shiftChannelClock, world } from './messaging-helpers.js';

const fleet = async (cookie: string) => {
  const res = await call('GET', '/admin/fleet', { cookie });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};
const report = (channelId: string) => runDurableObjectAlarm(env.CHANNEL.get(env.CHANNEL.idFromName(channelId)));

describe('GET /admin/fleet: backlog', () => {
  it('sums unread, leased and parked deliveries per agent as the channels report them', async () => {
    const { cookie, agents } = await world(3);
    const [a, b, c] = agents as [(typeof agents)[0], (typeof agents)[0], (typeof agents)[0]];
    await setLimits(cookie, { max_deliveries: 1 });
    const first = await sendOne(a, b, 'one');
    await sendOne(a, b, 'two');
    await sendOne(a, b, 'three');
    const toC = await sendOne(a, c, 'for c');
    await report(first.channel_id);
    await report(toC.channel_id);
    let figures = (await fleet(cookie)).backlog;
    expect(figures).toMatchObject({ unread: 4, leased: 0, parked: 0 });
    expect(figures.oldest_unread_at).not.toBeNull();
    expect(figures.top_agents.map((t: { agent_id: string; unread: number }) => [t.agent_id, t.unread])).toEqual([
      [b.id, 3],
      [c.id, 1],
    ]);
    expect(figures.top_agents[0].name).toBe('agent-1');

    const claimed = await claim(b, { limit: 2 });
    expect(claimed.status).toBe(200);
    await report(first.channel_id);
    expect((await fleet(cookie)).backlog).toMatchObject({ unread: 4, leased: 2, parked: 0 });
    const acked = await ack(
      b,
      [claimed.body.claims[0]].map((x: { message: { message_id: string }; claim_token: string }) => ({
        message_id: x.message.message_id,
        claim_token: x.claim_token,
      })),
    );
    expect(acked.status).toBe(200);
    await report(first.channel_id);
    figures = (await fleet(cookie)).backlog;
    expect(figures).toMatchObject({ unread: 3, leased: 1, parked: 0 });
    expect(figures.top_agents[0]).toMatchObject({ agent_id: b.id, unread: 2, leased: 1 });

    // c's only delivery is claimed once (max_deliveries 1) and its lease ends unACKed: parked,
    // reported by the alarm the lease's end set, with no request in between.
    expect((await claim(c, { limit: 1 })).body.claims).toHaveLength(1);
    await report(toC.channel_id);
    expect((await fleet(cookie)).backlog).toMatchObject({ unread: 3, leased: 2, parked: 0 });
    await shiftChannelClock(toC.channel_id, 120_000);
    await report(toC.channel_id);
    figures = (await fleet(cookie)).backlog;
    expect(figures).toMatchObject({ unread: 3, leased: 1, parked: 1 });
    expect(figures.top_agents.find((t: { agent_id: string }) => t.agent_id === c.id)).toMatchObject({
      unread: 1,
      leased: 0,
      parked: 1,
    });

    // The agent list carries each listed agent's backlog and filters by last access.
    const listed = await call('GET', '/admin/agents?last_access=active', { cookie });
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body.total).toBe(3);
    expect(listed.body.backlog[b.id]).toMatchObject({ unread: 2, leased: 1, parked: 0 });
    expect(listed.body.backlog[c.id]).toMatchObject({ unread: 1, leased: 0, parked: 1 });
    expect(listed.body.backlog[a.id]).toEqual({ unread: 0, leased: 0, parked: 0, oldest_unread_at: null });
    expect((await call('GET', '/admin/agents?last_access=never', { cookie })).body.total).toBe(0);
    expect((await call('GET', '/admin/agents?last_access=over_a_day', { cookie })).body.total).toBe(0);
  });
});

describe('GET /admin/fleet: refused requests', () => {
  it('counts refusals by reason over the last hour and day, with the top agents and addresses', async () => {
    const { cookie, agents } = await world(3);
    const [a, b, c] = agents as [(typeof agents)[0], (typeof agents)[0], (typeof agents)[0]];
    // a: three requests from a foreign address; b: a revoked key, twice; c: disabled, once.
    for (let i = 0; i < 3; i++) expect((await call('GET', '/inbox', { key: a.key, ip: '10.9.9.9' })).status).toBe(403);
    expect((await call('DELETE', `/admin/agents/${b.id}/key`, { cookie })).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await call('GET', '/inbox', { key: b.key })).status).toBe(401);
    expect((await call('PATCH', `/admin/agents/${c.id}`, { cookie, body: { enabled: false } })).status).toBe(200);
    expect((await call('GET', '/inbox', { key: c.key })).status).toBe(401);
    // The second and later refusals of a window are written by each agent's alarm.
    for (const agent of [a, b, c]) await runDurableObjectAlarm(env.AGENT.get(env.AGENT.idFromName(agent.id)));
    const expected = { total: 6, by_reason: { wrong_key: 0, key_revoked: 2, agent_disabled: 1, wrong_address: 3 } };
    await expect.poll(async () => (await fleet(cookie)).refusals.last_day, { timeout: 5_000 }).toEqual(expected);
    const refusals = (await fleet(cookie)).refusals;
    expect(refusals.last_hour).toEqual(expected);
    expect(refusals.lower_bound_reasons).toEqual(['wrong_key']);
    expect(refusals.top_agents).toEqual([
      { agent_id: a.id, name: 'agent-0', count: 3 },
      { agent_id: b.id, name: 'agent-1', count: 2 },
      { agent_id: c.id, name: 'agent-2', count: 1 },
    ]);
    // The agent list filters by key state; nobody here was ever let in.
    const ids = async (query: string) =>
      (await call('GET', `/admin/agents?${query}`, { cookie })).body.agents.map(
        (x: { agent_id: string }) => x.agent_id,
      );
    expect(await ids('key_state=revoked')).toEqual([b.id]);
    expect(await ids('key_state=active')).toEqual([a.id, c.id]);
    expect(await ids('key_state=none')).toEqual([]);
    expect(await ids('last_access=never')).toEqual([a.id, b.id, c.id]);
    expect((await call('GET', '/admin/agents?key_state=lost', { cookie })).status).toBe(400);
    expect(refusals.top_addresses).toEqual([
      { address: '10.0.0.1', count: 3 },
      { address: '10.9.9.9', count: 3 },
    ]);
  });
});
