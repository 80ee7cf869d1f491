/**
 * The channel store's administrator views inside a real ChannelDO's SQLite (workerd): the summary
 * with its filters and content count, history without the membership check that writes nothing,
 * and the versioned report to the retention catalog.
 */
import { env, runInDurableObject } from 'cloudflare:test';
import { drizzle } from 'drizzle-orm/durable-sqlite';
import { describe, expect, it } from 'vitest';
import { dmChannelId } from '../../core/domain/ids.js';
import { ChannelCatalogReport } from '../../durable-objects/channel/catalog-report.js';
import * as schema from '../../durable-objects/channel/schema.js';
import { ChannelStore } from '../../durable-objects/channel/store.js';

const A = 'agt_alice';
const B = 'agt_bob';
const T0 = Date.parse('2026-11-29T12:00:00.000Z');

type Db = ReturnType<typeof drizzle<typeof schema>>;

async function withStore<T>(fn: (store: ChannelStore, db: Db, channelId: string) => T) {
  const channelId = await dmChannelId(A, B);
  const stub = env.CHANNEL.get(env.CHANNEL.newUniqueId());
  return runInDurableObject(stub, (_instance, state) => {
    const db = drizzle(state.storage, { schema });
    return fn(new ChannelStore(db), db, channelId);
  });
}

function send(store: ChannelStore, channelId: string, from: string, body: string, now = T0, maxMessages = 100) {
  const outcome = store.sendDirect({
    channelId,
    senderId: from,
    recipientId: from === A ? B : A,
    content: { body, attachment: null },
    maxMessages,
    now,
  });
  expect(outcome.status).toBe('sent');
  return outcome;
}

/** Everything in the tables an agent's read state lives in, to prove a read wrote nothing. */
function snapshot(db: Db) {
  return {
    deliveries: db.select().from(schema.deliveries).all(),
    messages: db.select().from(schema.messages).all(),
    outbox: db.select().from(schema.notifyOutbox).all(),
    channel: db.select().from(schema.channel).all(),
  };
}

describe('adminSummary', () => {
  it('is null before the channel exists, and summarizes it afterwards', async () => {
    await withStore((store, _db, channelId) => {
      expect(store.adminSummary({ participants: [] })).toBeNull();
      send(store, channelId, A, 'one', T0);
      send(store, channelId, B, 'two', T0 + 1_000);
      expect(store.adminSummary({ participants: [] })).toEqual({
        channel_id: channelId,
        kind: 'private',
        name: null,
        status: 'active',
        created_at: T0,
        participants: [
          { agent_id: A, state: 'active', role: 'member' },
          { agent_id: B, state: 'active', role: 'member' },
        ],
        message_count: 2,
        file_count: 0,
        last_message_at: T0 + 1_000,
        matches: true,
      });
    });
  });

  it('applies the identity filters before the content search, and counts matches', async () => {
    await withStore((store, _db, channelId) => {
      send(store, channelId, A, 'Deploy failed', T0);
      send(store, channelId, B, 'deploy FAILED again', T0 + 1);
      send(store, channelId, A, 'all good', T0 + 2);
      expect(store.adminSummary({ participants: [A, B], q: 'DEPLOY FAILED' })).toMatchObject({
        matching_messages: 2,
        matches: true,
      });
      expect(store.adminSummary({ participants: [], q: 'nothing like it' })).toMatchObject({
        matching_messages: 0,
        matches: false,
      });
      // A failed identity filter answers without running the search.
      const stranger = store.adminSummary({ participants: ['agt_carol'], q: 'deploy' });
      expect(stranger?.matches).toBe(false);
      expect(stranger).not.toHaveProperty('matching_messages');
      expect(store.adminSummary({ participants: [], owner: A })?.matches).toBe(false);
    });
  });

  it('counts only what retention kept', async () => {
    await withStore((store, _db, channelId) => {
      for (let i = 0; i < 5; i++) send(store, channelId, A, `needle ${i}`, T0 + i, 3);
      expect(store.countContaining('NEEDLE')).toBe(3);
      expect(store.adminSummary({ participants: [] })?.message_count).toBe(3);
    });
  });

  it('counts bodies SQLite cannot fold in pages, case-insensitively', async () => {
    await withStore((store, _db, channelId) => {
      for (let i = 0; i < 250; i++)
        send(store, channelId, i % 2 ? A : B, `${i % 3 ? 'ПРИВЕТ' : 'пока'} ${i}`, T0 + i, 1_000);
      const expected = Array.from({ length: 250 }, (_, i) => i).filter((i) => i % 3 !== 0).length;
      expect(store.countContaining('привет')).toBe(expected);
      expect(store.countContaining('Привет 1')).toBe(
        Array.from({ length: 250 }, (_, i) => i).filter((i) => i % 3 !== 0 && String(i).startsWith('1')).length,
      );
    });
  });
});

describe('adminHistory', () => {
  it('pages like history, for no participant at all, and writes nothing', async () => {
    await withStore((store, db, channelId) => {
      expect(store.adminHistory(null, 10, 'asc')).toBeNull();
      for (let i = 1; i <= 5; i++) send(store, channelId, A, `m${i}`, T0 + i);
      const before = snapshot(db);
      const first = store.adminHistory(null, 2, 'asc');
      expect(first?.messages.map((m) => m.body)).toEqual(['m1', 'm2']);
      const second = store.adminHistory(first?.next_seq ?? null, 2, 'asc');
      expect(second?.messages.map((m) => m.body)).toEqual(['m3', 'm4']);
      expect(store.adminHistory(null, 10, 'desc')?.messages.map((m) => m.body)).toEqual(['m5', 'm4', 'm3', 'm2', 'm1']);
      // The same pages an active participant gets, and no trace left by reading.
      // (plus the messages the page's replies answer, none here).
      const { replied, ...page } = store.adminHistory(null, 2, 'asc') ?? {};
      expect(page).toEqual(store.history(B, null, 2, 'asc'));
      expect(replied).toEqual([]);
      expect(snapshot(db)).toEqual(before);
    });
  });
});

describe('the catalog report', () => {
  it('is due when the figures changed, versioned, and a late confirmation changes nothing', async () => {
    await withStore((store, db, channelId) => {
      const report = new ChannelCatalogReport(db);
      const due = () => report.due(T0 + 10, 0).report;
      expect(due()).toBeNull();
      send(store, channelId, A, 'one', T0);
      const first = due();
      expect(first).toEqual({
        channel_id: channelId,
        kind: 'private',
        created_at: T0,
        status: 'active',
        message_count: 1,
        file_count: 0,
        last_message_at: T0,
        backlog: [{ agent_id: B, unread: 1, leased: 0, parked: 0, oldest_unread_at: T0 }],
        version: 1,
      });
      send(store, channelId, B, 'two', T0 + 5);
      const second = due();
      expect(second).toMatchObject({ message_count: 2, version: 2 });
      report.confirmed(second!);
      expect(due()).toBeNull();
      // The first report's confirmation arrives after the second's: still up to date.
      report.confirmed(first!);
      expect(due()).toBeNull();
      send(store, channelId, A, 'three', T0 + 9);
      expect(due()).toMatchObject({ message_count: 3, version: 3 });
    });
  });
});
