import { env, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { operationList } from '../../core/contract/index.js';
import { AUDIT_MAX_AGE_MS, AUDIT_MAX_ENTRIES, AuditLog } from '../../durable-objects/registry/audit-log.js';
import type { RegistryDb } from '../../durable-objects/registry/database.js';
import { ADMIN, adminCookie, call, createAgent, createHost } from './helpers.js';

const registry = () => env.REGISTRY.get(env.REGISTRY.idFromName('registry'));

async function auditRows(): Promise<Record<string, unknown>[]> {
  return runInDurableObject(registry(), async (_instance, state) =>
    state.storage.sql.exec('SELECT * FROM audit_log ORDER BY id').toArray(),
  );
}

async function audit(cookie: string, query = '') {
  const res = await call('GET', `/admin/audit${query}`, { cookie });
  expect(res.status).toBe(200);
  return res.body as { entries: Record<string, any>[]; next_cursor: string | null };
}

/** A syntactically valid placeholder for each path parameter of an admin route. */
const PLACEHOLDER: Record<string, string> = {
  host_id: 'hst_0000000000000000',
  agent_id: 'agt_0000000000000000',
  group_id: 'grp_0000000000000000',
  channel_id: 'dm_0000000000000000',
  username: 'nobody',
  session_id: 'ses_000000000000000000000000',
};

describe('audit log', () => {
  // Derived from the registry, not from the middleware's own rule: an admin operation that
  // changes state and writes no audit row fails here.
  // Sign-in and first-run set-up are public, but under /admin/ with the writes.
  const mutating = operationList.filter(
    (op) => (op.role === 'admin' || op.path.startsWith('/admin/')) && op.method !== 'get' && !op.changesNothing,
  );

  it('covers the sign-in routes and the admin writes', () => {
    expect(mutating.map((op) => op.id)).toEqual(expect.arrayContaining(['adminLogin', 'adminSetup', 'createAdmin']));
  });

  it.each(mutating.map((op) => [op.id, op] as const))('%s writes one audit row', async (_id, op) => {
    const cookie = await adminCookie();
    const count = async () => (await auditRows()).filter((r) => r.action === op.id).length;
    const before = await count();
    const path = op.path.replace(/\{(\w+)\}/g, (_m, name: string) => PLACEHOLDER[name] ?? 'x');
    const res = await call(op.method.toUpperCase(), path, { cookie, ...(op.body ? { body: {} } : {}) });
    expect(res.status).toBeLessThan(500);
    expect(await count()).toBe(before + 1);
    const [row] = (await auditRows()).filter((r) => r.action === op.id).slice(-1);
    expect(row?.client_address).toBe('10.0.0.1');
    expect(row?.request_id).toBe(res.headers.get('x-request-id'));
    if (op.role === 'admin') expect(row?.admin).toBe(ADMIN.username);
  });

  it('names the targets and records old and new values of settings, agent and host changes', async () => {
    const cookie = await adminCookie();
    const host = await createHost(cookie, ['10.0.0.1'], 'audit-host');
    const { agent } = await createAgent(cookie, host.host_id, 'audit-agent');
    const created = (await audit(cookie, `?target=${agent.agent_id}&action=createAgent`)).entries[0];
    expect(created?.names).toEqual({ [agent.agent_id]: 'audit-agent', [host.host_id]: 'audit-host' });
    expect(created?.changes).toEqual([]);

    const patch = { name: 'audit-renamed', enabled: false, description: 'builds' };
    expect((await call('PATCH', `/admin/agents/${agent.agent_id}`, { cookie, body: patch })).status).toBe(200);
    const updated = (await audit(cookie, `?target=${agent.agent_id}&action=updateAgent`)).entries[0];
    expect(updated?.names[agent.agent_id]).toBe('audit-renamed');
    expect(updated?.changes).toEqual([
      { field: 'name', old: 'audit-agent', new: 'audit-renamed' },
      { field: 'description', old: '', new: 'builds' },
      { field: 'enabled', old: 'true', new: 'false' },
    ]);
    // A change to the same values changes nothing, and says so.
    await call('PATCH', `/admin/agents/${agent.agent_id}`, { cookie, body: patch });
    expect((await audit(cookie, `?target=${agent.agent_id}&action=updateAgent`)).entries[0]?.changes).toEqual([]);

    const addresses = ['10.0.0.1', '10.0.0.2'];
    await call('PATCH', `/admin/hosts/${host.host_id}`, { cookie, body: { addresses } });
    const moved = (await audit(cookie, `?target=${host.host_id}&action=updateHost`)).entries[0];
    expect(moved?.changes).toEqual([{ field: 'addresses', old: '10.0.0.1', new: '10.0.0.1, 10.0.0.2' }]);

    const settings = (await call('GET', '/admin/settings', { cookie })).body.settings;
    const lower = settings.max_recipients - 1;
    await call('PATCH', '/admin/settings', { cookie, body: { max_recipients: lower } });
    expect((await audit(cookie, '?action=updateSettings')).entries[0]?.changes).toEqual([
      { field: 'max_recipients', old: String(settings.max_recipients), new: String(lower) },
    ]);

    // A deleted agent keeps the name it had in its entry (the registry no longer knows it).
    expect((await call('DELETE', `/admin/agents/${agent.agent_id}`, { cookie })).status).toBe(200);
    const deleted = (await audit(cookie, `?target=${agent.agent_id}&action=deleteAgent`)).entries[0];
    expect(deleted?.names).toEqual({ [agent.agent_id]: 'audit-renamed' });
  });

  it('records who, what, targets and outcome, and never a key, a password or a message body', async () => {
    const cookie = await adminCookie();
    const host = await createHost(cookie, ['10.0.0.9']);
    const { agent, key } = await createAgent(cookie, host.host_id);
    const regenerated = await call('POST', `/admin/agents/${agent.agent_id}/key`, { cookie });
    const secondPassword = 'second admin initial passphrase';
    await call('POST', '/admin/admins', { cookie, body: { username: 'other', password: secondPassword } });
    const newPassword = 'the replacement passphrase';
    await call('POST', '/admin/password', {
      cookie,
      body: { current_password: ADMIN.password, new_password: newPassword },
    });
    // A password typed into the username field is not kept.
    await call('POST', '/admin/login', { body: { username: 'typed-password-here', password: 'x' } });
    await call('POST', '/admin/login', { body: { username: ADMIN.username, password: 'wrong guess' } });

    const stored = JSON.stringify(await auditRows());
    for (const secret of [
      key,
      regenerated.body.api_key,
      ADMIN.password,
      secondPassword,
      newPassword,
      'typed-password-here',
      'wrong guess',
    ]) {
      expect(secret.length).toBeGreaterThan(8);
      expect(stored).not.toContain(secret);
    }

    const { entries } = await audit(cookie);
    const created = entries.find((e) => e.action === 'createAgent');
    expect(created).toMatchObject({ admin: ADMIN.username, outcome: 'ok' });
    expect(created?.targets).toEqual(expect.arrayContaining([agent.agent_id, host.host_id]));
    expect(entries.find((e) => e.action === 'createAdmin')?.targets).toEqual(['other']);
    const failures = entries.filter((e) => e.action === 'adminLogin' && e.outcome === 'unauthenticated');
    expect(failures.map((e) => e.admin)).toEqual([ADMIN.username, null]);
  });

  it('filters by admin, action, target and time, and pages', async () => {
    const cookie = await adminCookie();
    const host = await createHost(cookie, ['10.0.0.9']);
    for (let i = 0; i < 3; i++) await call('PATCH', `/admin/hosts/${host.host_id}`, { cookie, body: { os: `os${i}` } });
    await call('POST', '/admin/admins', { cookie, body: { username: 'other', password: 'other admin passphrase' } });
    const other = (
      await call('POST', '/admin/login', { body: { username: 'other', password: 'other admin passphrase' } })
    ).headers
      .get('set-cookie')
      ?.split(';')[0] as string;
    await call('POST', '/admin/hosts', { cookie: other, body: { name: 'by-other', addresses: ['10.0.0.8'] } });

    const byOther = await audit(cookie, '?admin=other');
    expect(byOther.entries.map((e) => e.action)).toEqual(['createHost', 'adminLogin']);
    const updates = await audit(cookie, `?action=updateHost&target=${host.host_id}`);
    expect(updates.entries).toHaveLength(3);
    const page1 = await audit(cookie, '?action=updateHost&limit=2');
    expect(page1.entries).toHaveLength(2);
    const page2 = await audit(cookie, `?action=updateHost&limit=2&cursor=${page1.next_cursor}`);
    expect(page2.entries).toHaveLength(1);
    expect(page2.next_cursor).toBeNull();
    expect(page2.entries[0]?.id).toBeLessThan(page1.entries[1]?.id);
    const future = new Date(Date.now() + 60_000).toISOString();
    expect((await audit(cookie, `?since=${future}`)).entries).toHaveLength(0);
    expect((await audit(cookie, `?until=${future}&action=createHost`)).entries).toHaveLength(2);
    const bad = await call('GET', '/admin/audit?since=yesterday', { cookie });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe('since');
    // Reading the log is not itself an administrator action.
    expect((await audit(cookie, '?action=listAuditLog')).entries).toHaveLength(0);
  });

  it('prunes by age and by count from the registry alarm', async () => {
    const cookie = await adminCookie();
    await createHost(cookie, ['10.0.0.9']);
    const old = Date.now() - AUDIT_MAX_AGE_MS - 1000;
    await runInDurableObject(registry(), async (_instance, state) => {
      state.storage.sql.exec(
        `INSERT INTO audit_log (at, admin, action, targets, client_address, outcome, request_id)
         VALUES (?, 'root', 'oldAction', '[]', '10.0.0.1', 'ok', 'req_old')`,
        old,
      );
    });
    expect(await runDurableObjectAlarm(registry())).toBe(true);
    let rows = await auditRows();
    expect(rows.some((r) => r.action === 'oldAction')).toBe(false);
    expect(rows.some((r) => r.action === 'createHost')).toBe(true);

    await runInDurableObject(registry(), async (_instance, state) => {
      state.storage.sql.exec(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
         INSERT INTO audit_log (at, admin, action, targets, client_address, outcome, request_id)
         SELECT ?, 'root', 'bulk', '[]', '10.0.0.1', 'ok', 'req_bulk' FROM n`,
        AUDIT_MAX_ENTRIES + 10,
        Date.now(),
      );
    });
    expect(await runDurableObjectAlarm(registry())).toBe(true);
    rows = await auditRows();
    expect(rows).toHaveLength(AUDIT_MAX_ENTRIES);
    expect(rows.every((r) => r.action === 'bulk')).toBe(true);
  });
  it('takes targets only from validated input: planted body fields never reach the log', async () => {
    const cookie = await adminCookie();
    const host = await createHost(cookie, ['10.0.0.9']);
    const planted = { agent_id: 'agt_FAKE', evil_id: 'DELETED ALL AGENTS', group_ids: ['grp_FAKE'] };
    const login = await call('POST', '/admin/login', { body: { ...ADMIN, ...planted } });
    expect(login.status).toBe(200);
    await call('POST', '/admin/login', { body: { username: ADMIN.username, password: 'wrong guess', ...planted } });
    await call('POST', '/admin/login', { body: { ...planted } });
    const patched = await call('PATCH', `/admin/hosts/${host.host_id}`, { cookie, body: { os: 'linux', ...planted } });
    expect(patched.status).toBeLessThan(500);
    await call('PATCH', `/admin/hosts/${host.host_id}`, { cookie, body: { os: 7, ...planted } });
    await call('DELETE', '/admin/hosts/not-a-host-id', { cookie });

    const stored = JSON.stringify(await auditRows());
    for (const text of ['agt_FAKE', 'DELETED ALL AGENTS', 'grp_FAKE', 'not-a-host-id']) {
      expect(stored).not.toContain(text);
      expect((await audit(cookie, `?target=${encodeURIComponent(text)}`)).entries).toEqual([]);
    }
    const updates = (await audit(cookie, '?action=updateHost')).entries;
    expect(updates).toHaveLength(2);
    for (const entry of updates) expect(entry.targets).toEqual([host.host_id]);
  });

  it('counts refused sign-ins per address and account instead of writing each, and throttled ones not at all', async () => {
    const cookie = await adminCookie();
    await createHost(cookie, ['10.0.0.9']);
    const realEntries = async () => (await auditRows()).filter((r) => r.agg_key === null);
    const before = await realEntries();
    // A flood: parallel wrong passwords from one address, for the real account and for nobody.
    const statuses = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        call('POST', '/admin/login', {
          ip: '10.0.0.77',
          body: { username: i % 2 ? ADMIN.username : `guess${i}`, password: `wrong ${i}` },
        }).then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    const refused = statuses.filter((s) => s === 401).length;
    // And from many addresses.
    for (let i = 0; i < 20; i++) {
      await call('POST', '/admin/login', { ip: `10.1.0.${i}`, body: { username: `nobody${i}`, password: 'x' } });
    }
    await call('POST', '/admin/login', { ip: '10.0.0.77', body: { username: 'x' } });

    expect(await realEntries()).toEqual(before);
    const counts = (await auditRows()).filter((r) => r.agg_key !== null);
    // One row per address and account (the non-existent names count as one: no account).
    const flood = counts.filter((r) => r.client_address === '10.0.0.77');
    expect(flood.map((r) => [r.admin, r.outcome])).toHaveLength(3);
    expect(flood.map((r) => [r.admin, r.outcome])).toEqual(
      expect.arrayContaining([
        [ADMIN.username, 'unauthenticated'],
        [null, 'unauthenticated'],
        [null, 'validation_failed'],
      ]),
    );
    expect(flood.filter((r) => r.outcome === 'unauthenticated').reduce((n, r) => n + (r.count as number), 0)).toBe(
      refused,
    );
    expect(counts.filter((r) => String(r.client_address).startsWith('10.1.0.'))).toHaveLength(20);

    const listed = (await audit(cookie, '?action=adminLogin')).entries;
    const mine = listed.find((e) => e.admin === ADMIN.username && e.client_address === '10.0.0.77');
    expect(mine?.count).toBeGreaterThan(0);
    expect(Date.parse(mine?.last_at)).toBeGreaterThanOrEqual(Date.parse(mine?.at));
    expect(listed.find((e) => e.outcome === 'ok')?.count).toBe(1);
  });

  it('keeps the count rows under their own cap, evicting the oldest counts and never an entry', async () => {
    const cookie = await adminCookie();
    await createHost(cookie, ['10.0.0.9']);
    await runInDurableObject(registry(), async (instance) => {
      const log = new AuditLog((instance as unknown as { db: RegistryDb }).db, 5);
      for (let i = 0; i < 12; i++) {
        log.recordRefusal({
          account: null,
          action: 'adminLogin',
          clientAddress: `2001:db8:${i}::1`,
          outcome: 'unauthenticated',
          requestId: `req_${i}`,
        });
      }
    });
    const rows = await auditRows();
    const counts = rows.filter((r) => r.agg_key !== null);
    expect(counts.map((r) => r.client_address)).toEqual([7, 8, 9, 10, 11].map((i) => `2001:db8:${i}:0::/64`));
    expect(rows.some((r) => r.action === 'createHost')).toBe(true);
  });
});
