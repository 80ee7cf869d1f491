import { describe, expect, it } from 'vitest';
import { operationList } from '../../core/contract/index.js';
import { adminCookie, call, createAgent, createHost } from './helpers.js';

// Generated from the registry, so a new state-changing route cannot be forgotten.
const writes = operationList.filter((op) => op.method !== 'get');

describe('cross-origin state changes', () => {
  it('covers every state-changing route, including those without a body', () => {
    const ids = writes.map((op) => op.id);
    for (const id of ['adminLogout', 'regenerateAgentKey', 'revokeAgentKey', 'deleteHost', 'dissolveGroup'])
      expect(ids).toContain(id);
    expect(writes.some((op) => !op.body && !op.upload)).toBe(true);
  });

  for (const origin of ['http://evil.example', 'null', 'https://switchboard.test.evil.example']) {
    it(`refuses every non-GET route from Origin ${origin} with 403 forbidden and changes nothing`, async () => {
      const cookie = await adminCookie();
      const host = await createHost(cookie, ['10.0.0.1']);
      const { agent, key } = await createAgent(cookie, host.host_id);
      const values: Record<string, string> = { agent_id: agent.agent_id, host_id: host.host_id };

      for (const op of writes) {
        const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? `${name}_x`);
        const res = await call(op.method.toUpperCase(), path, {
          cookie,
          key: op.role === 'agent' ? key : undefined,
          headers: { origin },
          // The routes that had no check were those without a body: send none where none is taken.
          ...(op.body && { body: {} }),
        });
        expect({ op: op.id, status: res.status, code: res.body?.error?.code }).toEqual({
          op: op.id,
          status: 403,
          code: 'forbidden',
        });
      }

      // Nothing happened: the session, the host, the agent and its key are all still there.
      expect((await call('GET', '/admin/session', { cookie })).status).toBe(200);
      const hosts = (await call('GET', '/admin/hosts', { cookie })).body.hosts as { host_id: string }[];
      expect(hosts.map((h) => h.host_id)).toEqual([host.host_id]);
      expect((await call('GET', '/me', { key })).status).toBe(200);
    });
  }

  it('still accepts the same origin and clients that send no Origin', async () => {
    const cookie = await adminCookie();
    const host = await createHost(cookie, ['10.0.0.1']);
    const { agent } = await createAgent(cookie, host.host_id);
    const path = `/admin/agents/${agent.agent_id}/key`;
    expect((await call('POST', path, { cookie, headers: { origin: 'https://switchboard.test' } })).status).toBe(200);
    expect((await call('POST', path, { cookie })).status).toBe(200);
    expect(
      (await call('POST', '/admin/logout', { cookie, headers: { origin: 'https://switchboard.test' } })).status,
    ).toBe(200);
  });
});
