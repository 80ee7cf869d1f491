/**
 * The channel's storage logic inside a real ChannelDO's SQLite (workerd), driven with an explicit
 * clock: claims, expiry, ACK deadlines, dedup, retention and purge.
 */
import { env, runInDurableObject } from 'cloudflare:test';
import { drizzle } from 'drizzle-orm/durable-sqlite';
import { describe, expect, it } from 'vitest';
import type { MessageContent } from '../../core/domain/content.js';
import { channelOfMessageId, dmChannelId } from '../../core/domain/ids.js';
import { CLAIM_SQL } from '../../durable-objects/channel/inbox.js';
import { PURGED_IDS_KEPT } from '../../durable-objects/channel/retention.js';
import * as schema from '../../durable-objects/channel/schema.js';
import type { SendOutcome } from '../../durable-objects/channel/sending.js';
import { ChannelStore } from '../../durable-objects/channel/store.js';

const A = 'agt_alice';
const B = 'agt_bob';
const T0 = Date.parse('2026-11-29T12:00:00.000Z');
const CLAIM_MS = 60_000;

const text = (body: string): MessageContent => ({ body, attachment: null });

/** Runs `fn` against a fresh channel object's store (the object has run its migrations). */
async function withStore<T>(
  fn: (store: ChannelStore, db: ReturnType<typeof drizzle<typeof schema>>, channelId: string) => T,
) {
  const channelId = await dmChannelId(A, B);
  const stub = env.CHANNEL.get(env.CHANNEL.newUniqueId());
  return runInDurableObject(stub, (_instance, state) => {
    const db = drizzle(state.storage, { schema });
    return fn(new ChannelStore(db), db, channelId);
  });
}

let tokenCounter = 0;
/** Tokens for the store (the object hashes real ones with SHA-256; the store only compares). */
function tokens(n: number) {
  return Array.from({ length: n }, () => {
    const token = `tok${++tokenCounter}`;
    return { token, hash: `hash:${token}` };
  });
}
const hashOf = (token: string) => `hash:${token}`;

function send(store: ChannelStore, channelId: string, from: string, body: string, now = T0, maxMessages = 100) {
  return store.sendDirect({
    channelId,
    senderId: from,
    recipientId: from === A ? B : A,
    content: text(body),
    maxMessages,
    now,
  });
}

describe('channel store: sending and dedup', () => {
  it('gives each message a strict seq and routes its ID back to the channel', async () => {
    await withStore((store, _db, channelId) => {
      const first = send(store, channelId, A, 'one');
      const second = send(store, channelId, B, 'two', T0 - 5_000); // a clock going backwards
      expect(first.status).toBe('sent');
      expect(second.status).toBe('sent');
      expect([first.seq, second.seq]).toEqual([1, 2]);
      expect(channelOfMessageId(first.message_id)).toBe(channelId);
      const page = store.history(A, null, 10, 'asc')!;
      expect(page.messages.map((m) => m.created_at)).toEqual([new Date(T0).toISOString(), new Date(T0).toISOString()]);
    });
  });

  it('compares with the sender’s own latest retained message only, with no time window', async () => {
    await withStore((store, _db, channelId) => {
      const x = send(store, channelId, A, 'X');
      const again = send(store, channelId, A, 'X', T0 + 365 * 86_400_000);
      expect(again).toEqual({
        status: 'duplicate',
        message_id: x.message_id,
        seq: x.seq,
        thread_id: x.message_id,
        reply_to: null,
      });

      // Another sender in between does not move A's comparison target.
      expect(send(store, channelId, B, 'X').status).toBe('sent');
      expect(send(store, channelId, A, 'X')).toMatchObject({ status: 'duplicate', message_id: x.message_id });

      // A different accepted message does: X, Y, X gives a second X.
      expect(send(store, channelId, A, 'Y').status).toBe('sent');
      const x2 = send(store, channelId, A, 'X');
      expect(x2.status).toBe('sent');
      expect(x2.message_id).not.toBe(x.message_id);
    });
  });

  it('compares exactly: no trimming, no normalization, attachments by their fields', async () => {
    await withStore((store, _db, channelId) => {
      send(store, channelId, A, 'café');
      expect(send(store, channelId, A, 'cafe\u0301').status).toBe('sent'); // NFD is different text
      expect(send(store, channelId, A, 'cafe\u0301 ').status).toBe('sent');
      const file = { file_id: 'fil_1', filename: 'a.txt', media_type: 'text/plain', size: 3, sha256: 'abc' };
      const withFile = (over: Partial<typeof file>) =>
        store.sendDirect({
          channelId,
          senderId: A,
          recipientId: B,
          content: { body: 'f', attachment: { ...file, ...over } },
          maxMessages: 100,
          now: T0,
        }).status;
      expect(withFile({})).toBe('sent');
      expect(withFile({ file_id: 'fil_2' })).toBe('duplicate'); // the server's file ID is not content
      expect(withFile({ sha256: 'abd' })).toBe('sent');
      expect(withFile({ filename: 'b.txt' })).toBe('sent');
      expect(withFile({ filename: 'b.txt', media_type: 'text/x' })).toBe('sent');
      expect(withFile({ filename: 'b.txt', media_type: 'text/x', size: 4 })).toBe('sent');
      expect(send(store, channelId, A, 'f').status).toBe('sent'); // attachment presence differs
    });
  });

  it('never gives the sender a delivery of its own message', async () => {
    await withStore((store, _db, channelId) => {
      send(store, channelId, A, 'hello');
      expect(store.counts(A, T0)).toEqual({ unread: 0, claimable: 0, leased: 0, parked: 0, oldest_unread_at: null });
      expect(store.counts(B, T0)).toEqual({ unread: 1, claimable: 1, leased: 0, parked: 0, oldest_unread_at: T0 });
      expect(store.claim(A, tokens(5), 'oldest', T0, CLAIM_MS)).toEqual([]);
    });
  });

  it('refuses a pair that is not the channel’s', async () => {
    await withStore((store, _db, channelId) => {
      send(store, channelId, A, 'hello');
      expect(() =>
        store.sendDirect({
          channelId,
          senderId: A,
          recipientId: 'agt_carol',
          content: text('x'),
          maxMessages: 9,
          now: T0,
        }),
      ).toThrow(/not the private channel/);
    });
  });
});

describe('channel store: claims and ACKs with an injected clock', () => {
  it('leases exclusively until expiry, then lets the message be claimed again', async () => {
    await withStore((store, _db, channelId) => {
      const m = send(store, channelId, A, 'task');
      const [first] = store.claim(B, tokens(1), 'oldest', T0, CLAIM_MS)!;
      expect(first!.message.message_id).toBe(m.message_id);
      expect(first!.claim_expires_at).toBe(new Date(T0 + CLAIM_MS).toISOString());
      expect(store.counts(B, T0 + 1)).toMatchObject({ unread: 1, claimable: 0, leased: 1 });
      expect(store.claim(B, tokens(1), 'oldest', T0 + CLAIM_MS - 1, CLAIM_MS)).toEqual([]);
      expect(store.counts(B, T0 + CLAIM_MS)).toMatchObject({ unread: 1, claimable: 1, leased: 0 });
      const [second] = store.claim(B, tokens(1), 'oldest', T0 + CLAIM_MS, CLAIM_MS)!;
      expect(second!.message.message_id).toBe(m.message_id);
      expect(second!.claim_token).not.toBe(first!.claim_token);
    });
  });

  it('keeps the expiry of the claim duration in force at claim time', async () => {
    await withStore((store, _db, channelId) => {
      send(store, channelId, A, 'one');
      send(store, channelId, A, 'two');
      const [short] = store.claim(B, tokens(1), 'oldest', T0, 1_000)!;
      const [long] = store.claim(B, tokens(1), 'oldest', T0, 120_000)!;
      expect(Date.parse(short!.claim_expires_at)).toBe(T0 + 1_000);
      expect(Date.parse(long!.claim_expires_at)).toBe(T0 + 120_000);
      const at = T0 + 60_000;
      expect(
        store.ack(B, [{ message_id: short!.message.message_id, tokenHash: hashOf(short!.claim_token) }], at),
      ).toEqual([{ message_id: short!.message.message_id, status: 'rejected', code: 'claim_expired' }]);
      expect(
        store.ack(B, [{ message_id: long!.message.message_id, tokenHash: hashOf(long!.claim_token) }], at),
      ).toEqual([{ message_id: long!.message.message_id, status: 'read' }]);
    });
  });

  it('answers claim_expired, claim_replaced, already_read and its deadline', async () => {
    await withStore((store, _db, channelId) => {
      const m = send(store, channelId, A, 'task');
      const id = m.message_id;
      const [c1] = store.claim(B, tokens(1), 'oldest', T0, CLAIM_MS)!;
      const ack = (token: string, now: number) => store.ack(B, [{ message_id: id, tokenHash: hashOf(token) }], now)[0];

      // Past expiry with no new claim: expired (and the delivery is claimable again).
      expect(ack(c1!.claim_token, T0 + CLAIM_MS)).toMatchObject({ status: 'rejected', code: 'claim_expired' });
      // Claimed again: the first token is replaced, whatever the time.
      const [c2] = store.claim(B, tokens(1), 'oldest', T0 + CLAIM_MS + 10, CLAIM_MS)!;
      expect(ack(c1!.claim_token, T0 + CLAIM_MS + 20)).toMatchObject({ status: 'rejected', code: 'claim_replaced' });
      expect(ack('never-issued', T0 + CLAIM_MS + 20)).toMatchObject({
        status: 'rejected',
        code: 'invalid_claim_token',
      });

      const deadline = T0 + CLAIM_MS + 10 + CLAIM_MS;
      expect(ack(c2!.claim_token, T0 + CLAIM_MS + 30)).toEqual({ message_id: id, status: 'read' });
      expect(ack(c2!.claim_token, deadline - 1)).toEqual({ message_id: id, status: 'already_read' });
      expect(ack(c1!.claim_token, deadline - 1)).toMatchObject({ status: 'rejected', code: 'claim_replaced' });
      expect(ack(c2!.claim_token, deadline)).toMatchObject({ status: 'rejected', code: 'claim_expired' });

      // Expiry never reopens a read delivery.
      const later = deadline + 10 * CLAIM_MS;
      expect(store.counts(B, later)).toMatchObject({ unread: 0, claimable: 0, leased: 0 });
      expect(store.claim(B, tokens(1), 'oldest', later, CLAIM_MS)).toEqual([]);
    });
  });

  it('binds a token to its own delivery and agent', async () => {
    await withStore((store, _db, channelId) => {
      const m1 = send(store, channelId, A, 'one');
      const m2 = send(store, channelId, A, 'two');
      const reply = send(store, channelId, B, 'reply');
      const [c1, c2] = store.claim(B, tokens(2), 'oldest', T0, CLAIM_MS)!;
      expect([c1!.message.message_id, c2!.message.message_id]).toEqual([m1.message_id, m2.message_id]);
      // The token of m1 does not ACK m2.
      expect(store.ack(B, [{ message_id: m2.message_id, tokenHash: hashOf(c1!.claim_token) }], T0)).toEqual([
        { message_id: m2.message_id, status: 'rejected', code: 'invalid_claim_token' },
      ]);
      // The sender has no delivery of its own message; another agent presenting B's token gets nothing.
      expect(store.ack(A, [{ message_id: m1.message_id, tokenHash: hashOf(c1!.claim_token) }], T0)).toEqual([
        { message_id: m1.message_id, status: 'rejected', code: 'not_found' },
      ]);
      expect(store.ack(A, [{ message_id: reply.message_id, tokenHash: hashOf(c1!.claim_token) }], T0)).toEqual([
        { message_id: reply.message_id, status: 'rejected', code: 'invalid_claim_token' },
      ]);
      expect(store.ack('agt_mallory', [{ message_id: m1.message_id, tokenHash: hashOf(c1!.claim_token) }], T0)).toEqual(
        [{ message_id: m1.message_id, status: 'rejected', code: 'not_found' }],
      );
      const unknown = `msg_d${channelId.slice(3)}AAAAAAAAAAAAAAAA`;
      expect(store.ack(B, [{ message_id: unknown, tokenHash: hashOf(c1!.claim_token) }], T0)[0]).toMatchObject({
        code: 'not_found',
      });
    });
  });

  it('claims oldest or newest first and in batches', async () => {
    await withStore((store, _db, channelId) => {
      const ids = ['m1', 'm2', 'm3', 'm4'].map((b, i) => send(store, channelId, A, b, T0 + i).message_id);
      expect(store.claim(B, tokens(2), 'newest', T0, CLAIM_MS)!.map((c) => c.message.message_id)).toEqual([
        ids[3],
        ids[2],
      ]);
      expect(store.claim(B, tokens(3), 'oldest', T0, CLAIM_MS)!.map((c) => c.message.message_id)).toEqual([
        ids[0],
        ids[1],
      ]);
      expect(store.claimCandidates(B, 5, 'oldest', T0)).toEqual({ candidates: [], unread: 4 });
      expect(store.claimCandidates(B, 5, 'oldest', T0 + CLAIM_MS)!.candidates.map((c) => c.seq)).toEqual([1, 2, 3, 4]);
    });
  });
});

describe('channel store: count retention and purge', () => {
  it('deletes the oldest even when unread or leased, with deliveries, claims and dedup evidence', async () => {
    await withStore((store, db, channelId) => {
      const first = send(store, channelId, A, 'first', T0, 3);
      send(store, channelId, A, 'second', T0, 3);
      const [lease] = store.claim(B, tokens(1), 'oldest', T0, CLAIM_MS)!; // leases "first"
      expect(lease!.message.message_id).toBe(first.message_id);
      send(store, channelId, B, 'third', T0, 3);
      send(store, channelId, B, 'fourth', T0, 3); // evicts "first" (leased)
      send(store, channelId, B, 'fifth', T0, 3); // evicts "second" (unread): A's dedup evidence goes

      const retained = store.history(A, null, 10, 'asc')!.messages.map((m) => m.body);
      expect(retained).toEqual(['third', 'fourth', 'fifth']);
      expect(
        db
          .select()
          .from(schema.deliveries)
          .all()
          .map((d) => d.seq),
      ).toEqual([3, 4, 5]);
      expect(db.select().from(schema.dedup).all()).toEqual([{ senderId: B, seq: 5 }]);
      expect(store.counts(B, T0)).toMatchObject({ unread: 0, leased: 0 });

      expect(store.ack(B, [{ message_id: first.message_id, tokenHash: hashOf(lease!.claim_token) }], T0)).toEqual([
        { message_id: first.message_id, status: 'rejected', code: 'message_purged' },
      ]);
      // The evidence went with the message: identical content is accepted again.
      const again = send(store, channelId, A, 'second', T0, 3);
      expect(again.status).toBe('sent');
      expect(again.seq).toBe(6);
    });
  });

  it('does not fall back to an older retained message when the comparison message is purged', async () => {
    await withStore((store, db, channelId) => {
      const x = send(store, channelId, A, 'X');
      const y = send(store, channelId, A, 'Y');
      // A purge of the newest (as retroactive limits can do) removes the pointer in its transaction.
      db.transaction(() => store.purgeMessages({ seqs: [y.seq] }, T0));
      expect(db.select().from(schema.dedup).all()).toEqual([]);
      expect(store.history(A, null, 10, 'asc')!.messages.map((m) => m.message_id)).toEqual([x.message_id]);
      // X is still retained, but it is not A's comparison message any more: no fallback.
      const x2 = send(store, channelId, A, 'X');
      expect(x2.status).toBe('sent');
      expect(x2.seq).toBe(3); // seq is never reused, even after the newest was deleted
      expect(send(store, channelId, A, 'X')).toMatchObject({ status: 'duplicate', message_id: x2.message_id });
    });
  });

  it('keeps a bounded set of purged IDs', async () => {
    await withStore((store, db, channelId) => {
      const first = send(store, channelId, A, 'm0', T0, 1);
      for (let i = 1; i <= PURGED_IDS_KEPT + 5; i++) send(store, channelId, A, `m${i}`, T0, 1);
      const kept = db
        .select()
        .from(schema.purged)
        .all()
        .map((p) => p.seq);
      // The newest by seq stay: seqs 1..KEPT+5 were purged, 6..KEPT+5 are remembered.
      expect(kept.length).toBe(PURGED_IDS_KEPT);
      expect([Math.min(...kept), Math.max(...kept)]).toEqual([6, PURGED_IDS_KEPT + 5]);
      expect(store.ack(B, [{ message_id: first.message_id, tokenHash: 'x' }], T0)[0]).toMatchObject({
        code: 'not_found',
      });
      expect(db.select().from(schema.messages).all().length).toBe(1);
    });
  });
});

describe('channel store: history', () => {
  it('pages by seq both ways for participants only, never touching read state', async () => {
    await withStore((store, _db, channelId) => {
      for (let i = 1; i <= 5; i++) send(store, channelId, i % 2 ? A : B, `m${i}`);
      const asc1 = store.history(B, null, 2, 'asc')!;
      expect(asc1.messages.map((m) => m.seq)).toEqual([1, 2]);
      const asc2 = store.history(B, asc1.next_seq, 2, 'asc')!;
      expect(asc2.messages.map((m) => m.seq)).toEqual([3, 4]);
      const asc3 = store.history(B, asc2.next_seq, 2, 'asc')!;
      expect(asc3).toMatchObject({ next_seq: null });
      expect(asc3.messages.map((m) => m.seq)).toEqual([5]);
      const desc1 = store.history(B, null, 3, 'desc')!;
      expect(desc1.messages.map((m) => m.seq)).toEqual([5, 4, 3]);
      expect(store.history(B, desc1.next_seq, 3, 'desc')!.messages.map((m) => m.seq)).toEqual([2, 1]);
      expect(store.history('agt_mallory', null, 3, 'asc')).toBeNull();
      expect(store.counts(B, T0)).toMatchObject({ unread: 3, claimable: 3 });
    });
  });
});

describe('channel store: claim statements', () => {
  it('find claimable deliveries by recipient and state, never walking the read ones', async () => {
    await withStore((store, _db, channelId) => {
      send(store, channelId, A, 'one');
      const storage = (store as unknown as { db: { $client: DurableObjectStorage } }).db.$client;
      const texts = [CLAIM_SQL.candidates, CLAIM_SQL.claimable].flatMap((byPool) =>
        Object.entries(byPool).flatMap(([pool, byOrder]) => Object.values(byOrder).map((text) => ({ pool, text }))),
      );
      for (const { pool, text } of texts) {
        const plan = storage.sql
          .exec<{ detail: string }>(`explain query plan ${text}`, B, T0, 5, 3)
          .toArray()
          .map((r) => r.detail);
        const onDeliveries = plan.filter((d) => d.includes('deliveries_recipient'));
        // Both ranges (unread; leased) use the index on (recipient, state): read ones are skipped.
        // Parked deliveries are ended leases: the leased range only.
        expect(onDeliveries).toHaveLength(pool === 'parked' ? 1 : 2);
        for (const d of onDeliveries) expect(d).toContain('(recipient_id=? AND state=?)');
      }
    });
  });

  it('claims unread and expired leases merged in seq order, both orders, past read deliveries', async () => {
    await withStore((store, _db, channelId) => {
      for (let i = 1; i <= 8; i++) send(store, channelId, A, `m${i}`, T0 - 100 + i);
      // 1-2 read, 3 leased (expires at T0 + CLAIM_MS), 4-5 leased later (expires later), 6-8 unread.
      const first = store.claim(B, tokens(2), 'oldest', T0, CLAIM_MS)!;
      store.ack(
        B,
        first.map((c) => ({ message_id: c.message.message_id, tokenHash: hashOf(c.claim_token) })),
        T0,
      );
      store.claim(B, tokens(1), 'oldest', T0, CLAIM_MS);
      store.claim(B, tokens(2), 'oldest', T0 + 10_000, CLAIM_MS);
      const afterFirstExpiry = T0 + CLAIM_MS;
      // Counts: 3..8 not read, 4 and 5 under a live lease, the oldest not read is 3's time.
      expect(store.counts(B, afterFirstExpiry)).toEqual({
        unread: 6,
        claimable: 4,
        leased: 2,
        parked: 0,
        oldest_unread_at: T0 - 97,
      });
      expect(store.claimCandidates(B, 10, 'oldest', afterFirstExpiry)!.candidates.map((c) => c.seq)).toEqual([
        3, 6, 7, 8,
      ]);
      expect(store.claimCandidates(B, 2, 'newest', afterFirstExpiry)!.candidates.map((c) => c.seq)).toEqual([8, 7]);
      const later = T0 + 10_000 + CLAIM_MS;
      expect(store.claimCandidates(B, 4, 'oldest', later)!.candidates.map((c) => c.seq)).toEqual([3, 4, 5, 6]);
      expect(store.claim(B, tokens(3), 'newest', later, CLAIM_MS)!.map((c) => [c.message.seq, c.message.body])).toEqual(
        [
          [8, 'm8'],
          [7, 'm7'],
          [6, 'm6'],
        ],
      );
      expect(store.claim(B, tokens(5), 'oldest', later, CLAIM_MS)!.map((c) => c.message.seq)).toEqual([3, 4, 5]);
      expect(store.claim(B, tokens(5), 'oldest', later, CLAIM_MS)).toEqual([]);
    });
  });
});

describe('channel store: lease controls and parking', () => {
  const item = (c: { message: { message_id: string }; claim_token: string }) => ({
    message_id: c.message.message_id,
    tokenHash: hashOf(c.claim_token),
  });

  it('extends only the live lease of its own token, and refuses with the ACK codes without writing', async () => {
    await withStore((store, _db, channelId) => {
      send(store, channelId, A, 'one');
      const [first] = store.claim(B, tokens(1), 'oldest', T0, CLAIM_MS)!;
      expect(first!.delivery_count).toBe(1);
      expect(store.extend(B, [item(first!)], T0 + 50_000, 30_000)).toEqual([
        { message_id: first!.message.message_id, status: 'extended', claim_expires_at: T0 + 80_000 },
      ]);
      // Past the original expiry the extended lease still holds: no claim, and the ACK works.
      expect(store.claim(B, tokens(1), 'oldest', T0 + 70_000, CLAIM_MS)).toEqual([]);
      const forged = { message_id: first!.message.message_id, tokenHash: 'hash:forged' };
      expect(store.extend(B, [forged], T0 + 70_000, 30_000)[0]).toMatchObject({ code: 'invalid_claim_token' });
      expect(store.extend(A, [item(first!)], T0 + 70_000, 30_000)[0]).toMatchObject({ code: 'not_found' });
      expect(store.counts(B, T0 + 70_000)).toMatchObject({ leased: 1, claimable: 0 });
      // Expired: refused, and the lease is not revived.
      expect(store.extend(B, [item(first!)], T0 + 80_000, 30_000)[0]).toMatchObject({ code: 'claim_expired' });
      const [second] = store.claim(B, tokens(1), 'oldest', T0 + 80_000, CLAIM_MS)!;
      expect(second!.delivery_count).toBe(2);
      expect(store.extend(B, [item(first!)], T0 + 80_001, 30_000)[0]).toMatchObject({ code: 'claim_replaced' });
      expect(store.ack(B, [item(second!)], T0 + 80_001)[0]).toMatchObject({ status: 'read' });
      expect(store.extend(B, [item(second!)], T0 + 80_002, 30_000)[0]).toMatchObject({ code: 'already_read' });
      expect(store.release(B, [item(second!)], T0 + 80_002)[0]).toMatchObject({ code: 'already_read' });
    });
  });

  it('a release makes the delivery claimable at once and its token stale', async () => {
    await withStore((store, _db, channelId) => {
      send(store, channelId, A, 'one');
      const [first] = store.claim(B, tokens(1), 'oldest', T0, CLAIM_MS)!;
      expect(store.release(B, [item(first!)], T0 + 1)).toEqual([
        { message_id: first!.message.message_id, status: 'released' },
      ]);
      expect(store.counts(B, T0 + 1)).toMatchObject({ unread: 1, claimable: 1, leased: 0, parked: 0 });
      expect(store.ack(B, [item(first!)], T0 + 1)[0]).toMatchObject({ code: 'claim_expired' });
      expect(store.release(B, [item(first!)], T0 + 1)[0]).toMatchObject({ code: 'claim_expired' });
      const [again] = store.claim(B, tokens(1), 'oldest', T0 + 1, CLAIM_MS)!;
      expect(again).toMatchObject({ delivery_count: 2 });
      expect(store.claim(B, tokens(1), 'oldest', T0 + 1, CLAIM_MS)).toEqual([]);
    });
  });

  it('parks a delivery whose max_deliveries-th claim ends without an ACK; parked: true claims it', async () => {
    await withStore((store, _db, channelId) => {
      const ordinary = { pool: 'claimable' as const, maxDeliveries: 2 };
      const parked = { pool: 'parked' as const, maxDeliveries: 2 };
      send(store, channelId, A, 'poison');
      send(store, channelId, A, 'fine');
      const [c1] = store.claim(B, tokens(1), 'oldest', T0, CLAIM_MS, ordinary)!;
      store.release(B, [item(c1!)], T0);
      const [c2] = store.claim(B, tokens(1), 'oldest', T0, CLAIM_MS, ordinary)!;
      expect(c2).toMatchObject({ delivery_count: 2, message: { body: 'poison' } });
      // Leased, not yet parked; nothing parked to claim.
      expect(store.claim(B, tokens(1), 'oldest', T0, CLAIM_MS, parked)).toEqual([]);
      const ended = T0 + CLAIM_MS;
      expect(store.counts(B, ended, 2)).toMatchObject({ unread: 2, claimable: 1, leased: 0, parked: 1 });
      // Without a limit the same delivery is claimable: parking follows the setting in force.
      expect(store.counts(B, ended, 0)).toMatchObject({ claimable: 2, parked: 0 });
      expect(store.claimCandidates(B, 5, 'oldest', ended, ordinary)!.candidates.map((c) => c.seq)).toEqual([2]);
      expect(store.claimCandidates(B, 5, 'oldest', ended, parked)!.candidates.map((c) => c.seq)).toEqual([1]);
      const [fine] = store.claim(B, tokens(5), 'oldest', ended, CLAIM_MS, ordinary)!;
      expect(fine!.message.body).toBe('fine');
      const [p1] = store.claim(B, tokens(5), 'oldest', ended, CLAIM_MS, parked)!;
      expect(p1).toMatchObject({ delivery_count: 3, message: { body: 'poison' } });
      // Released unACKed: parked again, never offered to an ordinary claim.
      store.release(B, [item(p1!)], ended + 1);
      expect(store.counts(B, ended + 1, 2)).toMatchObject({ parked: 1, leased: 1, claimable: 0 });
      expect(store.claim(B, tokens(5), 'oldest', ended + 1, CLAIM_MS, ordinary)).toEqual([]);
      const [p2] = store.claim(B, tokens(5), 'oldest', ended + 1, CLAIM_MS, parked)!;
      expect(store.ack(B, [item(p2!)], ended + 2)[0]).toMatchObject({ status: 'read' });
      expect(store.counts(B, ended + 2, 2)).toMatchObject({ unread: 1, parked: 0, leased: 1 });
    });
  });
});

describe('channel store: reply_to is a detail of the dedup comparison', () => {
  it('the same body as a reply to another message, or reply versus not, is new; the same reply again is a duplicate', async () => {
    await withStore((store, _db, channelId) => {
      const q1 = send(store, channelId, B, 'question one');
      const q2 = send(store, channelId, B, 'question two');
      const reply = (replyTo?: string) =>
        store.sendDirect({
          channelId,
          senderId: A,
          recipientId: B,
          content: text('Done.'),
          maxMessages: 100,
          now: T0,
          ...(replyTo && { replyTo }),
        }) as SendOutcome;
      const r1 = reply(q1.message_id);
      expect(r1).toMatchObject({ status: 'sent', reply_to: q1.message_id });
      expect(reply(q1.message_id)).toMatchObject({ status: 'duplicate', message_id: r1.message_id });
      const r2 = reply(q2.message_id);
      expect(r2).toMatchObject({ status: 'sent', reply_to: q2.message_id, thread_id: q2.message_id });
      const plain = reply();
      expect(plain).toMatchObject({ status: 'sent', reply_to: null });
      expect(reply()).toMatchObject({ status: 'duplicate', message_id: plain.message_id });
      expect(reply(q2.message_id)).toMatchObject({ status: 'sent' });
      expect(store.duplicateOf(A, text('Done.'), q2.message_id)).not.toBeNull();
      expect(store.duplicateOf(A, text('Done.'))).toBeNull();
    });
  });
});
