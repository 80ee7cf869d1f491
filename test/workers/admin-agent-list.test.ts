import { describe, expect, it } from 'vitest';
import { adminCookie, type Call, call, createAgent, createHost } from './helpers.js';

interface Listed {
  name: string;
  enabled: boolean;
  last_access_at: string | null;
}

/** Every page of one listing, in order, and the total each page reported. */
async function pages(cookie: string, query: string, limit = 2): Promise<{ names: string[]; totals: number[] }> {
  const names: string[] = [];
  const totals: number[] = [];
  let cursor: string | null = null;
  do {
    const page: Call = await call('GET', `/admin/agents?${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`, {
      cookie,
    });
    expect(page.status).toBe(200);
    names.push(...page.body.agents.map((a: Listed) => a.name));
    totals.push(page.body.total);
    cursor = page.body.next_cursor;
  } while (cursor);
  return { names, totals };
}

describe('GET /admin/agents: search, sort and paging', () => {
  it('searches name, display name, description and host name, and counts the matches', async () => {
    const cookie = await adminCookie();
    const lab = await createHost(cookie, ['10.0.0.1'], 'gpu-lab');
    const office = await createHost(cookie, ['10.0.0.2'], 'office');
    await createAgent(cookie, lab.host_id, 'trainer');
    await createAgent(cookie, office.host_id, 'mailer');
    const described = await createAgent(cookie, office.host_id, 'notes');
    await call('PATCH', `/admin/agents/${described.agent.agent_id}`, {
      cookie,
      body: { description: 'Summarises GPU usage', display_name: 'Scribe' },
    });
    const odd = await createAgent(cookie, office.host_id, 'odd_1');
    await call('PATCH', `/admin/agents/${odd.agent.agent_id}`, { cookie, body: { display_name: '100% sure' } });

    expect((await pages(cookie, 'q=gpu')).names).toEqual(['notes', 'trainer']);
    expect((await pages(cookie, 'q=SCRIBE')).names).toEqual(['notes']);
    // % and _ are literal text, not LIKE wildcards.
    expect((await pages(cookie, 'q=_')).names).toEqual(['odd_1']);
    expect((await pages(cookie, `q=${encodeURIComponent('%')}`)).names).toEqual(['odd_1']);
    expect((await pages(cookie, `q=gpu&host_id=${office.host_id}`)).names).toEqual(['notes']);
    // Every word, in any order, in any of the columns; an ID finds its agent.
    expect((await pages(cookie, `q=${encodeURIComponent('lab trainer')}`)).names).toEqual(['trainer']);
    expect((await pages(cookie, `q=${encodeURIComponent('office  SCRIBE ')}`)).names).toEqual(['notes']);
    expect((await pages(cookie, `q=${encodeURIComponent('lab mailer')}`)).names).toEqual([]);
    expect((await pages(cookie, `q=${described.agent.agent_id}`)).names).toEqual(['notes']);
    // Any text the schema accepts is a substring, never a pattern too long for SQLite's LIKE.
    expect((await pages(cookie, `q=${encodeURIComponent('%'.repeat(200))}`)).names).toEqual([]);
    expect((await pages(cookie, `q=${'x_'.repeat(100)}`)).names).toEqual([]);
    const all = await pages(cookie, 'q=', 3);
    expect(all.names).toEqual(['mailer', 'notes', 'odd_1', 'trainer']);
    expect(all.totals).toEqual([4, 4]);
    expect((await call('GET', '/admin/agents?q=nothing-like-this', { cookie })).body).toMatchObject({
      agents: [],
      next_cursor: null,
      total: 0,
    });
  });

  it('sorts by host, status and last access in both orders, paging without repeats or gaps', async () => {
    const cookie = await adminCookie();
    const b = await createHost(cookie, ['10.0.0.1'], 'b-host');
    const a = await createHost(cookie, ['10.0.0.2'], 'a-host');
    const used = await createAgent(cookie, b.host_id, 'used');
    await createAgent(cookie, b.host_id, 'idle');
    const off = await createAgent(cookie, a.host_id, 'off');
    await createAgent(cookie, a.host_id, 'zed');
    await call('PATCH', `/admin/agents/${off.agent.agent_id}`, { cookie, body: { enabled: false } });
    expect((await call('GET', '/inbox', { key: used.key, ip: '10.0.0.1' })).status).toBe(200);
    // Last access is recorded through the agent's object; wait until the registry has it.
    await expect
      .poll(async () => (await call('GET', '/admin/agents?q=used', { cookie })).body.agents[0].last_access_at)
      .not.toBeNull();

    expect((await pages(cookie, 'sort=host')).names).toEqual(['off', 'zed', 'idle', 'used']);
    expect((await pages(cookie, 'sort=host&order=desc')).names).toEqual(['used', 'idle', 'zed', 'off']);
    expect((await pages(cookie, 'sort=status')).names).toEqual(['off', 'idle', 'used', 'zed']);
    expect((await pages(cookie, 'sort=status&order=desc', 3)).names).toEqual(['zed', 'used', 'idle', 'off']);
    expect((await pages(cookie, 'sort=last_access', 1)).names).toEqual(['idle', 'off', 'zed', 'used']);
    expect((await pages(cookie, 'sort=last_access&order=desc', 1)).names).toEqual(['used', 'zed', 'off', 'idle']);
    expect((await pages(cookie, 'order=desc', 3)).names).toEqual(['zed', 'used', 'off', 'idle']);
    expect((await pages(cookie, 'sort=name', 3)).names).toEqual(['idle', 'off', 'used', 'zed']);
  });

  it('refuses a cursor from another sort, an unknown sort and an overlong search, storing nothing', async () => {
    const cookie = await adminCookie();
    const host = await createHost(cookie, ['10.0.0.1']);
    for (const name of ['a', 'b', 'c']) await createAgent(cookie, host.host_id, name);
    const byHost = await call('GET', '/admin/agents?sort=host&limit=1', { cookie });
    const foreign = await call('GET', `/admin/agents?sort=status&limit=1&cursor=${byHost.body.next_cursor}`, {
      cookie,
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error).toMatchObject({ code: 'validation_failed', field: 'cursor' });
    const byName = await call('GET', '/admin/agents?limit=1', { cookie });
    const mixed = await call('GET', `/admin/agents?sort=host&limit=1&cursor=${byName.body.next_cursor}`, { cookie });
    expect(mixed.body.error.field).toBe('cursor');
    const badSort = await call('GET', '/admin/agents?sort=size', { cookie });
    expect(badSort.status).toBe(400);
    expect(badSort.body.error.field).toBe('sort');
    const long = await call('GET', `/admin/agents?q=${'x'.repeat(201)}`, { cookie });
    expect(long.status).toBe(400);
    expect(long.body.error.field).toBe('q');
  });
});
