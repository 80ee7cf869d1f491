import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { REJECTION_ROWS } from '../../durable-objects/agent/rejections.js';
import { adminCookie, call, createAgent, createHost } from './helpers.js';
import { claim, sendOne } from './messaging-helpers.js';
import { env } from './test-env.js';

const agentObject = (agentId: string) => env.AGENT.get(env.AGENT.idFromName(agentId));
const registryObject = () => env.REGISTRY.get(env.REGISTRY.idFromName('registry'));

async function agentView(cookie: string, agentId: string) {
  const res = await call('GET', `/admin/agents/${agentId}`, { cookie });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** Polls until `check` passes: last access and worker-side refusals are written after the answer. */
async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const value = await read();
    if (check(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('condition not met in time');
}

async function rejections(cookie: string, agentId: string) {
  const res = await call('GET', `/admin/agents/${agentId}/rejections`, { cookie });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.rejections as { reason: string; address: string; count: number; first_at: string; last_at: string }[];
}

/** Every text column of an object's tables, to prove no key or part of its secret was kept. */
async function storedText(stub: DurableObjectStub): Promise<string> {
  return runInDurableObject(stub, async (_instance, state) => {
    const tables = state.storage.sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
      .toArray()
      .filter((t) => !/^(sqlite|_cf)_/i.test(t.name));
    return tables.map((t) => JSON.stringify(state.storage.sql.exec(`SELECT * FROM "${t.name}"`).toArray())).join('\n');
  });
}

const secretOf = (key: string) => key.slice(key.indexOf('.') + 1);

describe('key status on the admin agent views', () => {
  it('shows a working key with its prefix and issue time, then revoked, then a new key', async () => {
    const cookie = await adminCookie();
    const host = await createHost(cookie, ['10.0.0.1']);
    const before = Date.now();
    const { agent, key } = await createAgent(cookie, host.host_id);

    const created = (await agentView(cookie, agent.agent_id)).agent;
    expect(created.key_status).toBe('active');
    expect(created.key_prefix).toBe(key.slice(0, key.indexOf('.') + 5));
    expect(Date.parse(created.key_issued_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(created.key_revoked_at).toBeNull();

    expect((await call('DELETE', `/admin/agents/${agent.agent_id}/key`, { cookie })).status).toBe(200);
    const listed = await call('GET', '/admin/agents', { cookie });
    const revoked = listed.body.agents.find((a: { agent_id: string }) => a.agent_id === agent.agent_id);
    expect(revoked).toMatchObject({ key_status: 'revoked', key_prefix: null, key_issued_at: null });
    expect(revoked.key_revoked_at).not.toBeNull();

    const regenerated = await call('POST', `/admin/agents/${agent.agent_id}/key`, { cookie });
    const newKey = regenerated.body.api_key as string;
    const again = (await agentView(cookie, agent.agent_id)).agent;
    expect(again).toMatchObject({ key_status: 'active', key_prefix: newKey.slice(0, newKey.indexOf('.') + 5) });
    expect(again.key_revoked_at).toBeNull();

    // The registry keeps the prefix and a keyed hash, never the key or its secret.
    const stored = await storedText(registryObject());
    expect(stored).not.toContain(secretOf(newKey));
    expect(stored).not.toContain(secretOf(key));
  });

  it('records the source address with the last access', async () => {
    const cookie = await adminCookie();
    const host = await createHost(cookie, ['10.0.0.1', '10.0.0.7']);
    const { agent, key } = await createAgent(cookie, host.host_id);
    expect((await agentView(cookie, agent.agent_id)).agent.last_access_address).toBeNull();
    expect((await call('GET', '/me', { key, ip: '10.0.0.7' })).status).toBe(200);
    const seen = await eventually(
      () => agentView(cookie, agent.agent_id),
      (v) => v.agent.last_access_address !== null,
    );
    expect(seen.agent.last_access_address).toBe('10.0.0.7');
    expect(seen.agent.last_access_at).not.toBeNull();
  });
});

describe('the agent page', () => {
  it('answers not_found for an unknown agent, on both routes', async () => {
    const cookie = await adminCookie();
    for (const path of ['/admin/agents/agt_nobody', '/admin/agents/agt_nobody/rejections']) {
      const res = await call('GET', path, { cookie });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect((await call('GET', '/admin/agents/agt_nobody')).status).toBe(401);
  });

  it('counts inbox depth without claiming, and lists channels with peer names', async () => {
    const cookie = await adminCookie();
    const host = await createHost(cookie, ['10.0.0.1']);
    const a = await createAgent(cookie, host.host_id, 'sender');
    const b = await createAgent(cookie, host.host_id, 'receiver');
    const A = { id: a.agent.agent_id, key: a.key };
    const B = { id: b.agent.agent_id, key: b.key };
    await sendOne(A, B, 'one');
    const { channel_id } = await sendOne(A, B, 'two');

    const page = await agentView(cookie, B.id);
    expect(page.host.host_id).toBe(host.host_id);
    expect(page.inbox).toEqual({ unread: 2, claimable: 2, leased: 0, parked: 0 });
    expect(page.channels).toEqual([
      expect.objectContaining({ channel_id, kind: 'private', peer_agent_id: A.id, peer_name: 'sender', unread: 2 }),
    ]);
    expect(page.channels_total).toBe(1);
    // Looking claimed nothing: the agent still gets both.
    expect((await agentView(cookie, B.id)).inbox.unread).toBe(2);
    const claimed = await claim(B, { limit: 1 });
    expect(claimed.body.claims).toHaveLength(1);
    expect((await agentView(cookie, B.id)).inbox).toEqual({ unread: 2, claimable: 1, leased: 1, parked: 0 });
    expect((await agentView(cookie, A.id)).inbox.unread).toBe(0);
  });
});

describe('recent rejected requests', () => {
  it('records a wrong address, an old key, a forged key and a disabled account, never the key', async () => {
    const cookie = await adminCookie();
    const host = await createHost(cookie, ['10.0.0.1']);
    const { agent, key } = await createAgent(cookie, host.host_id);
    const id = agent.agent_id;

    expect((await call('GET', '/me', { key, ip: '192.0.2.9' })).status).toBe(403);
    const wrongAddress = await eventually(
      () => rejections(cookie, id),
      (r) => r.length > 0,
    );
    expect(wrongAddress).toEqual([
      expect.objectContaining({ reason: 'wrong_address', address: '192.0.2.9', count: 1 }),
    ]);

    // An old key still carries a valid tag, so its refusal comes from the agent's own object.
    const fresh = (await call('POST', `/admin/agents/${id}/key`, { cookie })).body.api_key as string;
    expect((await call('GET', '/me', { key, ip: '10.0.0.3' })).status).toBe(401);
    // A key this server never issued is refused by the worker alone; recorded after the answer.
    const forged = `sbk_${id}.${'A'.repeat(43)}`;
    expect((await call('GET', '/me', { key: forged, ip: '10.0.0.4' })).status).toBe(401);
    const all = await eventually(
      () => rejections(cookie, id),
      (r) => r.length >= 3,
    );
    expect(all).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ reason: 'wrong_key', address: '10.0.0.3' }),
        expect.objectContaining({ reason: 'wrong_key', address: '10.0.0.4' }),
      ]),
    );

    await call('PATCH', `/admin/agents/${id}`, { cookie, body: { enabled: false } });
    expect((await call('GET', '/me', { key: fresh, ip: '10.0.0.1' })).status).toBe(401);
    await call('DELETE', `/admin/agents/${id}/key`, { cookie });
    expect((await call('GET', '/me', { key: fresh, ip: '10.0.0.5' })).status).toBe(401);
    const reasons = (await rejections(cookie, id)).map((r) => `${r.reason}@${r.address}`);
    expect(reasons).toEqual(expect.arrayContaining(['agent_disabled@10.0.0.1', 'key_revoked@10.0.0.5']));

    const stored = await storedText(agentObject(id));
    for (const k of [key, fresh, forged]) expect(stored).not.toContain(secretOf(k));
  });

  it('a flood costs one write per window, merged into one row, and the table stays bounded', async () => {
    const cookie = await adminCookie();
    const host = await createHost(cookie, ['10.0.0.1']);
    const { agent, key } = await createAgent(cookie, host.host_id);
    const stub = agentObject(agent.agent_id);
    const rowsOnDisk = () =>
      runInDurableObject(stub, async (_i, state) =>
        state.storage.sql.exec<{ count: number }>('SELECT count FROM rejections').toArray(),
      );

    for (let i = 0; i < 30; i++) expect((await call('GET', '/me', { key, ip: '192.0.2.1' })).status).toBe(403);
    // The first refusal was written at once; the other 29 wait in memory for the window to end.
    expect(await eventually(rowsOnDisk, (rows) => rows.length === 1)).toEqual([{ count: 1 }]);
    expect(await rejections(cookie, agent.agent_id)).toEqual([
      expect.objectContaining({ reason: 'wrong_address', address: '192.0.2.1', count: 30 }),
    ]);

    for (let i = 0; i < REJECTION_ROWS + 10; i++) {
      await call('GET', '/me', { key, ip: `198.51.100.${i + 1}` });
    }
    const listed = await rejections(cookie, agent.agent_id);
    expect(listed).toHaveLength(REJECTION_ROWS);
    expect((await rowsOnDisk()).length).toBe(REJECTION_ROWS);
  });
});
