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
import {
  ack,
  channelCalls,
  claim,
  inbox,
  send,
  sendOne,
  shiftChannelClock,
  type TestAgent,
  world,
} from './messaging-helpers.js';
import { env as typedEnv } from './test-env.js';

/** A note from a private channel with a message for the agent: what a send hands its index. */
const pendingNote = (channelId: string) => ({
  channel_id: channelId,
  kind: 'private' as const,
  peer_agent_id: 'agt_peer',
  group_id: null,
  name: null,
  last_message_at: 1_000,
  pending: true,
});

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
    const note = pendingNote('dm_aaaaaaaaaaaaaaaaaaaaaa');
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
    const stub = () => typedEnv.CHANNEL.get(typedEnv.CHANNEL.idFromName(channelId));
    // The notes still to deliver (a delivered row waits in the table for the next write).
    const outbox = () => stub().undeliveredNotes();
    const rows = () =>
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
    expect(await rows()).toEqual([]); // the alarm's run also deletes the delivered rows
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

/**
 * A delivered note's outbox row is not deleted in a commit of its own: it is remembered in memory
 * and deleted by the next write that happens anyway (the next send's transaction, a membership
 * change, the alarm's run; durable-objects/channel/delivered-notes.ts).
 */
describe('delivered outbox rows', () => {
  const byAgent = (x: { agentId: string }, y: { agentId: string }) =>
    x.agentId < y.agentId ? -1 : x.agentId > y.agentId ? 1 : 0;
  const channelOf = async (a: TestAgent, b: TestAgent) => {
    const channelId = await dmChannelId(a.id, b.id);
    return { channelId, stub: () => typedEnv.CHANNEL.get(typedEnv.CHANNEL.idFromName(channelId)) };
  };
  const rows = (stub: DurableObjectStub) =>
    runInDurableObject(stub, (_instance, state) =>
      drizzle(state.storage, { schema })
        .select({
          agentId: schema.notifyOutbox.agentId,
          pending: schema.notifyOutbox.pending,
          version: schema.notifyOutbox.version,
        })
        .from(schema.notifyOutbox)
        .all()
        .sort(byAgent),
    );
  const notesTaken = (agent: TestAgent) => typedEnv.AGENT.get(typedEnv.AGENT.idFromName(agent.id)).takeNotesTaken();

  it('keeps a delivered row until the next send deletes it, and never delivers it twice', async () => {
    const { agents } = await world(2);
    const [a, b] = agents as [TestAgent, TestAgent];
    const { stub } = await channelOf(a, b);
    await sendOne(a, b, 'first');
    // Both notes went out before the answer; their rows are still there (no commit of their own).
    expect(await notesTaken(a)).toBe(1);
    expect(await notesTaken(b)).toBe(1);
    expect(await stub().undeliveredNotes()).toEqual([]);
    expect((await rows(stub())).map((r) => r.agentId)).toEqual([a.id, b.id].sort());

    // The next send (now from b) deletes them in its own transaction, before its outbox rows: both
    // rows start afresh (version 1) instead of merging into the delivered ones, which would have
    // carried b's delivered hint over to b's own note as the sender.
    await sendOne(b, a, 'second');
    const after = await rows(stub());
    expect(after).toEqual(
      [
        { agentId: a.id, pending: true, version: 1 },
        { agentId: b.id, pending: false, version: 1 },
      ].sort(byAgent),
    );

    // a's hint went out before the answer, b's list note goes out coalesced or by the alarm, each
    // once; the alarm's run then deletes both rows.
    expect(await notesTaken(a)).toBe(1);
    await notesTaken(b);
    expect(await runDurableObjectAlarm(stub())).toBe(true);
    expect(await stub().undeliveredNotes()).toEqual([]);
    expect(await rows(stub())).toEqual([]);
    expect(await notesTaken(a)).toBe(0);
    expect(await notesTaken(b)).toBeLessThanOrEqual(1);
  });

  it('does not deliver a note again when a drain finds only delivered rows', async () => {
    const { agents } = await world(2);
    const [a, b] = agents as [TestAgent, TestAgent];
    const { stub } = await channelOf(a, b);
    await sendOne(a, b, 'first');
    await notesTaken(a);
    await notesTaken(b);
    expect(await runDurableObjectAlarm(stub())).toBe(true);
    expect(await notesTaken(a)).toBe(0);
    expect(await notesTaken(b)).toBe(0);
    expect(await rows(stub())).toEqual([]);
  });

  it('never marks a row created after a deletion as delivered by a drain that read the old one', async () => {
    const { agents } = await world(2);
    const [a, b] = agents as [TestAgent, TestAgent];
    const { channelId, stub } = await channelOf(a, b);
    await runInDurableObject(stub(), (_instance, state) => {
      const store = new ChannelStore(drizzle(state.storage, { schema }));
      const sendAt = (body: string) =>
        store.sendDirect({
          channelId,
          senderId: a.id,
          recipientId: b.id,
          content: { body, attachment: null },
          maxMessages: 100,
          now: Date.now(),
        });
      sendAt('one');
      // Two drains read the same rows (version 1); the second finishes first.
      const slow = store.outbox();
      const fast = store.outbox();
      expect(slow.map((item) => item.version)).toEqual([1, 1]);
      for (const item of fast) store.outboxDelivered(item.agentId, item.version, item.readAt);
      expect(store.outbox()).toEqual([]);
      // The next send deletes the delivered rows and creates new ones, with version 1 again.
      sendAt('two');
      const fresh = store.outbox();
      expect(fresh.map((item) => [item.agentId, item.version]).sort()).toEqual(
        [
          [a.id, 1],
          [b.id, 1],
        ].sort(),
      );
      // The slow drain finishes now: what it delivered was the old rows, not these.
      for (const item of slow) store.outboxDelivered(item.agentId, item.version, item.readAt);
      expect(
        store
          .outbox()
          .map((item) => item.agentId)
          .sort(),
      ).toEqual([a.id, b.id].sort());
      // Nor a drain that read a row a send changed since (the version moved).
      const before = store.outbox();
      sendAt('three');
      for (const item of before) store.outboxDelivered(item.agentId, item.version, item.readAt);
      expect(
        store
          .outbox()
          .map((item) => [item.agentId, item.version])
          .sort(),
      ).toEqual(
        [
          [a.id, 2],
          [b.id, 2],
        ].sort(),
      );
    });
  });

  it('delivers a delivered row again after a restart, then deletes it', async () => {
    const { agents } = await world(2);
    const [a, b] = agents as [TestAgent, TestAgent];
    const { stub } = await channelOf(a, b);
    await sendOne(a, b, 'first');
    expect((await rows(stub())).map((r) => r.agentId)).toEqual([a.id, b.id].sort());
    // A restarted channel has forgotten what it delivered: the rows go out once more.
    await abortAllDurableObjects();
    expect(await stub().undeliveredNotes()).toEqual([a.id, b.id].sort());
    expect(await runDurableObjectAlarm(stub())).toBe(true);
    expect(await notesTaken(a)).toBe(1);
    expect(await notesTaken(b)).toBe(1);
    expect(await rows(stub())).toEqual([]);
    expect((await inbox(b)).body.unread).toBe(1);
  });

  it('deletes delivered rows with a membership change, before its notes', async () => {
    const { agents } = await world(2);
    const [owner, invitee] = agents as [TestAgent, TestAgent];
    const created = await call('POST', '/groups', {
      key: owner.key,
      body: { name: 'rows', invitee_ids: [invitee.id] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const groupId = created.body.group.group_id as string;
    const stub = () => typedEnv.CHANNEL.get(typedEnv.CHANNEL.idFromName(groupId));
    expect(await stub().undeliveredNotes()).toEqual([]);
    expect((await rows(stub())).map((r) => r.agentId)).toEqual([owner.id, invitee.id].sort());
    const joined = await call('POST', `/groups/${groupId}/join`, { key: invitee.key });
    expect(joined.status, JSON.stringify(joined.body)).toBe(200);
    // The join's transaction deleted both delivered rows before writing the invitee's new one
    // (delivered since, so it waits for the next write in its turn).
    expect(await rows(stub())).toEqual([{ agentId: invitee.id, pending: false, version: 1 }]);
    expect(await stub().undeliveredNotes()).toEqual([]);
    expect((await call('GET', '/groups', { key: invitee.key })).body.memberships).toHaveLength(1);
  });
});

/**
 * A poll's hint clears, applied on the agent's next authentication, are held in the agent's object
 * in memory (durable-objects/agent/inbox-index.ts ClearedHints): the authentication writes nothing,
 * and the next note's transaction (or the alarm) writes them with the same compare-and-delete.
 */
describe('hint clears held in memory', () => {
  const CHANNEL = 'dm_clearsclearsclears0';
  const note = pendingNote(CHANNEL);
  const stored = (stub: DurableObjectStub) =>
    runInDurableObject(stub, (_instance, state) =>
      state.storage.sql
        .exec<{ pending: number; gen: number }>('select pending, gen from channels where channel_id = ?', CHANNEL)
        .toArray()
        .map((r) => ({ pending: r.pending, gen: r.gen })),
    );

  it('hides a cleared hint without writing it, and writes it with the next note', async () => {
    const index = typedEnv.AGENT.get(typedEnv.AGENT.idFromName('agt_clears_next_note'));
    await index.noteChannels([note]);
    const [read] = await index.pendingChannels();
    await index.clearPending([{ channel_id: CHANNEL, gen: read!.gen }]);
    expect(await index.pendingChannels()).toEqual([]);
    expect(await stored(index)).toEqual([{ pending: 1, gen: read!.gen }]); // nothing written yet
    // A note that does not set the hint (the agent's own message) writes the clear first.
    await index.noteChannels([{ ...note, pending: false, last_message_at: 2_000 }]);
    expect(await stored(index)).toEqual([{ pending: 0, gen: read!.gen }]);
    expect(await index.pendingChannels()).toEqual([]);
  });

  it('keeps the hint a note set after the clear was read, and writes nothing stale', async () => {
    const index = typedEnv.AGENT.get(typedEnv.AGENT.idFromName('agt_clears_later_note'));
    await index.noteChannels([note]);
    const [read] = await index.pendingChannels();
    await index.clearPending([{ channel_id: CHANNEL, gen: read!.gen }]);
    // A message arrives after the clear was applied: its note bumps gen and sets the hint again.
    await index.noteChannels([{ ...note, last_message_at: 2_000 }]);
    const [again] = await index.pendingChannels();
    expect(again).toMatchObject({ channel_id: CHANNEL, gen: read!.gen + 1 });
    expect(await stored(index)).toEqual([{ pending: 1, gen: read!.gen + 1 }]);
    // A clear read before that note (the older gen) no longer matches, in memory or written.
    await index.clearPending([{ channel_id: CHANNEL, gen: read!.gen }]);
    expect(await index.pendingChannels()).toEqual([again]);
    await index.noteChannels([{ ...note, pending: false, last_message_at: 3_000 }]);
    expect(await stored(index)).toEqual([{ pending: 1, gen: read!.gen + 1 }]);
    expect(await index.pendingChannels()).toEqual([again]);
  });

  it('writes the clears by the alarm when no note comes, and shows the hint again after a restart', async () => {
    const name = 'agt_clears_alarm';
    const index = () => typedEnv.AGENT.get(typedEnv.AGENT.idFromName(name));
    await index().noteChannels([note]);
    const [read] = await index().pendingChannels();
    await index().clearPending([{ channel_id: CHANNEL, gen: read!.gen }]);
    expect(await index().pendingChannels()).toEqual([]);
    // A restarted object has lost the clear: the hint shows again, for the next poll to repair.
    await abortAllDurableObjects();
    expect(await index().pendingChannels()).toEqual([read]);
    await index().clearPending([{ channel_id: CHANNEL, gen: read!.gen }]);
    expect(await stored(index())).toEqual([{ pending: 1, gen: read!.gen }]);
    expect(await runDurableObjectAlarm(index())).toBe(true);
    expect(await stored(index())).toEqual([{ pending: 0, gen: read!.gen }]);
    await abortAllDurableObjects();
    expect(await index().pendingChannels()).toEqual([]);
  });

  it('applies a poll’s clears on the next authentication without a write, through the worker', async () => {
    const { agents } = await world(2);
    const [a, b] = agents as [TestAgent, TestAgent];
    const channelId = await dmChannelId(a.id, b.id);
    const rowOf = () =>
      runInDurableObject(typedEnv.AGENT.get(typedEnv.AGENT.idFromName(b.id)), (_instance, state) =>
        state.storage.sql
          .exec<{ pending: number; gen: number }>('select pending, gen from channels where channel_id = ?', channelId)
          .toArray()
          .map((r) => ({ pending: r.pending, gen: r.gen })),
      );
    await sendOne(a, b, 'one');
    const claimed = await claim(b, { limit: 5 });
    await ack(
      b,
      claimed.body.claims.map((c: any) => ({ message_id: c.message.message_id, claim_token: c.claim_token })),
    );
    const [hint] = await rowOf();
    expect(hint).toMatchObject({ pending: 1 });
    expect(channelCalls(await inbox(b))).toBe(1); // finds the channel empty, leaves the clear
    expect(channelCalls(await inbox(b))).toBe(0); // the authentication applied it...
    expect(await rowOf()).toEqual([hint]); // ...in memory only
    // The next message: its note writes the clear, then sets the hint again.
    await sendOne(a, b, 'two');
    expect(await rowOf()).toEqual([{ pending: 1, gen: hint!.gen + 1 }]);
    const after = await inbox(b);
    expect(after.body.unread).toBe(1);
    expect(channelCalls(after)).toBe(1);
  });
});
