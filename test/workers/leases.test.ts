/**
 * Lease controls over HTTP (api-v1.md, "Lease controls"): extend, release, delivery_count and
 * parking under max_deliveries, with the inbox counts and the administrator's agent page; refused
 * input that leaves the lease as it was; and real parallel requests (claims racing releases,
 * extends and ACKs) checked against the queue's invariants.
 */
import { describe, expect, it } from 'vitest';
import { call } from './helpers.js';
import { ack, claim, inbox, sendOne, setLimits, shiftChannelClock, world } from './messaging-helpers.js';

const extend = (key: string, items: unknown[], seconds?: number) =>
  call('POST', '/inbox/extend', { key, body: { items, ...(seconds !== undefined && { seconds }) } });
const release = (key: string, items: unknown[]) => call('POST', '/inbox/release', { key, body: { items } });

describe('lease controls over HTTP', () => {
  it('extends with the same token, refuses seconds over claim_seconds whole, and releases', async () => {
    const { agents } = await world(2);
    const [a, b] = agents as [any, any];
    const sent = await sendOne(a, b, 'long task');
    const claimed = (await claim(b)).body.claims[0];
    expect(claimed.delivery_count).toBe(1);
    const item = { message_id: claimed.message.message_id, claim_token: claimed.claim_token };

    const over = await extend(b.key, [item], 61);
    expect(over.status).toBe(400);
    expect(over.body.error).toMatchObject({ code: 'validation_failed', field: 'seconds', limit: 60 });
    const extended = await extend(b.key, [item], 30);
    expect(extended.status).toBe(200);
    expect(extended.body.results).toEqual([
      { message_id: item.message_id, status: 'extended', claim_expires_at: expect.any(String) },
    ]);
    const before = Date.parse(extended.body.results[0].claim_expires_at);
    const again = await extend(b.key, [item]);
    expect(Date.parse(again.body.results[0].claim_expires_at)).toBeGreaterThan(before);
    const foreign = await extend(a.key, [item]);
    expect(foreign.body.results[0]).toMatchObject({ status: 'rejected', error: { code: 'not_found' } });

    expect((await release(b.key, [item])).body.results).toEqual([{ message_id: item.message_id, status: 'released' }]);
    expect((await inbox(b)).body).toMatchObject({ unread: 1, claimable: 1, leased: 0, parked: 0 });
    expect((await release(b.key, [item])).body.results[0]).toMatchObject({ error: { code: 'claim_expired' } });
    expect((await extend(b.key, [item])).body.results[0]).toMatchObject({ error: { code: 'claim_expired' } });
    const second = (await claim(b)).body.claims[0];
    expect(second).toMatchObject({ delivery_count: 2, message: { message_id: sent.message_id } });
  });

  it('parks after max_deliveries unACKed claims; parked: true claims it; counts and the admin page show it', async () => {
    const { cookie, agents } = await world(2);
    const [a, b] = agents as [any, any];
    await setLimits(cookie, { max_deliveries: 2 });
    try {
      const sent = await sendOne(a, b, 'poison');
      for (let i = 1; i <= 2; i++) {
        const c = (await claim(b)).body.claims[0];
        expect(c.delivery_count).toBe(i);
        await release(b.key, [{ message_id: c.message.message_id, claim_token: c.claim_token }]);
      }
      expect((await claim(b)).body.claims).toEqual([]);
      const box = (await inbox(b)).body;
      expect(box).toMatchObject({ unread: 1, claimable: 0, leased: 0, parked: 1 });
      expect(box.channels[0]).toMatchObject({ channel_id: sent.channel_id, parked: 1 });
      const page = await call('GET', `/admin/agents/${b.id}`, { cookie });
      expect(page.body.inbox).toMatchObject({ parked: 1 });
      expect(page.body.channels[0]).toMatchObject({ parked: 1 });

      const parked = (await claim(b, { parked: true })).body.claims[0];
      expect(parked).toMatchObject({ delivery_count: 3, message: { message_id: sent.message_id } });
      // An unACKed end parks it again (expiry here).
      await shiftChannelClock(sent.channel_id, 61_000);
      expect((await inbox(b)).body).toMatchObject({ parked: 1, claimable: 0 });
      const last = (await claim(b, { parked: true })).body.claims[0];
      const acked = await call('POST', '/inbox/ack', {
        key: b.key,
        body: { acks: [{ message_id: last.message.message_id, claim_token: last.claim_token }] },
      });
      expect(acked.body.results[0].status).toBe('read');
      expect((await inbox(b)).body).toMatchObject({ unread: 0, parked: 0 });
    } finally {
      await setLimits(cookie, { max_deliveries: 0 });
    }
  });

  it('refuses a malformed ID per field and a foreign or stale token per item, leaving the lease as it was', async () => {
    const { agents } = await world(3);
    const [a, b, c] = agents as [any, any, any];
    await sendOne(a, b, 'keep me');
    const claimed = (await claim(b)).body.claims[0];
    const item = { message_id: claimed.message.message_id, claim_token: claimed.claim_token };
    for (const path of ['/inbox/extend', '/inbox/release']) {
      const bad = await call('POST', path, { key: b.key, body: { items: [item, { ...item, message_id: 'bob' }] } });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatchObject({ code: 'validation_failed', field: 'items.1.message_id' });
      const other = await call('POST', path, { key: c.key, body: { items: [item] } });
      expect(other.body.results[0]).toMatchObject({ status: 'rejected', error: { code: 'not_found' } });
      const forged = await call('POST', path, { key: b.key, body: { items: [{ ...item, claim_token: 'forged' }] } });
      expect(forged.body.results[0]).toMatchObject({ status: 'rejected', error: { code: 'invalid_claim_token' } });
    }
    const badAck = await ack(b, [{ ...item, message_id: 'fil_x' }]);
    expect(badAck.body.error).toMatchObject({ code: 'validation_failed', field: 'acks.0.message_id' });
    // The lease is the one the claim made: still leased, same expiry, and its token still ACKs.
    expect((await inbox(b)).body).toMatchObject({ unread: 1, leased: 1, claimable: 0 });
    const same = await extend(b.key, [item], 60);
    expect(same.body.results[0].status).toBe('extended');
    expect((await ack(b, [item])).body.results[0].status).toBe('read');
  });

  it('keeps one live lease per delivery and true counts under parallel claims, releases, extends and ACKs', async () => {
    const { cookie, agents } = await world(3);
    const [a, c, b] = agents as [any, any, any];
    const MAX = 3;
    await setLimits(cookie, { max_deliveries: MAX });
    try {
      const channels = new Set<string>();
      for (let i = 0; i < 6; i++) {
        channels.add((await sendOne(a, b, `from a ${i}`)).channel_id);
        channels.add((await sendOne(c, b, `from c ${i}`)).channel_id);
      }
      const total = 12;
      const held = new Map<string, string>(); // message_id -> the token of its live lease
      const counts = new Map<string, number>();
      const read = new Set<string>();
      let shift = 0;
      for (let round = 0; round < 6; round++) {
        const leases = [...held.entries()].map(([message_id, claim_token]) => ({ message_id, claim_token }));
        const toRelease = leases.filter((_, i) => i % 3 === 0);
        const toExtend = leases.filter((_, i) => i % 3 === 1);
        const toAck = leases.filter((_, i) => i % 3 === 2).slice(0, 1);
        const [claims, released, extended, acked] = await Promise.all([
          Promise.all([1, 2, 3].map((limit) => claim(b, { limit }))),
          Promise.all(toRelease.map((it) => release(b.key, [it]))),
          Promise.all(toExtend.map((it) => extend(b.key, [it]))),
          Promise.all(toAck.map((it) => ack(b, [it]))),
        ]);
        // Every live token acts: a claim never takes a delivery leased by someone else.
        for (const r of released) expect(r.body.results[0].status, JSON.stringify(r.body)).toBe('released');
        for (const r of extended) expect(r.body.results[0].status, JSON.stringify(r.body)).toBe('extended');
        for (const r of acked) expect(r.body.results[0].status, JSON.stringify(r.body)).toBe('read');
        for (const it of toRelease) held.delete(it.message_id);
        for (const it of toAck) {
          held.delete(it.message_id);
          read.add(it.message_id);
        }
        const taken = claims.flatMap((r) => {
          expect(r.status, JSON.stringify(r.body)).toBe(200);
          return r.body.claims as any[];
        });
        const ids = taken.map((t) => t.message.message_id);
        expect(new Set(ids).size, `round ${round}: one delivery leased twice`).toBe(ids.length);
        for (const t of taken) {
          const id = t.message.message_id;
          expect(held.has(id), `round ${round}: ${id} taken from a live lease`).toBe(false);
          expect(read.has(id)).toBe(false);
          const before = counts.get(id) ?? 0;
          expect(before, `round ${round}: a parked delivery claimed`).toBeLessThan(MAX);
          expect(t.delivery_count).toBe(before + 1);
          counts.set(id, before + 1);
          held.set(id, t.claim_token);
        }
        if (round % 2 === 1) {
          // Every lease expires: a delivery claimed MAX times is parked from now on.
          shift += 61_000;
          await Promise.all([...channels].map((ch) => shiftChannelClock(ch, shift)));
          held.clear();
        }
        const parked = [...counts].filter(([id, n]) => n >= MAX && !held.has(id) && !read.has(id)).length;
        const unread = total - read.size;
        expect((await inbox(b)).body, `round ${round}`).toMatchObject({
          unread,
          leased: held.size,
          parked,
          claimable: unread - held.size - parked,
        });
      }
      expect(Math.max(...counts.values()), 'the rounds reached parking').toBe(MAX);
    } finally {
      await setLimits(cookie, { max_deliveries: 0 });
    }
  });
});
