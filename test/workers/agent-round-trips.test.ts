/**
 * One call to the agent's object per request on the poll, claim and ACK path: the authentication
 * call also answers the pending channels and the body's channel IDs, and applies the stale hints
 * an earlier poll found (worker/middleware/auth-extras.ts, worker/lib/stale-hints.ts). The counts
 * come from the test worker's AgentDO (test-worker.ts), which counts every request-path method.
 */
import { describe, expect, it } from 'vitest';
import { dmChannelId } from '../../core/domain/ids.js';
import { call } from './helpers.js';
import {
  ack,
  channelCalls,
  claim,
  inbox,
  sendOne,
  shiftChannelClock,
  type TestAgent,
  world,
} from './messaging-helpers.js';
import { env } from './test-env.js';

const agentCalls = (agent: TestAgent) => env.AGENT.get(env.AGENT.idFromName(agent.id)).takeRequestPathCalls();

describe('agent object round trips', () => {
  it('polls, claims across channels and ACKs with one call to the agent each', async () => {
    const { agents } = await world(3);
    const [a, b, c] = agents as [TestAgent, TestAgent, TestAgent];
    await sendOne(a, b, 'from a');
    await sendOne(c, b, 'from c');
    await agentCalls(b);

    const polled = await inbox(b);
    expect(polled.body).toMatchObject({ unread: 2, claimable: 2 });
    expect(await agentCalls(b)).toBe(1);
    expect((await inbox(b, '?kind=group')).body).toMatchObject({ unread: 0, channels: [] });
    expect(await agentCalls(b)).toBe(1);

    const claimed = await claim(b, { limit: 5 });
    expect(claimed.body.claims.map((x: any) => x.message.body)).toEqual(['from a', 'from c']);
    expect(await agentCalls(b)).toBe(1);

    const acked = await ack(
      b,
      claimed.body.claims.map((x: any) => ({ message_id: x.message.message_id, claim_token: x.claim_token })),
    );
    expect(acked.body.results.map((r: any) => r.status)).toEqual(['read', 'read']);
    expect(await agentCalls(b)).toBe(1);

    // Both hints are stale now: this poll asks both channels and leaves their clears for the next call...
    const stale = await inbox(b);
    expect(stale.body.unread).toBe(0);
    expect(channelCalls(stale)).toBe(2);
    expect(await agentCalls(b)).toBe(1);
    // ...which applies them before reading the pending list: no channel is asked again.
    const quiet = await inbox(b);
    expect(channelCalls(quiet)).toBe(0);
    expect(await agentCalls(b)).toBe(1);
    expect(channelCalls(await claim(b, { limit: 5 }))).toBe(0);
    expect(await agentCalls(b)).toBe(1);
  });

  it('checks a claim’s or an ACK’s channels in the authentication call', async () => {
    const { agents } = await world(3);
    const [a, b, c] = agents as [TestAgent, TestAgent, TestAgent];
    const mine = await sendOne(a, b, 'for b');
    const theirs = await sendOne(a, c, 'for c');
    await agentCalls(b);

    const named = await claim(b, { channel_id: mine.channel_id, limit: 1 });
    expect(named.body.claims).toHaveLength(1);
    expect(await agentCalls(b)).toBe(1);

    // A channel b was never in: refused by the index (test/workers/storage-gate.test.ts), with no second call.
    const stranger = await claim(b, { channel_id: theirs.channel_id });
    expect(stranger.status).toBe(404);
    expect(stranger.body.error).toMatchObject({ code: 'not_found', field: 'channel_id' });
    expect(await agentCalls(b)).toBe(1);
    const never = dmChannelId(b.id, `${c.id}x`);
    expect((await claim(b, { channel_id: await never })).status).toBe(404);
    expect(await agentCalls(b)).toBe(1);

    const acked = await ack(b, [
      { message_id: theirs.message_id, claim_token: named.body.claims[0].claim_token },
      { message_id: mine.message_id, claim_token: named.body.claims[0].claim_token },
    ]);
    expect(acked.body.results.map((r: any) => [r.status, r.error?.code])).toEqual([
      ['rejected', 'not_found'],
      ['read', undefined],
    ]);
    expect(channelCalls(acked)).toBe(1);
    expect(await agentCalls(b)).toBe(1);
  });

  it('answers an unauthenticated claim or ACK 401 whatever its body, and a bad body 400 after', async () => {
    const { agents, cookie } = await world(1);
    const [a] = agents as [TestAgent];
    for (const path of ['/inbox/claim', '/inbox/ack']) {
      const invalid = { rawBody: '{"limit": ', headers: { 'content-type': 'application/json' } };
      const bad = await call('POST', path, { key: a.key, ...invalid });
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe('validation_failed');
      const wrongType = await call('POST', path, {
        key: a.key,
        rawBody: '{}',
        headers: { 'content-type': 'text/plain' },
      });
      expect(wrongType.body.error.code).toBe('unsupported_media_type');
    }
    expect((await call('DELETE', `/admin/agents/${a.id}/key`, { cookie })).status).toBe(200);
    await agentCalls(a);
    for (const path of ['/inbox/claim', '/inbox/ack']) {
      for (const options of [
        { rawBody: '{"limit": ', headers: { 'content-type': 'application/json' } },
        { rawBody: '{}', headers: { 'content-type': 'text/plain' } },
        { body: path.endsWith('ack') ? { acks: [] } : { limit: 1 } },
      ]) {
        const res = await call('POST', path, { key: a.key, ...options });
        expect(res.status).toBe(401);
        expect(res.body.error.code).toBe('unauthenticated');
      }
    }
    expect(await agentCalls(a)).toBe(6); // each refused by the agent's object itself: the key was revoked
  });

  it('never loses a hint to a clear left for a later call', async () => {
    const { agents } = await world(2);
    const [a, b] = agents as [TestAgent, TestAgent];
    await sendOne(a, b, 'one');
    const claimed = await claim(b, { limit: 1 });
    await ack(b, [
      { message_id: claimed.body.claims[0].message.message_id, claim_token: claimed.body.claims[0].claim_token },
    ]);
    // Finds the channel empty: the clear waits for b's next call, with the generation this poll read.
    expect((await inbox(b)).body.unread).toBe(0);
    // A message arrives first; its note bumps the generation, so the late clear leaves the hint set.
    await sendOne(a, b, 'two');
    const after = await inbox(b);
    expect(after.body.unread).toBe(1);
    expect(channelCalls(after)).toBe(1);
    expect(channelCalls(await inbox(b))).toBe(1);
  });

  it('lets a claim-only client clear a drained channel, but keeps the hint of a leased delivery', async () => {
    const { agents } = await world(2);
    const [a, b] = agents as [TestAgent, TestAgent];
    const { channel_id } = await sendOne(a, b, 'one');
    const first = await claim(b, { limit: 5 });
    expect(first.body.claims).toHaveLength(1);
    // Leased, not ACKed: nothing claimable, but still unread, so the hint stays.
    expect((await claim(b, { limit: 5 })).body.claims).toEqual([]);
    const again = await claim(b, { limit: 5 });
    expect(again.body.claims).toEqual([]);
    expect(channelCalls(again)).toBe(1);
    // The lease runs out: the same claim finds the delivery again through the hint it kept.
    await shiftChannelClock(channel_id, 61_000);
    const reclaimed = await claim(b, { limit: 5 });
    expect(reclaimed.body.claims.map((x: any) => x.message.body)).toEqual(['one']);
    await ack(b, [
      { message_id: reclaimed.body.claims[0].message.message_id, claim_token: reclaimed.body.claims[0].claim_token },
    ]);
    // Drained: this claim finds nothing unread and leaves the clear for the next call, which asks no channel.
    expect(channelCalls(await claim(b, { limit: 5 }))).toBe(1);
    expect(channelCalls(await claim(b, { limit: 5 }))).toBe(0);
    // And a new message is found at once.
    await sendOne(a, b, 'two');
    expect((await claim(b, { limit: 5 })).body.claims.map((x: any) => x.message.body)).toEqual(['two']);
  });
});
