import { env, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it, vi } from 'vitest';
import { SESSION_IDLE_MS } from '../../core/domain/admin-session.js';
import { ADMIN, adminCookie, call, createAgent, createHost } from './helpers.js';

const registry = () => env.REGISTRY.get(env.REGISTRY.idFromName('registry'));

describe('administrator sessions', () => {
  it('sets a hardened cookie, renews the session ID at login, and ends it at logout', async () => {
    await registry().bootstrapAdmin(ADMIN.username, ADMIN.password);
    const first = await call('POST', '/admin/login', { body: ADMIN });
    const setCookie = first.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Strict/i);
    expect(setCookie).toMatch(/Secure/i); // the test origin is https
    const cookie = setCookie.split(';')[0] as string;
    const second = (await call('POST', '/admin/login', { body: ADMIN })).headers.get('set-cookie')?.split(';')[0];
    expect(second).not.toBe(cookie);

    expect((await call('GET', '/admin/session', { cookie })).body.username).toBe(ADMIN.username);
    expect((await call('POST', '/admin/logout', { cookie })).status).toBe(200);
    expect((await call('GET', '/admin/session', { cookie })).status).toBe(401);
    expect((await call('GET', '/admin/session', { cookie: second })).status).toBe(200);
  });

  it('expires idle sessions', async () => {
    const cookie = await adminCookie();
    await runInDurableObject(registry(), async (_instance, state) => {
      state.storage.sql.exec('UPDATE admin_sessions SET last_seen_at = ?', Date.now() - SESSION_IDLE_MS - 1);
    });
    expect((await call('GET', '/admin/session', { cookie })).status).toBe(401);
  });

  it('throttles repeated failed sign-ins with a retry hint', async () => {
    await registry().bootstrapAdmin(ADMIN.username, ADMIN.password);
    for (let i = 0; i < 5; i++) {
      const res = await call('POST', '/admin/login', { body: { ...ADMIN, password: 'wrong password' } });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthenticated');
    }
    const throttled = await call('POST', '/admin/login', { body: ADMIN });
    expect(throttled.status).toBe(429);
    expect(throttled.body.error.code).toBe('too_many_attempts');
    expect(throttled.body.error.retry_after_ms).toBeGreaterThan(0);
    expect(throttled.headers.get('retry-after')).toBeTruthy();
  });

  it('refuses state changes from a foreign Origin and admin routes to agent keys', async () => {
    const cookie = await adminCookie();
    const foreign = await call('POST', '/admin/hosts', {
      cookie,
      headers: { origin: 'https://evil.example' },
      body: { name: 'h', addresses: ['10.0.0.1'] },
    });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.code).toBe('forbidden');
    const same = await call('POST', '/admin/hosts', {
      cookie,
      headers: { origin: 'https://switchboard.test' },
      body: { name: 'h', addresses: ['10.0.0.1'] },
    });
    expect(same.status).toBe(201);
    expect((await call('GET', '/admin/hosts', { cookie })).body.hosts).toHaveLength(1);

    const { key } = await createAgent(cookie, same.body.host.host_id);
    const asAgent = await call('GET', '/admin/agents', { key });
    expect(asAgent.status).toBe(401);
  });

  it('lists hosts with the number of agents on each, counted by the server', async () => {
    const cookie = await adminCookie();
    const busy = await createHost(cookie, ['10.0.0.1'], 'busy');
    const idle = await createHost(cookie, ['10.0.0.2'], 'idle');
    for (let i = 0; i < 3; i++) await createAgent(cookie, busy.host_id);
    const listed = await call('GET', '/admin/hosts', { cookie });
    expect(listed.body.agent_counts).toEqual({ [busy.host_id]: 3, [idle.host_id]: 0 });
    // Each page counts its own hosts only.
    const first = await call('GET', '/admin/hosts?limit=1', { cookie });
    expect(first.body.agent_counts).toEqual({ [busy.host_id]: 3 });
  });

  it('creates the first administrator once with the setup token', async () => {
    expect((await call('GET', '/admin/setup')).body).toEqual({ needs_setup: true });
    const token = await registry().issueSetupToken();
    expect(token).toBeTruthy();
    const wrong = await call('POST', '/admin/setup', {
      body: { token: 'wrong', username: 'root', password: 'long enough password' },
    });
    expect(wrong.status).toBe(401);
    const short = await call('POST', '/admin/setup', { body: { token, username: 'root', password: 'short' } });
    expect(short.status).toBe(400);
    expect(short.body.error.field).toBe('password');
    const ok = await call('POST', '/admin/setup', {
      body: { token, username: 'root', password: 'long enough password' },
    });
    expect(ok.status).toBe(201);
    expect(ok.headers.get('set-cookie')).toMatch(/switchboard_session=/);
    const again = await call('POST', '/admin/setup', {
      body: { token, username: 'x', password: 'long enough password' },
    });
    expect(again.status).toBe(409);
    expect((await call('GET', '/admin/setup')).body).toEqual({ needs_setup: false });
    expect(await registry().issueSetupToken()).toBeNull();
  });
});

describe('first-run setup on Cloudflare', () => {
  it('accepts the SETUP_TOKEN secret once, while no administrator exists', async () => {
    const body = { token: 'cloudflare-setup-token-42', username: 'ops', password: 'long enough password' };
    expect((await call('POST', '/admin/setup', { body: { ...body, token: 'cloudflare-setup-token-4' } })).status).toBe(
      401,
    );
    expect((await call('POST', '/admin/setup', { body })).status).toBe(201);
    expect((await call('POST', '/admin/setup', { body })).status).toBe(409);
    expect((await call('POST', '/admin/login', { body: { username: 'ops', password: body.password } })).status).toBe(
      200,
    );
  });
});

describe('settings', () => {
  it('starts from the proposed defaults and bumps the revision on change', async () => {
    const cookie = await adminCookie();
    const before = await call('GET', '/admin/settings', { cookie });
    expect(before.body.settings.claim_seconds).toBe(60);
    expect(before.body.settings.max_file_bytes).toBe(50_000_000);
    expect(before.body.cleanup.state).toBe('idle');
    const changed = await call('PATCH', '/admin/settings', { cookie, body: { claim_seconds: 30 } });
    expect(changed.status).toBe(200);
    expect(changed.body.settings.claim_seconds).toBe(30);
    expect(changed.body.settings_revision).toBe(before.body.settings_revision + 1);

    const host = await createHost(cookie, ['10.0.0.1']);
    const { key } = await createAgent(cookie, host.host_id);
    const limits = await call('GET', '/limits', { key });
    expect(limits.body.limits.claim_seconds).toBe(30);
    expect(limits.body.settings_revision).toBe(changed.body.settings_revision);
    expect(Object.keys(limits.body.semantics)).toEqual(
      expect.arrayContaining(['deduplication', 'retention', 'message_file_coupling', 'claims', 'ack']),
    );
  });

  it('validates every setting and changes nothing on error', async () => {
    const cookie = await adminCookie();
    const before = await call('GET', '/admin/settings', { cookie });
    for (const body of [
      { claim_seconds: 0 },
      { claim_seconds: 86_401 },
      { max_file_bytes: -1 },
      { max_messages_per_channel: 1.5 },
      { max_recipients: '10' },
      { unknown_setting: 1 },
      {},
    ]) {
      const res = await call('PATCH', '/admin/settings', { cookie, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
    }
    expect((await call('GET', '/admin/settings', { cookie })).body).toEqual(before.body);
  });
});

describe('hosts, agents and the directory', () => {
  it('lists only enabled agents with host metadata, filtered and paged', async () => {
    const cookie = await adminCookie();
    const alpha = await createHost(cookie, ['10.0.0.1'], 'alpha');
    const beta = await createHost(cookie, ['10.0.0.2'], 'beta');
    const me = await createAgent(cookie, alpha.host_id, 'caller');
    for (const name of ['codex', 'claude', 'qwen']) await createAgent(cookie, beta.host_id, name);
    const off = await createAgent(cookie, beta.host_id, 'retired');
    await call('PATCH', `/admin/agents/${off.agent.agent_id}`, { cookie, body: { enabled: false } });

    // The caller's last access reaches the registry after the answer (its agent object records it in
    // the background), so the directory shows it once that write has landed.
    const all = await vi.waitFor(async () => {
      const res = await call('GET', '/directory', { key: me.key });
      expect(res.body.agents[0].last_access_at).not.toBeNull();
      return res;
    });
    expect(all.body.agents.map((a: { name: string }) => a.name)).toEqual(['caller', 'claude', 'codex', 'qwen']);
    expect(all.body.agents[1].host).toEqual({ host_id: beta.host_id, name: 'beta', os: 'linux' });
    expect(all.body.agents[0].last_access_at).not.toBeNull();
    expect(all.body.agents[1].last_access_at).toBeNull();

    const byHost = await call('GET', `/directory?host_id=${beta.host_id}&name=c`, { key: me.key });
    expect(byHost.body.agents.map((a: { name: string }) => a.name)).toEqual(['claude', 'codex']);

    const names: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { agents: { name: string }[]; next_cursor: string | null } } = await call(
        'GET',
        `/directory?limit=1${cursor ? `&cursor=${cursor}` : ''}`,
        { key: me.key },
      );
      names.push(...page.body.agents.map((a) => a.name));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(names).toEqual(['caller', 'claude', 'codex', 'qwen']);
    expect((await call('GET', '/directory?cursor=garbage', { key: me.key })).body.error.field).toBe('cursor');
  });

  it('pages hosts whose names are outside Latin-1 (the cursor holds the name)', async () => {
    const cookie = await adminCookie();
    const names = ['北京 build box', 'Zoë 🚀', 'москва'];
    for (const [i, name] of names.entries()) await createHost(cookie, [`10.7.0.${i + 1}`], name);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: { hosts: { name: string }[]; next_cursor: string | null } } = await call(
        'GET',
        `/admin/hosts?limit=1${cursor ? `&cursor=${cursor}` : ''}`,
        { cookie },
      );
      expect(page.status).toBe(200);
      seen.push(...page.body.hosts.map((h) => h.name));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen.filter((name) => names.includes(name)).sort()).toEqual([...names].sort());
  });

  it('keeps names unique per host and refuses to delete a host in use', async () => {
    const cookie = await adminCookie();
    const host = await createHost(cookie, ['10.0.0.1']);
    await createAgent(cookie, host.host_id, 'dup');
    const clash = await call('POST', '/admin/agents', { cookie, body: { name: 'dup', host_id: host.host_id } });
    expect(clash.status).toBe(409);
    const missingHost = await call('POST', '/admin/agents', { cookie, body: { name: 'x', host_id: 'hst_missing' } });
    expect(missingHost.status).toBe(404);
    expect((await call('DELETE', `/admin/hosts/${host.host_id}`, { cookie })).status).toBe(409);
    const empty = await createHost(cookie, ['10.0.0.9']);
    expect((await call('DELETE', `/admin/hosts/${empty.host_id}`, { cookie })).status).toBe(200);
    expect((await call('DELETE', `/admin/hosts/${empty.host_id}`, { cookie })).status).toBe(404);
  });
});
