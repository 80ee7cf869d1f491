/**
 * Fleet-sized administration (durable-objects/registry/bulk-agents.ts, worker/handlers/admin-bulk.ts):
 * a bulk action is all-or-nothing per agent with a per-agent report and one audit entry per agent;
 * an import creates every row or none and names every refused row; the settings preview counts
 * what lowered limits would delete from the catalog's figures.
 */
import { env, listDurableObjectIds } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { BULK_AGENTS_MAX, IMPORT_ROWS_MAX } from '../../core/contract/operations/admin-bulk.js';
import { adminCookie, call, createAgent, createHost } from './helpers.js';

const bulk = (cookie: string, action: string, agent_ids: string[]) =>
  call('POST', '/admin/agents/bulk', { cookie, body: { action, agent_ids } });

const me = (key: string) => call('GET', '/me', { key });

async function fleet(n: number) {
  const cookie = await adminCookie();
  const host = await createHost(cookie, ['10.0.0.1']);
  const agents: { id: string; key: string }[] = [];
  for (let i = 0; i < n; i++) {
    const { agent, key } = await createAgent(cookie, host.host_id);
    agents.push({ id: agent.agent_id, key });
  }
  return { cookie, hostId: host.host_id, agents };
}

async function auditOf(cookie: string, target: string) {
  const res = await call('GET', `/admin/audit?target=${target}`, { cookie });
  expect(res.status).toBe(200);
  return res.body.entries as {
    action: string;
    outcome: string;
    targets: string[];
    request_id: string;
    names: Record<string, string>;
  }[];
}

describe('bulk agent actions', () => {
  it('disables, enables, regenerates and revokes keys per agent, reporting unknown IDs and auditing each agent', async () => {
    const { cookie, agents } = await fleet(3);
    const [a, b, c] = agents as [(typeof agents)[0], (typeof agents)[0], (typeof agents)[0]];
    const unknown = 'agt_doesnotexist0000';

    const disabled = await bulk(cookie, 'disable', [a.id, unknown, b.id]);
    expect(disabled.status).toBe(200);
    expect(disabled.body.results.map((r: { status: string }) => r.status)).toEqual(['done', 'rejected', 'done']);
    expect(disabled.body.results[1].error.code).toBe('not_found');
    expect((await me(a.key)).status).toBe(401);
    expect((await me(c.key)).status).toBe(200);
    const audited = await auditOf(cookie, a.id);
    expect(audited[0]).toMatchObject({ action: 'updateAgent', outcome: 'ok', targets: [a.id] });
    expect((await auditOf(cookie, unknown))[0]).toMatchObject({ outcome: 'not_found' });
    expect((await auditOf(cookie, b.id))[0]?.request_id).toBe(audited[0]?.request_id);

    expect((await bulk(cookie, 'enable', [a.id, b.id])).body.results[0].status).toBe('done');
    expect((await me(a.key)).status).toBe(200);

    const renewed = await bulk(cookie, 'regenerate_key', [a.id, c.id]);
    const keys = renewed.body.results.map((r: { api_key: string }) => r.api_key);
    expect(keys.every((k: string) => k.startsWith('sbk_'))).toBe(true);
    expect((await me(a.key)).status).toBe(401);
    expect((await me(keys[0])).status).toBe(200);
    expect((await me(keys[1])).status).toBe(200);

    expect((await bulk(cookie, 'revoke_key', [c.id])).body.results[0].status).toBe('done');
    expect((await me(keys[1])).status).toBe(401);
    const listed = await call('GET', `/admin/agents/${c.id}`, { cookie });
    expect(listed.body.agent.key_status).toBe('revoked');
  });

  it('deletes agents one by one: an owner of an active group is refused and stays, the rest go', async () => {
    const { cookie, agents } = await fleet(3);
    const [owner, member, loner] = agents as [(typeof agents)[0], (typeof agents)[0], (typeof agents)[0]];
    const made = await call('POST', '/groups', { key: owner.key, body: { name: 'crew', invitee_ids: [member.id] } });
    expect(made.status).toBe(201);

    const res = await bulk(cookie, 'delete', [owner.id, member.id, loner.id]);
    expect(res.status).toBe(200);
    expect(res.body.results[0]).toMatchObject({
      agent_id: owner.id,
      status: 'rejected',
      error: { code: 'conflict', reason: 'agent_owns_groups' },
    });
    expect(res.body.results.slice(1).map((r: { status: string }) => r.status)).toEqual(['done', 'done']);
    expect((await me(owner.key)).status).toBe(200);
    expect((await me(loner.key)).status).toBe(401);
    expect((await call('GET', `/admin/agents/${loner.id}`, { cookie })).status).toBe(404);
    expect((await auditOf(cookie, owner.id))[0]).toMatchObject({ action: 'deleteAgent', outcome: 'conflict' });
    expect((await auditOf(cookie, loner.id))[0]).toMatchObject({ action: 'deleteAgent', outcome: 'ok' });
    // The deleted agent's entry and the answer keep the name it had.
    expect(res.body.results[2].name).toMatch(/^agent-/);
    expect((await auditOf(cookie, loner.id))[0]).toMatchObject({ names: { [loner.id]: res.body.results[2].name } });
  });

  it('refuses, changing nothing, too many IDs, a repeated ID, an empty list and an unknown action', async () => {
    const { cookie, agents } = await fleet(1);
    const id = agents[0]?.id as string;
    const many = Array.from({ length: BULK_AGENTS_MAX + 1 }, (_, i) => `agt_${String(i).padStart(16, '0')}`);
    const tooMany = await bulk(cookie, 'disable', many);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toMatchObject({ code: 'validation_failed', reason: 'too_big', field: 'agent_ids' });
    const twice = await bulk(cookie, 'disable', [id, id]);
    expect(twice.status).toBe(400);
    expect(twice.body.error).toMatchObject({ reason: 'duplicate_ids', field: 'agent_ids' });
    expect((await bulk(cookie, 'disable', [])).status).toBe(400);
    expect((await bulk(cookie, 'explode', [id])).status).toBe(400);
    expect((await me(agents[0]?.key as string)).status).toBe(200);
  });
});

describe('importing agents', () => {
  const importRows = (cookie: string, agents: unknown[]) =>
    call('POST', '/admin/agents/import', { cookie, body: { agents } });

  it('creates every row, by host ID or name, each with a working key and an audit entry', async () => {
    const cookie = await adminCookie();
    const host = await createHost(cookie, ['10.0.0.1'], 'build-box');
    const res = await importRows(cookie, [
      { name: 'alpha', host: 'build-box', display_name: 'Alpha', description: 'first' },
      { name: 'beta', host: host.host_id, display_name: '', description: '' },
    ]);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const [alpha, beta] = res.body.agents;
    expect(alpha.agent).toMatchObject({ name: 'alpha', display_name: 'Alpha', description: 'first', enabled: true });
    expect(beta.agent).toMatchObject({ name: 'beta', display_name: 'beta', host_id: host.host_id });
    expect(alpha.pending).toBe(false);
    expect((await me(alpha.api_key)).status).toBe(200);
    expect((await me(beta.api_key)).status).toBe(200);
    expect((await auditOf(cookie, alpha.agent.agent_id))[0]).toMatchObject({ action: 'createAgent', outcome: 'ok' });
  });

  it("makes no agent's own object: the first requests fetch the account, together, and a change made before wins", async () => {
    const cookie = await adminCookie();
    const host = await createHost(cookie, ['10.0.0.1']);
    const res = await importRows(
      cookie,
      ['first-use', 'changed-first', 'refused-first'].map((name) => ({ name, host: host.host_id })),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const [used, changed, refused] = res.body.agents as { agent: { agent_id: string }; api_key: string }[];
    const objects = async () => new Set((await listDurableObjectIds(env.AGENT)).map((id) => id.toString()));
    const objectOf = (agentId: string) => env.AGENT.idFromName(agentId).toString();
    const before = await objects();
    for (const a of res.body.agents) expect(before.has(objectOf(a.agent.agent_id))).toBe(false);

    // Eight first requests at once: one account, every one of them answered as that agent.
    const first = await Promise.all(Array.from({ length: 8 }, () => me(used!.api_key)));
    for (const r of first) expect(r.body.agent_id, JSON.stringify(r.body)).toBe(used!.agent.agent_id);
    expect((await objects()).has(objectOf(used!.agent.agent_id))).toBe(true);

    // Disabled before its first request: the push makes the object, and the key is refused.
    const patched = await call('PATCH', `/admin/agents/${changed!.agent.agent_id}`, {
      cookie,
      body: { enabled: false },
    });
    expect(patched.status).toBe(200);
    expect((await me(changed!.api_key)).status).toBe(401);

    // A refused key naming an agent not used yet is still counted on its page; the real key works.
    const tampered = `${refused!.api_key.slice(0, -4)}${refused!.api_key.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
    expect((await me(tampered)).status).toBe(401);
    await expect
      .poll(async () => {
        const page = await call('GET', `/admin/agents/${refused!.agent.agent_id}/rejections`, { cookie });
        return page.body.rejections?.map((r: { reason: string; count: number }) => `${r.reason} ${r.count}`);
      })
      .toEqual(['wrong_key 1']);
    expect((await me(refused!.api_key)).status).toBe(200);
  });

  it('refuses the whole import, naming every bad row, and creates nothing', async () => {
    const cookie = await adminCookie();
    const host = await createHost(cookie, ['10.0.0.1'], 'rack-1');
    await createAgent(cookie, host.host_id, 'taken');
    const res = await importRows(cookie, [
      { name: 'fine', host: 'rack-1' },
      { name: 'bad name!', host: 'rack-1' },
      { name: 'lost', host: 'no-such-host' },
      { name: 'taken', host: 'rack-1' },
      { name: 'fine', host: host.host_id },
      { name: 'x'.repeat(65), host: 'rack-1' },
    ]);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'validation_failed', reason: 'import_rows_refused' });
    expect(res.body.error.rows.map((r: { row: number; reason: string }) => [r.row, r.reason])).toEqual([
      [2, 'invalid_format'],
      [3, 'unknown_host'],
      [4, 'agent_name_taken'],
      [5, 'duplicate_row'],
      [6, 'too_big'],
    ]);
    expect(res.body.error.params).toEqual({ refused: 5, rows: 6 });
    // Rows that only the current hosts and agents refuse: a conflict, the same rows listed.
    const clash = await importRows(cookie, [
      { name: 'lost', host: 'no-such-host' },
      { name: 'taken', host: 'rack-1' },
    ]);
    expect(clash.status).toBe(409);
    expect(clash.body.error).toMatchObject({ code: 'conflict', reason: 'import_rows_refused' });
    expect(clash.body.error.rows.map((r: { row: number; reason: string }) => [r.row, r.reason])).toEqual([
      [1, 'unknown_host'],
      [2, 'agent_name_taken'],
    ]);
    const list = await call('GET', `/admin/agents?host_id=${host.host_id}`, { cookie });
    expect(list.body.agents.map((a: { name: string }) => a.name)).toEqual(['taken']);
  });

  it('refuses an empty import and one over the row limit', async () => {
    const cookie = await adminCookie();
    expect((await importRows(cookie, [])).status).toBe(400);
    const rows = Array.from({ length: IMPORT_ROWS_MAX + 1 }, (_, i) => ({ name: `a${i}`, host: 'h' }));
    const res = await importRows(cookie, rows);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ reason: 'too_big', field: 'agents' });
  });
});

describe('previewing a settings change', () => {
  it('counts the messages and files lowered limits would delete, from the catalog, changing nothing', async () => {
    const cookie = await adminCookie();
    const keeper = env.RETENTION.get(env.RETENTION.idFromName('retention'));
    const base = { kind: 'private' as const, created_at: 1, status: 'active' as const, last_message_at: 1, version: 1 };
    await keeper.reportChannel({ ...base, channel_id: 'dm_preview_a', message_count: 30, file_count: 0 });
    await keeper.reportChannel({ ...base, channel_id: 'dm_preview_b', message_count: 8, file_count: 0 });
    await keeper.reportChannel({ ...base, channel_id: 'dm_preview_c', message_count: 20, file_count: 5 });
    const before = await call('GET', '/admin/settings', { cookie });

    const res = await call('POST', '/admin/settings/preview', { cookie, body: { max_messages_per_channel: 10 } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // a: 20 exactly; c: 10 messages, and 0 to 5 of its files among them.
    expect(res.body.deletes).toEqual({ channels: 2, messages: { min: 30, max: 30 }, files: { min: 0, max: 5 } });

    const files = await call('POST', '/admin/settings/preview', { cookie, body: { max_files_per_channel: 2 } });
    expect(files.body.deletes).toEqual({ channels: 1, messages: { min: 3, max: 3 }, files: { min: 3, max: 3 } });

    const after = await call('GET', '/admin/settings', { cookie });
    expect(after.body.settings_revision).toBe(before.body.settings_revision);
    expect((await call('POST', '/admin/settings/preview', { cookie, body: {} })).status).toBe(400);
    const audit = await call('GET', '/admin/audit?action=previewSettings', { cookie });
    expect(audit.body.entries).toEqual([]);
  });
});
