/**
 * The messaging engine under real concurrency: the launcher, real sockets, parallel requests.
 * Dedup, claim exclusivity and ACK token validity must hold whatever the interleaving.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResponse, adminLogin, api, createAgent, createHost, type Server, startServer } from './harness.js';

let server: Server;
let cookie: string;
let hostId: string;

beforeAll(async () => {
  server = await startServer();
  cookie = await adminLogin(server);
  hostId = (await createHost(server, cookie, ['127.0.0.1'])).host_id;
});

afterAll(async () => {
  await server?.stop();
});

async function agent(): Promise<{ id: string; key: string }> {
  const { agent, key } = await createAgent(server, cookie, hostId);
  return { id: agent.agent_id, key };
}

function ok(res: ApiResponse): any {
  expect(res.status, res.text).toBe(200);
  return res.body;
}

const send = (from: { key: string }, to: { id: string }, body: string) =>
  api(server, 'POST', '/messages/direct', { key: from.key, body: { to_agent_ids: [to.id], body } });
const claim = (who: { key: string }, body: Record<string, unknown> = {}) =>
  api(server, 'POST', '/inbox/claim', { key: who.key, body });
const ack = (who: { key: string }, acks: { message_id: string; claim_token: string }[]) =>
  api(server, 'POST', '/inbox/ack', { key: who.key, body: { acks } });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('messaging under concurrency', () => {
  it('turns 20 identical concurrent sends into exactly one message', async () => {
    const [a, b] = [await agent(), await agent()];
    const answers = await Promise.all(Array.from({ length: 20 }, () => send(a, b, 'the same words')));
    const results = answers.map((res) => ok(res).results[0]);
    expect(results.filter((r) => r.status === 'sent')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'duplicate')).toHaveLength(19);
    expect(new Set(results.map((r) => r.message_id)).size).toBe(1);
    const inbox = ok(await api(server, 'GET', '/inbox', { key: b.key }));
    expect(inbox.unread).toBe(1);
  });

  it('leases each of 5 messages to exactly one of 10 concurrent claimers', async () => {
    const [a, b] = [await agent(), await agent()];
    const sent = [];
    for (let i = 0; i < 5; i++) sent.push(ok(await send(a, b, `job ${i}`)).results[0].message_id);
    // Ten sessions of one account compete; some ask for more than one.
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => claim(b, { limit: 1 + (i % 3) })));
    const claimed = answers.flatMap((res) => ok(res).claims.map((c: any) => c.message.message_id));
    expect(claimed).toHaveLength(5);
    expect(new Set(claimed)).toEqual(new Set(sent));
    expect(ok(await claim(b, { limit: 10 })).claims).toEqual([]);
    const inbox = ok(await api(server, 'GET', '/inbox', { key: b.key }));
    expect(inbox).toMatchObject({ unread: 5, claimable: 0, leased: 5 });
  });

  it('never accepts an ACK with a stale token, whatever the interleaving', async () => {
    const [a, b] = [await agent(), await agent()];
    expect((await api(server, 'PATCH', '/admin/settings', { cookie, body: { claim_seconds: 1 } })).status).toBe(200);
    try {
      for (let i = 0; i < 5; i++) ok(await send(a, b, `work ${i}`));
      const first = ok(await claim(b, { limit: 5 })).claims as any[];
      expect(first).toHaveLength(5);
      await sleep(1_200); // every first claim has expired

      // Stale ACKs race a new claim of the same messages: each must fail, expired or replaced.
      const stale = (claims: any[]) =>
        claims.map((c) => ({ message_id: c.message.message_id, claim_token: c.claim_token }));
      const [before, reclaim, after] = await Promise.all([
        ack(b, stale(first)),
        claim(b, { limit: 5 }),
        ack(b, stale(first)),
      ]);
      const second = ok(reclaim).claims as any[];
      expect(second).toHaveLength(5);
      for (const result of [...ok(before).results, ...ok(after).results]) {
        expect(result.status).toBe('rejected');
        expect(['claim_expired', 'claim_replaced']).toContain(result.error.code);
      }
      expect(ok(await ack(b, stale(first))).results.map((r: any) => r.error.code)).toEqual(
        Array(5).fill('claim_replaced'),
      );

      // Ten concurrent ACKs with the valid token: one read, the rest already_read; never two reads.
      const current = stale(second);
      const racing = await Promise.all(Array.from({ length: 10 }, () => ack(b, current)));
      for (let m = 0; m < 5; m++) {
        const statuses = racing.map((res) => ok(res).results[m].status);
        expect(statuses.filter((s) => s === 'read')).toHaveLength(1);
        expect(statuses.filter((s) => s === 'already_read')).toHaveLength(9);
      }
      await sleep(1_200); // past the accepted claim's deadline: the token is refused, the message stays read
      expect(ok(await ack(b, current)).results.map((r: any) => r.error?.code)).toEqual(Array(5).fill('claim_expired'));
      expect(ok(await api(server, 'GET', '/inbox', { key: b.key })).unread).toBe(0);
      expect(ok(await claim(b, { limit: 5 })).claims).toEqual([]);
    } finally {
      await api(server, 'PATCH', '/admin/settings', { cookie, body: { claim_seconds: 60 } });
    }
  });
});
