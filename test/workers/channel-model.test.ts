/**
 * Model-based property test: random sequences of send / claim (ordinary or parked) / ACK / extend /
 * release / clock advance, with count retention and max_deliveries, run against the real channel
 * store (SQLite in a ChannelDO) and against a small reference model written from protocol-design.md
 * and api-v1.md ("Lease controls"). Every outcome, every delivery_count and every inbox count must
 * agree; apart from the model, the real outcomes alone must never show two live leases of one
 * delivery, an extend by a token that did not hold the live lease, or an ordinary claim of a parked
 * delivery.
 */
import { env, runInDurableObject } from 'cloudflare:test';
import { drizzle } from 'drizzle-orm/durable-sqlite';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dmChannelId } from '../../core/domain/ids.js';
import * as schema from '../../durable-objects/channel/schema.js';
import { ChannelStore } from '../../durable-objects/channel/store.js';

const A = 'agt_a';
const B = 'agt_b';
const CLAIM_MS = 60_000;
/** The store remembers this many replaced tokens per delivery; the model does too. */
const REPLACED_KEPT = 8;

type Op =
  | { kind: 'send'; sender: string; body: string }
  | { kind: 'claim'; agent: string; n: number; order: 'oldest' | 'newest'; parked: boolean }
  | { kind: 'ack' | 'release'; pick: number; asOther: boolean; otherMessage: boolean; forged: boolean }
  | { kind: 'extend'; pick: number; asOther: boolean; otherMessage: boolean; forged: boolean; seconds: number }
  | { kind: 'advance'; ms: number };

interface ModelDelivery {
  state: 'unread' | 'leased' | 'read';
  claimTok: string | null;
  exp: number | null;
  replaced: string[];
  ackTok: string | null;
  ackDeadline: number | null;
  count: number;
}

interface ModelMessage {
  seq: number;
  id: string;
  sender: string;
  body: string;
  created: number;
  delivery: ModelDelivery; // the one recipient of a private channel: the other agent
}

const other = (agent: string) => (agent === A ? B : A);

/** The reference: plain arrays and the rules of protocol-design.md, nothing shared with the store. */
class Model {
  messages: ModelMessage[] = [];
  pointer = new Map<string, number>();
  purgedIds = new Set<string>();
  lastSeq = 0;

  constructor(
    readonly max: number,
    readonly maxDeliveries: number,
  ) {}

  /** An ended lease (expired or released) of a delivery claimed maxDeliveries times, not ACKed. */
  private isParked(d: ModelDelivery, now: number): boolean {
    return this.maxDeliveries > 0 && d.state === 'leased' && (d.exp ?? 0) <= now && d.count >= this.maxDeliveries;
  }

  send(sender: string, body: string, now: number, newId: (seq: number) => string) {
    const seq = this.pointer.get(sender);
    const latest = this.messages.find((m) => m.seq === seq);
    if (latest && latest.body === body) return { status: 'duplicate', seq: latest.seq };
    const message: ModelMessage = {
      seq: ++this.lastSeq,
      id: '',
      sender,
      body,
      created: now,
      delivery: { state: 'unread', claimTok: null, exp: null, replaced: [], ackTok: null, ackDeadline: null, count: 0 },
    };
    message.id = newId(message.seq);
    this.messages.push(message);
    this.pointer.set(sender, message.seq);
    while (this.messages.length > this.max) {
      const gone = this.messages.shift()!;
      this.purgedIds.add(gone.id);
      for (const [s, p] of this.pointer) if (p === gone.seq) this.pointer.delete(s);
    }
    return { status: 'sent', seq: message.seq };
  }

  claim(agent: string, n: number, order: 'oldest' | 'newest', parked: boolean, now: number, tokens: string[]) {
    const mine = this.messages.filter((m) => {
      if (m.sender === agent) return false;
      const d = m.delivery;
      if (parked) return this.isParked(d, now);
      return d.state === 'unread' || (d.state === 'leased' && (d.exp ?? 0) <= now && !this.isParked(d, now));
    });
    if (order === 'newest') mine.reverse();
    return mine.slice(0, n).map((m, i) => {
      const d = m.delivery;
      if (d.claimTok) d.replaced = [d.claimTok, ...d.replaced].slice(0, REPLACED_KEPT);
      d.state = 'leased';
      d.claimTok = tokens[i]!;
      d.exp = now + CLAIM_MS;
      d.count += 1;
      return { id: m.id, token: tokens[i]!, count: d.count };
    });
  }

  /** Extend (`ms` > 0: new expiry now + ms) or release (ms 0: the lease ends now). */
  lease(agent: string, id: string, token: string, now: number, ms: number): string {
    const m = this.messages.find((x) => x.id === id);
    if (!m) return this.purgedIds.has(id) ? 'message_purged' : 'not_found';
    if (m.sender === agent) return 'not_found';
    const d = m.delivery;
    if (d.state === 'read' && token === d.ackTok) return 'already_read';
    if (d.state !== 'read' && token === d.claimTok) {
      if (now >= (d.exp ?? 0)) return 'claim_expired';
      d.exp = now + ms;
      return ms > 0 ? 'extended' : 'released';
    }
    return d.replaced.includes(token) ? 'claim_replaced' : 'invalid_claim_token';
  }

  ack(agent: string, id: string, token: string, now: number): string {
    const m = this.messages.find((x) => x.id === id);
    if (!m) return this.purgedIds.has(id) ? 'message_purged' : 'not_found';
    if (m.sender === agent) return 'not_found';
    const d = m.delivery;
    if (d.state === 'read' && token === d.ackTok) return now < (d.ackDeadline ?? 0) ? 'already_read' : 'claim_expired';
    if (d.state !== 'read' && token === d.claimTok) {
      if (now >= (d.exp ?? 0)) return 'claim_expired';
      d.state = 'read';
      d.ackTok = d.claimTok;
      d.ackDeadline = d.exp;
      d.claimTok = null;
      d.exp = null;
      return 'read';
    }
    return d.replaced.includes(token) ? 'claim_replaced' : 'invalid_claim_token';
  }

  counts(agent: string, now: number) {
    if (this.lastSeq === 0) return null; // a private channel exists from its first message
    const unread = this.messages.filter((m) => m.sender !== agent && m.delivery.state !== 'read');
    const leased = unread.filter((m) => m.delivery.state === 'leased' && (m.delivery.exp ?? 0) > now).length;
    const parked = unread.filter((m) => this.isParked(m.delivery, now)).length;
    return {
      unread: unread.length,
      claimable: unread.length - leased - parked,
      leased,
      parked,
      oldest_unread_at: unread.length ? Math.min(...unread.map((m) => m.created)) : null,
    };
  }
}

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('send' as const),
      sender: fc.constantFrom(A, B),
      body: fc.constantFrom('x', 'y', 'z'),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('claim' as const),
      agent: fc.constantFrom(A, B),
      n: fc.integer({ min: 1, max: 3 }),
      order: fc.constantFrom('oldest' as const, 'newest' as const),
      parked: fc.boolean(),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('ack' as const),
      pick: fc.nat(),
      asOther: fc.boolean(),
      otherMessage: fc.boolean(),
      forged: fc.boolean(),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('extend' as const),
      pick: fc.nat(),
      asOther: fc.boolean(),
      otherMessage: fc.boolean(),
      forged: fc.boolean(),
      seconds: fc.constantFrom(1, 30, 60),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('release' as const),
      pick: fc.nat(),
      asOther: fc.boolean(),
      otherMessage: fc.boolean(),
      forged: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      ms: fc.constantFrom(1, 30_000, 59_999, CLAIM_MS, CLAIM_MS, 2 * CLAIM_MS),
    }),
  },
);

async function runAgainstStore(max: number, maxDeliveries: number, ops: Op[]): Promise<void> {
  const channelId = await dmChannelId(A, B);
  const stub = env.CHANNEL.get(env.CHANNEL.newUniqueId());
  await runInDurableObject(stub, (_instance, state) => {
    const store = new ChannelStore(drizzle(state.storage, { schema }));
    const model = new Model(max, maxDeliveries);
    // From the store's own answers only: the live lease of each message (its token and expiry), and
    // how many times each was claimed.
    const live = new Map<string, { token: string; exp: number }>();
    const claims = new Map<string, number>();
    const ids = new Map<number, string>();
    const issued: { id: string; token: string; owner: string }[] = [];
    let now = Date.parse('2026-11-29T00:00:00.000Z');
    let counter = 0;

    for (const [step, op] of ops.entries()) {
      const where = `step ${step}: ${JSON.stringify(op)}`;
      if (op.kind === 'advance') {
        now += op.ms;
      } else if (op.kind === 'send') {
        const real = store.sendDirect({
          channelId,
          senderId: op.sender,
          recipientId: other(op.sender),
          content: { body: op.body, attachment: null },
          maxMessages: max,
          now,
        });
        if (real.status === 'sent') ids.set(real.seq, real.message_id);
        const expected = model.send(op.sender, op.body, now, (seq) => ids.get(seq) ?? `missing-${seq}`);
        expect({ status: real.status, seq: real.seq }, where).toEqual(expected);
      } else if (op.kind === 'claim') {
        const tokens = Array.from({ length: op.n }, () => `t${++counter}`);
        const pool = { pool: op.parked ? ('parked' as const) : ('claimable' as const), maxDeliveries };
        const real =
          store.claim(
            op.agent,
            tokens.map((token) => ({ token, hash: `h:${token}` })),
            op.order,
            now,
            CLAIM_MS,
            pool,
          ) ?? [];
        const expected = model.claim(op.agent, op.n, op.order, op.parked, now, tokens);
        expect(
          real.map((c) => ({ id: c.message.message_id, token: c.claim_token, count: c.delivery_count })),
          where,
        ).toEqual(expected);
        for (const c of real) {
          const id = c.message.message_id;
          const held = live.get(id);
          expect(held && held.exp > now, `${where}: ${id} leased twice`).toBeFalsy();
          const before = claims.get(id) ?? 0;
          expect(c.delivery_count, `${where}: delivery_count of ${id}`).toBe(before + 1);
          // An ordinary claim never takes a parked delivery; a parked claim takes nothing else.
          if (maxDeliveries > 0) expect(before >= maxDeliveries, `${where}: pool of ${id}`).toBe(op.parked);
          else expect(op.parked, where).toBe(false);
          claims.set(id, before + 1);
          live.set(id, { token: c.claim_token, exp: now + CLAIM_MS });
        }
        for (const c of expected) issued.push({ id: c.id, token: c.token, owner: op.agent });
      } else if (op.kind === 'extend' || op.kind === 'release') {
        if (issued.length === 0) continue;
        const base = issued[op.pick % issued.length]!;
        const agent = op.asOther ? other(base.owner) : base.owner;
        const target = op.otherMessage ? issued[(op.pick + 1) % issued.length]!.id : base.id;
        const token = op.forged ? `forged${op.pick}` : base.token;
        const item = [{ message_id: target, tokenHash: `h:${token}` }];
        const ms = op.kind === 'extend' ? op.seconds * 1000 : 0;
        const [real] = op.kind === 'extend' ? store.extend(agent, item, now, ms) : store.release(agent, item, now);
        const expected = model.lease(agent, target, token, now, ms);
        expect(real!.status === 'rejected' ? real!.code : real!.status, where).toBe(expected);
        const held = live.get(target);
        const holds =
          held !== undefined &&
          held.token === token &&
          held.exp > now &&
          agent === base.owner &&
          !model.purgedIds.has(target);
        // Only the token of the live lease, presented by its owner, extends or releases it.
        expect(real!.status !== 'rejected', `${where}: accepted without the live lease`).toBe(holds);
        if (real!.status === 'extended') {
          expect(real!.claim_expires_at, where).toBe(now + ms);
          live.set(target, { token, exp: now + ms });
        } else if (real!.status === 'released') live.delete(target);
      } else {
        if (issued.length === 0) continue;
        const base = issued[op.pick % issued.length]!;
        const agent = op.asOther ? other(base.owner) : base.owner;
        const target = op.otherMessage ? (issued[(op.pick + 1) % issued.length]!.id ?? base.id) : base.id;
        const token = op.forged ? `forged${op.pick}` : base.token;
        const [real] = store.ack(agent, [{ message_id: target, tokenHash: `h:${token}` }], now);
        const expected = model.ack(agent, target, token, now);
        expect(real!.status === 'rejected' ? real!.code : real!.status, where).toBe(expected);
        if (real!.status === 'read') live.delete(target);
      }
      for (const agent of [A, B]) {
        expect(store.counts(agent, now, maxDeliveries), `${where}, counts of ${agent}`).toEqual(
          model.counts(agent, now),
        );
      }
    }
    const history = (store.history(A, null, 1_000, 'asc')?.messages ?? []).map((m) => [m.seq, m.sender_id, m.body]);
    expect(history).toEqual(model.messages.map((m) => [m.seq, m.sender, m.body]));
  });
}

describe('channel store against a reference model', () => {
  it('agrees on every send, claim, ACK, extend, release and count under retention, expiry and parking', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5 }),
        fc.constantFrom(0, 1, 2, 3),
        fc.array(opArb, { minLength: 1, maxLength: 60 }),
        (max, maxDeliveries, ops) => runAgainstStore(max, maxDeliveries, ops),
      ),
      { numRuns: 400 },
    );
  }, 120_000);
});
