import { describe, expect, it } from 'vitest';
import { adminCookie, call, createAgent, createHost } from './helpers.js';

describe('agent authentication', () => {
  it('needs both the key and a host address', async () => {
    const cookie = await adminCookie();
    const host = await createHost(cookie, ['10.0.0.1', '::ffff:10.0.0.2', '2001:db8::1']);
    expect(host.addresses).toEqual(['10.0.0.1', '10.0.0.2', '2001:db8::1']);
    const { agent, key } = await createAgent(cookie, host.host_id);

    const me = await call('GET', '/me', { key, ip: '10.0.0.1' });
    expect(me.status).toBe(200);
    expect(me.body.agent_id).toBe(agent.agent_id);
    expect((await call('GET', '/me', { key, ip: '10.0.0.2' })).status).toBe(200);
    expect((await call('GET', '/me', { key, ip: '::ffff:10.0.0.2' })).status).toBe(200);
    expect((await call('GET', '/me', { key, ip: '2001:DB8:0:0:0:0:0:1' })).status).toBe(200);

    const denied = await call('GET', '/me', { key, ip: '10.0.0.3' });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('source_ip_denied');
  });

  it('answers one uniform 401 for every key failure', async () => {
    const cookie = await adminCookie();
    const host = await createHost(cookie, ['10.0.0.1']);
    const { agent, key } = await createAgent(cookie, host.host_id);
    const bodies = [];
    for (const bad of [
      undefined,
      'nonsense',
      `sbk_${agent.agent_id}.wrongwrongwrongwrongwrong`,
      `sbk_agt_nobody.${key.split('.')[1]}`,
    ]) {
      const res = await call('GET', '/me', { key: bad });
      expect(res.status).toBe(401);
      bodies.push({ code: res.body.error.code, message: res.body.error.message });
    }
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
  });

  it('stops a regenerated, revoked or disabled key at once', async () => {
    const cookie = await adminCookie();
    const host = await createHost(cookie, ['10.0.0.1']);
    const { agent, key } = await createAgent(cookie, host.host_id);
    const regenerated = await call('POST', `/admin/agents/${agent.agent_id}/key`, { cookie });
    expect(regenerated.status).toBe(200);
    const newKey = regenerated.body.api_key as string;
    expect((await call('GET', '/me', { key })).status).toBe(401);
    expect((await call('GET', '/me', { key: newKey })).status).toBe(200);

    await call('PATCH', `/admin/agents/${agent.agent_id}`, { cookie, body: { enabled: false } });
    expect((await call('GET', '/me', { key: newKey })).status).toBe(401);
    const directory = await call('GET', '/directory', { key: (await createAgent(cookie, host.host_id)).key });
    expect(directory.body.agents.map((a: { agent_id: string }) => a.agent_id)).not.toContain(agent.agent_id);

    await call('PATCH', `/admin/agents/${agent.agent_id}`, { cookie, body: { enabled: true } });
    expect((await call('GET', '/me', { key: newKey })).status).toBe(200);
    expect((await call('DELETE', `/admin/agents/${agent.agent_id}/key`, { cookie })).status).toBe(200);
    expect((await call('GET', '/me', { key: newKey })).status).toBe(401);
  });

  it('applies changed host addresses at once', async () => {
    const cookie = await adminCookie();
    const host = await createHost(cookie, ['10.0.0.1']);
    const { key } = await createAgent(cookie, host.host_id);
    expect((await call('GET', '/me', { key, ip: '10.9.9.9' })).status).toBe(403);
    await call('PATCH', `/admin/hosts/${host.host_id}`, { cookie, body: { addresses: ['10.9.9.9'] } });
    expect((await call('GET', '/me', { key, ip: '10.9.9.9' })).status).toBe(200);
    expect((await call('GET', '/me', { key, ip: '10.0.0.1' })).status).toBe(403);
  });
});
