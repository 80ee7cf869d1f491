/**
 * The inbox index: polls ask only channels that may have unread deliveries, the hint is cleared
 * only by compare-and-delete, and a note lost to a crash is delivered by the channel's alarm.
 */
import { abortAllDurableObjects, env, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { drizzle } from 'drizzle-orm/durable-sqlite';
import { describe, expect, it } from 'vitest';
import { dmChannelId } from '../../core/domain/ids.js';
import * as schema from '../../durable-objects/channel/schema.js';
import { ChannelStore } from '../../durable-objects/channel/store.js';
import { call } from './helpers.js';
import { ack, channelCalls, claim, inbox, send, sendOne, shiftChannelClock, world } from './messaging-helpers.js';

describe('inbox index', () => {
  it('lets an agent with 200 quiet channels poll without asking them', async () => {
    const { agents } = await world(201);
    const [x, ...peers] = agents as [any, ...any[]];
    for (let i = 0; i < peers.length; i += 50) {
      const res = await send(x, peers.slice(i, i + 50), 'hello everyone');
      expect(res.body.results.every((r: any) => r.status === 'sent')).toBe(true);
    }
    expect((await call('GET', '/channels', { key: x.key })).body.channels).toHaveLength(200);

    const quiet = await inbox(x);
    expect(quiet.body).toMatchObject({ unread: 0, channels: [] });
    expect(channelCalls(quiet)).toBe(0);
    expect(channelCalls(await claim(x, { limit: 10 }))).toBe(0);

    const repliers = peers.slice(0, 3);
    for (const peer of repliers) await sendOne(peer, x, `reply from ${peer.id}`);
    const busy = await inbox(x);
    expect(busy.body.unread).toBe(3);
    expect(channelCalls(busy)).toBe(3);

    const claimed = await claim(x, { limit: 10 });
    expect(claimed.body.claims).toHaveLength(3);
    expect(channelCalls(claimed)).toBe(6); // three peeks, three claims: not 200
    const acked = await ack(
      x,
      claimed.body.claims.map((c: any) => ({ message_id: c.message.message_id, claim_token: c.claim_token })),
    );
    expect(acked.body.results.every((r: any) => r.status === 'read')).toBe(true);

    // The three hints are now stale: the next poll checks them once and clears them.
    const repair = await inbox(x);
    expect(repair.body.unread).toBe(0);
    expect(channelCalls(repair)).toBe(3);
    expect(channelCalls(await inbox(x))).toBe(0);
  }, 120_000); // setting up 201 agents takes a while; the assertions are about call counts, not time

  it('never loses a hint to a clear based on an older read', async () => {
    const agentId = 'agt_indexed';
    const index = env.AGENT.get(env.AGENT.idFromName(agentId));
    const note = {
      channel_id: 'dm_aaaaaaaaaaaaaaaaaaaaaa',
      kind: 'private' as const,
      peer_agent_id: 'agt_peer',
      group_id: null,
      name: null,
      last_message_at: 1_000,
      pending: true,
    };
    await index.noteChannels([note]);
    const [read] = await index.pendingChannels();
    await index.noteChannels([{ ...note, last_message_at: 2_000 }]); // a message arrives meanwhile
    await index.clearPending([{ channel_id: note.channel_id, gen: read!.gen }]);
    const [still] = await index.pendingChannels();
    expect(still?.channel_id).toBe(note.channel_id);
    await index.clearPending([{ channel_id: note.channel_id, gen: still!.gen }]);
    expect(await index.pendingChannels()).toEqual([]);
    // A sender-side note (pending false) updates the list but neither sets nor clears the hint.
    await index.noteChannels([{ ...note, pending: false, last_message_at: 500 }]);
    expect(await index.pendingChannels()).toEqual([]);
    expect((await index.listChannels())[0]?.last_message_at).toBe(new Date(2_000).toISOString());
  });

  it('delivers the note of a message committed before a crash, by the channel alarm', async () => {
    const { agents } = await world(2);
    const [a, b] = agents as [any, any];
    const channelId = await dmChannelId(a.id, b.id);
    const stub = env.CHANNEL.get(env.CHANNEL.idFromName(channelId));
    // Commit a message without delivering the outbox, as if the object died right after the commit.
    await runInDurableObject(stub, async (_instance, state) => {
      const store = new ChannelStore(drizzle(state.storage, { schema }));
      store.sendDirect({
        channelId,
        senderId: a.id,
        recipientId: b.id,
        content: { body: 'survives', attachment: null },
        maxMessages: 100,
        now: Date.now(),
      });
      await state.storage.setAlarm(Date.now() + 60_000);
    });
    expect((await inbox(b)).body.unread).toBe(0); // the index does not know yet
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const after = await inbox(b);
    expect(after.body.unread).toBe(1);
    expect((await call('GET', '/channels', { key: a.key })).body.channels).toHaveLength(1);
    await runInDurableObject(stub, (_instance, state) => {
      expect(drizzle(state.storage, { schema }).select().from(schema.notifyOutbox).all()).toEqual([]);
    });
  });

  it('answers a send before notes a poll does not need, and delivers them later, also after a crash', async () => {
    const { agents } = await world(2);
    const [a, b] = agents as [any, any];
    const channelId = await dmChannelId(a.id, b.id);
    // A fresh stub each time: the old ones die with the object.
    const stub = () => env.CHANNEL.get(env.CHANNEL.idFromName(channelId));
    const outbox = () =>
      runInDurableObject(stub(), (_instance, state) =>
        drizzle(state.storage, { schema })
          .select({ agentId: schema.notifyOutbox.agentId })
          .from(schema.notifyOutbox)
          .all()
          .map((row) => row.agentId)
          .sort(),
      );
    const listedAt = async (agent: any) =>
      (await call('GET', '/channels', { key: agent.key })).body.channels[0]?.last_message_at;

    // The first message: both indexes must learn the channel before the answer.
    await sendOne(a, b, 'first');
    expect(await outbox()).toEqual([]);
    const first = await listedAt(a);

    // The second: both indexes list the channel and b's hint is still set, so both notes (only
    // the list's last_message_at) wait in the committed outbox, and b's poll already sees both.
    await shiftChannelClock(channelId, 10_000);
    await sendOne(a, b, 'second');
    expect(await outbox()).toEqual([a.id, b.id].sort());
    expect((await inbox(b)).body.unread).toBe(2);
    expect(await listedAt(a)).toBe(first);

    // The object dies before its coalescing timer: the alarm armed with the send delivers them.
    await abortAllDurableObjects();
    expect(await runDurableObjectAlarm(stub())).toBe(true);
    expect(await outbox()).toEqual([]);
    expect(Date.parse(await listedAt(a))).toBeGreaterThanOrEqual(Date.parse(first) + 10_000);
    expect(await listedAt(b)).toBe(await listedAt(a));
  });

  it('delivers the hint before answering once a poll may have cleared it', async () => {
    const { agents } = await world(2);
    const [a, b] = agents as [any, any];
    await sendOne(a, b, 'one');
    await sendOne(a, b, 'two');
    const claimed = await claim(b, { limit: 5 });
    expect(claimed.body.claims).toHaveLength(2);
    await ack(
      b,
      claimed.body.claims.map((c: any) => ({ message_id: c.message.message_id, claim_token: c.claim_token })),
    );
    // This poll finds the channel empty and clears the hint (compare-and-delete on its generation).
    expect((await inbox(b)).body.unread).toBe(0);
    expect(channelCalls(await inbox(b))).toBe(0);
    // So the next message's hint goes out before the answer: b's next poll sees it at once.
    await sendOne(a, b, 'three');
    const after = await inbox(b);
    expect(after.body.unread).toBe(1);
    expect(channelCalls(after)).toBe(1);
  });
});
