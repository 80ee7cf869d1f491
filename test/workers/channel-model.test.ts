/**
 * Model-based property test: random sequences of send / claim / ACK / clock advance, with count
 * retention, run against the real channel store (SQLite in a ChannelDO) and against a small
 * reference model written from protocol-design.md. Every outcome and every inbox count must agree.
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
  | { kind: 'claim'; agent: string; n: number; order: 'oldest' | 'newest' }
  | { kind: 'ack'; pick: number; asOther: boolean; otherMessage: boolean; forged: boolean }
  | { kind: 'advance'; ms: number };

interface ModelDelivery {
  state: 'unread' | 'leased' | 'read';
  claimTok: string | null;
  exp: number | null;
  replaced: string[];
  ackTok: string | null;
  ackDeadline: number | null;
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

  constructor(readonly max: number) {}

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
      delivery: { state: 'unread', claimTok: null, exp: null, replaced: [], ackTok: null, ackDeadline: null },
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

  claim(agent: string, n: number, order: 'oldest' | 'newest', now: number, tokens: string[]) {
    const mine = this.messages.filter(
      (m) =>
        m.sender !== agent &&
        (m.delivery.state === 'unread' || (m.delivery.state === 'leased' && (m.delivery.exp ?? 0) <= now)),
    );
    if (order === 'newest') mine.reverse();
    return mine.slice(0, n).map((m, i) => {
      const d = m.delivery;
      if (d.claimTok) d.replaced = [d.claimTok, ...d.replaced].slice(0, REPLACED_KEPT);
      d.state = 'leased';
      d.claimTok = tokens[i]!;
      d.exp = now + CLAIM_MS;
      return { id: m.id, token: tokens[i]! };
    });
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
    return {
      unread: unread.length,
      claimable: unread.length - leased,
      leased,
      parked: 0,
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
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      ms: fc.constantFrom(1, 30_000, 59_999, CLAIM_MS, CLAIM_MS, 2 * CLAIM_MS),
    }),
  },
);

async function runAgainstStore(max: number, ops: Op[]): Promise<void> {
  const channelId = await dmChannelId(A, B);
  const stub = env.CHANNEL.get(env.CHANNEL.newUniqueId());
  await runInDurableObject(stub, (_instance, state) => {
    const store = new ChannelStore(drizzle(state.storage, { schema }));
    const model = new Model(max);
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
        const real =
          store.claim(
            op.agent,
            tokens.map((token) => ({ token, hash: `h:${token}` })),
            op.order,
            now,
            CLAIM_MS,
          ) ?? [];
        const expected = model.claim(op.agent, op.n, op.order, now, tokens);
        expect(
          real.map((c) => ({ id: c.message.message_id, token: c.claim_token })),
          where,
        ).toEqual(expected);
        for (const c of expected) issued.push({ ...c, owner: op.agent });
      } else {
        if (issued.length === 0) continue;
        const base = issued[op.pick % issued.length]!;
        const agent = op.asOther ? other(base.owner) : base.owner;
        const target = op.otherMessage ? (issued[(op.pick + 1) % issued.length]!.id ?? base.id) : base.id;
        const token = op.forged ? `forged${op.pick}` : base.token;
        const [real] = store.ack(agent, [{ message_id: target, tokenHash: `h:${token}` }], now);
        const expected = model.ack(agent, target, token, now);
        expect(real!.status === 'rejected' ? real!.code : real!.status, where).toBe(expected);
      }
      for (const agent of [A, B])
        expect(store.counts(agent, now), `${where}, counts of ${agent}`).toEqual(model.counts(agent, now));
    }
    const history = (store.history(A, null, 1_000, 'asc')?.messages ?? []).map((m) => [m.seq, m.sender_id, m.body]);
    expect(history).toEqual(model.messages.map((m) => [m.seq, m.sender, m.body]));
  });
}

describe('channel store against a reference model', () => {
  it('agrees on every send, claim, ACK and count under retention and expiry', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 5 }), fc.array(opArb, { minLength: 1, maxLength: 60 }), (max, ops) =>
        runAgainstStore(max, ops),
      ),
      { numRuns: 400 },
    );
  }, 120_000);
});
