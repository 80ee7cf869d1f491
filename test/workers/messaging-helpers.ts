import { expect } from 'vitest';
import { adminCookie, type Call, call, createAgent, createHost } from './helpers.js';
import { env } from './test-env.js';

export interface TestAgent {
  id: string;
  key: string;
}

/** An administrator, one host and `n` agents on it. */
export async function world(n: number): Promise<{ cookie: string; agents: TestAgent[] }> {
  const cookie = await adminCookie();
  const host = await createHost(cookie, ['10.0.0.1']);
  const agents: TestAgent[] = [];
  for (let i = 0; i < n; i += 25) {
    const batch = Array.from({ length: Math.min(25, n - i) }, (_, k) =>
      createAgent(cookie, host.host_id, `agent-${i + k}`),
    );
    for (const { agent, key } of await Promise.all(batch)) agents.push({ id: agent.agent_id, key });
  }
  return { cookie, agents };
}

export async function setLimits(cookie: string, limits: Record<string, number>): Promise<void> {
  const res = await call('PATCH', '/admin/settings', { cookie, body: limits });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

export async function send(from: TestAgent, to: TestAgent[] | string[], body: string): Promise<Call> {
  const ids = to.map((t) => (typeof t === 'string' ? t : t.id));
  return call('POST', '/messages/direct', { key: from.key, body: { to_agent_ids: ids, body } });
}

/** Sends one message and returns its ID and channel, failing the test on anything but `sent`. */
export async function sendOne(
  from: TestAgent,
  to: TestAgent,
  body: string,
): Promise<{ message_id: string; channel_id: string }> {
  const res = await send(from, [to], body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.results[0].status).toBe('sent');
  return res.body.results[0];
}

export const inbox = (agent: TestAgent, query = '') => call('GET', `/inbox${query}`, { key: agent.key });
export const claim = (agent: TestAgent, body: Record<string, unknown> = {}) =>
  call('POST', '/inbox/claim', { key: agent.key, body });
export const ack = (agent: TestAgent, acks: { message_id: string; claim_token: string }[]) =>
  call('POST', '/inbox/ack', { key: agent.key, body: { acks } });

/** Shifts one channel's clock (test-only RPC), to pass claim expiry without waiting. */
export async function shiftChannelClock(channelId: string, ms: number): Promise<void> {
  await env.CHANNEL.get(env.CHANNEL.idFromName(channelId)).setClockOffset(ms);
}

/** How many channel Durable Object calls the request made (reported by the test worker, test-worker.ts). */
export function channelCalls(res: Call): number {
  const header = res.headers.get('x-switchboard-channel-calls');
  expect(header, 'the channel-call counter header').not.toBeNull();
  return Number(header);
}
