/**
 * Lease controls over HTTP (api-v1.md, "Lease controls"): extend, release, delivery_count and
 * parking under max_deliveries, with the inbox counts and the administrator's agent page.
 */
import { describe, expect, it } from 'vitest';
import { call } from './helpers.js';
import { claim, inbox, sendOne, setLimits, shiftChannelClock, world } from './messaging-helpers.js';

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
});
