/**
 * Issue 10, item 2: a refused request creates no Durable Object. A key this server did not issue
 * (unknown agent, wrong secret) is refused before any object is opened, and a channel or group the
 * agent was never in is answered without opening its object. `listDurableObjectIds` lists every
 * object that has storage, so an unchanged list proves nothing was created. The e2e test
 * (test/e2e/storage-growth.test.ts) proves the same on the launcher's data directory.
 */
import { env, listDurableObjectIds, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { newFileId } from '../../core/domain/file-id.js';
import { dmChannelId, newMessageId } from '../../core/domain/ids.js';
import { hasValidTag, parseApiKey, storedKeyHash } from '../../core/lib/api-key.js';
import { randomToken } from '../../core/lib/crypto.js';
import { forgetLegacyKeyAgents } from '../../worker/lib/legacy-keys.js';
import { adminCookie, call, createAgent, createHost } from './helpers.js';

const PEPPER = 'test-pepper-0123456789abcdef';
const randomAgentId = () => `agt_${randomToken(16)}`;
async function ids<T extends Rpc.DurableObjectBranded | undefined>(ns: DurableObjectNamespace<T>): Promise<string[]> {
  return (await listDurableObjectIds(ns)).map((id) => id.toString()).sort();
}

async function setup() {
  const cookie = await adminCookie();
  const host = await createHost(cookie, ['10.0.0.1']);
  const a = await createAgent(cookie, host.host_id);
  const b = await createAgent(cookie, host.host_id);
  return { cookie, host, a, b };
}

describe('the measure', () => {
  it('sees a Durable Object that only answered a read (the control: what the gates avoid)', async () => {
    const before = await ids(env.CHANNEL);
    expect(await env.CHANNEL.get(env.CHANNEL.idFromName(`grp_${randomToken(16)}`)).counts(randomAgentId())).toBeNull();
    expect((await ids(env.CHANNEL)).length).toBe(before.length + 1);
  });
});

describe('API key tags', () => {
  it('issues keys in the old shape whose tag verifies, and only for their own agent', async () => {
    const { a, b } = await setup();
    expect(a.key).toMatch(/^sbk_agt_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(await hasValidTag(PEPPER, parseApiKey(a.key))).toBe(true);
    const secret = a.key.split('.')[1]!;
    expect(await hasValidTag(PEPPER, parseApiKey(`sbk_${b.agent.agent_id}.${secret}`))).toBe(false);
    expect(await hasValidTag('another-pepper-0123456789', parseApiKey(a.key))).toBe(false);
    expect(await hasValidTag(PEPPER, parseApiKey(`sbk_${a.agent.agent_id}.${randomToken(32)}`))).toBe(false);
    expect(await hasValidTag(PEPPER, null)).toBe(false);
  });

  it('refuses unknown agents and wrong secrets without creating any Durable Object', async () => {
    const { a } = await setup();
    const before = await ids(env.AGENT);
    const forged = [
      ...Array.from({ length: 10 }, () => `sbk_${randomAgentId()}.${randomToken(32)}`),
      ...Array.from({ length: 10 }, () => `sbk_${a.agent.agent_id}.${randomToken(32)}`),
      `sbk_${randomAgentId()}.${a.key.split('.')[1]}`,
      'sbk_agt_x.short',
    ];
    for (const key of forged) {
      const res = await call('GET', '/me', { key });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthenticated');
    }
    expect(await ids(env.AGENT)).toEqual(before);
    expect((await call('GET', '/me', { key: a.key })).status).toBe(200);
  });

  it('keeps keys issued before tags working until they are regenerated', async () => {
    const { cookie, a } = await setup();
    // A key of the old kind: 32 random bytes, stored as the plain keyed hash.
    const legacyKey = `sbk_${a.agent.agent_id}.${randomToken(32)}`;
    const legacyHash = await storedKeyHash(PEPPER, legacyKey, false);
    const registry = env.REGISTRY.get(env.REGISTRY.idFromName('registry'));
    await runInDurableObject(registry, (_instance, state) => {
      state.storage.sql.exec('update agents set key_hash = ? where agent_id = ?', legacyHash, a.agent.agent_id);
    });
    const agentObject = env.AGENT.get(env.AGENT.idFromName(a.agent.agent_id));
    // The agent's object answers from its in-memory copy of the account: both are changed.
    await runInDurableObject(agentObject, (instance, state) => {
      state.storage.sql.exec('update account set key_hash = ?', legacyHash);
      (instance as unknown as { account: { keyHash: string } }).account.keyHash = legacyHash;
    });
    forgetLegacyKeyAgents();

    expect(await registry.legacyKeyAgents()).toEqual([a.agent.agent_id]);
    expect((await call('GET', '/me', { key: legacyKey })).status).toBe(200);
    expect((await call('GET', '/me', { key: a.key })).status).toBe(401);
    expect((await call('GET', '/me', { key: `sbk_${a.agent.agent_id}.${randomToken(32)}` })).status).toBe(401);

    const regenerated = await call('POST', `/admin/agents/${a.agent.agent_id}/key`, { cookie });
    expect(regenerated.status).toBe(200);
    // The legacy key fails at once (the agent's object holds the live hash), whatever the cache says.
    expect((await call('GET', '/me', { key: legacyKey })).status).toBe(401);
    expect((await call('GET', '/me', { key: regenerated.body.api_key })).status).toBe(200);
    expect(await registry.legacyKeyAgents()).toEqual([]);
  });
});

describe('channel and group IDs an agent was never in', () => {
  it('are answered as a stranger would be, and no channel object is created', async () => {
    const { a, b } = await setup();
    // One real channel, so the gate is shown to let known channels through.
    const sent = await call('POST', '/messages/direct', {
      key: a.key,
      body: { to_agent_ids: [b.agent.agent_id], body: 'hello' },
    });
    expect(sent.status).toBe(200);
    const known = sent.body.results[0].channel_id as string;
    const before = await ids(env.CHANNEL);

    const strangerDm = await dmChannelId(b.agent.agent_id, randomAgentId());
    const grp = `grp_${randomToken(16)}`;
    const expectations: [string, string, unknown, number, string][] = [];
    for (const channel of [strangerDm, grp]) {
      expectations.push(
        ['GET', `/channels/${channel}/messages`, undefined, 404, 'not_found'],
        ['GET', `/channels/${channel}/files`, undefined, 404, 'not_found'],
        ['GET', `/inbox?channel_id=${channel}`, undefined, 404, 'not_found'],
        ['POST', '/inbox/claim', { channel_id: channel }, 404, 'not_found'],
        ['GET', `/files/${newFileId(channel)}/content`, undefined, 404, 'not_found'],
      );
    }
    expectations.push(
      ['GET', `/groups/${grp}`, undefined, 404, 'not_found'],
      ['POST', `/groups/${grp}/invitations`, { agent_ids: [b.agent.agent_id] }, 404, 'not_found'],
      ['POST', `/groups/${grp}/join`, undefined, 403, 'not_invited'],
      ['POST', `/groups/${grp}/leave`, undefined, 404, 'not_found'],
      ['POST', `/groups/${grp}/messages`, { body: 'hi' }, 404, 'not_found'],
    );
    for (const [method, path, body, status, code] of expectations) {
      const res = await call(method, path, { key: a.key, body });
      expect([path, res.status, res.body?.error?.code]).toEqual([path, status, code]);
      expect(res.body.error.message).not.toMatch(/^No route/); // the route exists: its handler refused
    }
    const acks = await call('POST', '/inbox/ack', {
      key: a.key,
      body: {
        acks: [strangerDm, grp].map((ch) => ({
          message_id: newMessageId(ch),
          claim_token: randomToken(32),
        })),
      },
    });
    expect(acks.status).toBe(200);
    expect(acks.body.results.map((r: { error?: { code: string } }) => r.error?.code)).toEqual([
      'not_found',
      'not_found',
    ]);
    expect(await ids(env.CHANNEL)).toEqual(before);

    // The channel the agent is in still answers.
    expect((await call('GET', `/channels/${known}/messages`, { key: a.key })).status).toBe(200);
    expect((await call('GET', `/channels/${known}/files`, { key: a.key })).status).toBe(200);
  });
});

describe('admin routes that take a channel or group ID', () => {
  it('refuse IDs the channel catalog does not know without creating a channel object', async () => {
    const { cookie, a } = await setup();
    const before = await ids(env.CHANNEL);
    const grp = `grp_${randomToken(16)}`;
    const dm = await dmChannelId(a.agent.agent_id, randomAgentId());
    for (const [method, path, body] of [
      ['GET', `/admin/channels/${dm}/messages`, undefined],
      ['GET', `/admin/channels/${grp}/messages`, undefined],
      ['POST', `/admin/groups/${grp}/owner`, { agent_id: a.agent.agent_id }],
      ['DELETE', `/admin/groups/${grp}`, undefined],
    ] as const) {
      const res = await call(method, path, { cookie, body });
      expect([path, res.status, res.body?.error?.code]).toEqual([path, 404, 'not_found']);
      expect(res.body.error.message).not.toMatch(/^No route/); // the route exists: its handler refused
    }
    expect(await ids(env.CHANNEL)).toEqual(before);
  });
});
