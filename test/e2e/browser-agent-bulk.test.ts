/**
 * The agent list's bulk actions (POST /admin/agents/bulk) in real Chromium against the real
 * server: agents picked with their checkboxes or the page's select-all, each action through a
 * confirmation that names the count, one request per action, exactly those agents changed and one
 * audit entry each; new keys offered once as a download that holds one key per agent and is gone
 * once the report closes. Driven from the keyboard, and the confirmation read in French.
 */
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deepActiveElement, launchChromium, newContext, signIn, watchPageErrors } from './browser-kit.js';
import { adminLogin, api, createAgent, createHost, type Server, startServer } from './harness.js';

let server: Server;
let browser: Browser;
let cookie: string;
/** Agent IDs and their current keys, by name. */
const ids: Record<string, string> = {};
const keys: Record<string, string> = {};
const BULK = ['bulk-1', 'bulk-2', 'bulk-3', 'bulk-4', 'bulk-5'];
const ALL = [...BULK, 'spare-1', 'spare-2'];

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchChromium()]);
  cookie = await adminLogin(server);
  const host = await createHost(server, cookie, ['127.0.0.1'], 'lab-host');
  for (const name of ALL) {
    const made = await createAgent(server, cookie, host.host_id, name);
    ids[name] = made.agent.agent_id;
    keys[name] = made.key;
  }
  // bulk-5 owns a group: deleting it is refused, and the others go ahead.
  const group = await api(server, 'POST', '/groups', { key: keys['bulk-5'], body: { name: 'bulk-owned' } });
  expect(group.status, group.text).toBe(201);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

const id = (name: string) => ids[name] as string;

/** Every agent as the server has it, by name. */
async function agentsNow(): Promise<Map<string, { enabled: boolean; key_status: string }>> {
  const res = await api(server, 'GET', '/admin/agents?limit=100', { cookie });
  expect(res.status, res.text).toBe(200);
  return new Map(res.body.agents.map((a: { name: string; enabled: boolean; key_status: string }) => [a.name, a]));
}

/** The audit entries of one action, as `name outcome` with each entry's request ID. */
async function audited(action: string): Promise<{ name: string; outcome: string; request: string }[]> {
  const res = await api(server, 'GET', `/admin/audit?action=${action}&limit=200`, { cookie });
  expect(res.status, res.text).toBe(200);
  const byId = new Map(Object.entries(ids).map(([name, agentId]) => [agentId, name]));
  return res.body.entries.map((e: { targets: string[]; outcome: string; request_id: string }) => ({
    name: byId.get(e.targets[0] as string) ?? e.targets[0],
    outcome: e.outcome,
    request: e.request_id,
  }));
}

/** The audit entries of `action` written by one request, sorted by agent name. */
async function oneRequest(action: string, before: number): Promise<{ name: string; outcome: string }[]> {
  const entries = (await audited(action)).slice(0, -before || undefined);
  expect(new Set(entries.map((e) => e.request)).size).toBe(1);
  return entries.map(({ name, outcome }) => ({ name, outcome })).sort((a, b) => a.name.localeCompare(b.name));
}

const row = (page: Page, name: string) => page.locator(`sb-agents tr[data-agent-id="${id(name)}"]`);
const checkbox = (page: Page, name: string) => row(page, name).locator('td.pick input');
const bulkRequests: string[] = [];

/** Counts the page's bulk requests (their bodies) in bulkRequests. */
function watchBulk(page: Page): void {
  page.on('request', (r) => {
    if (new URL(r.url()).pathname === '/api/v1/admin/agents/bulk') bulkRequests.push(r.postData() ?? '');
  });
}

/** The toolbar's count of picked agents ("3 selected"). */
const selectedText = (page: Page) => page.locator('sb-agent-bulk .bulk span').first().textContent();

async function pick(page: Page, names: string[], shown = `${names.length} selected`): Promise<void> {
  for (const name of names) await checkbox(page, name).check();
  await expect.poll(() => selectedText(page)).toContain(shown);
}

/** Picks the action, applies it and confirms; answers the report dialog's summary. */
async function run(page: Page, label: string, question: string, count: number): Promise<string> {
  await page.getByLabel('Action for the selected agents').selectOption({ label });
  await page.getByRole('button', { name: 'Apply to selected' }).click();
  const confirm = page.getByRole('dialog', { name: label });
  await confirm.waitFor();
  expect(await page.locator('sb-agent-bulk sb-confirm p').textContent()).toBe(question);
  await page
    .locator('sb-agent-bulk sb-confirm')
    .getByRole('button', { name: `${label} (${count})` })
    .click();
  const summary = page.getByTestId('bulk-summary');
  await summary.waitFor();
  return (await summary.textContent()) ?? '';
}

async function closeReport(page: Page): Promise<void> {
  await page.locator('sb-agent-bulk #report').getByRole('button', { name: 'Done', exact: true }).click();
  await page.getByTestId('bulk-summary').waitFor({ state: 'hidden' });
}

describe('bulk actions on the agent list', () => {
  it('disables, enables, issues new keys for, revokes the keys of and deletes exactly the agents picked', async () => {
    const context = await newContext(browser, { acceptDownloads: true });
    // The page's object URLs as they are revoked (the page's CSP forbids fetching one to see).
    await context.addInitScript(() => {
      const revoked: string[] = [];
      (window as unknown as { revoked: string[] }).revoked = revoked;
      const revoke = URL.revokeObjectURL.bind(URL);
      URL.revokeObjectURL = (url: string) => {
        revoked.push(url);
        revoke(url);
      };
    });
    const page = await context.newPage();
    const errors = watchPageErrors(page);
    watchBulk(page);
    await signIn(page, server.url, server.adminPassword as string);
    await page.goto(`${server.url}/agents?q=bulk`);
    await expect.poll(() => page.locator('sb-agents tbody tr').count()).toBe(BULK.length);
    expect(await page.getByRole('button', { name: 'Apply to selected' }).isDisabled()).toBe(true);

    // Disable, from the keyboard: select-all (Space), drop bulk-5, Enter on Apply, Tab to confirm.
    const all = page.getByRole('checkbox', { name: 'Select every agent on this page' });
    await all.focus();
    await page.keyboard.press('Space');
    await expect.poll(() => selectedText(page)).toContain('5 selected');
    await checkbox(page, 'bulk-5').focus();
    await page.keyboard.press('Space');
    await expect.poll(() => selectedText(page)).toContain('4 selected');
    expect(await all.isChecked()).toBe(false);
    await page.getByLabel('Action for the selected agents').focus();
    expect(await page.getByLabel('Action for the selected agents').inputValue()).toBe('disable');
    await page.keyboard.press('Tab');
    expect(await deepActiveElement(page)).toMatchObject({ tag: 'button', text: 'Apply to selected' });
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'Disable' }).waitFor();
    expect(await page.locator('sb-agent-bulk sb-confirm p').textContent()).toBe(
      'Disable 4 agents? They cannot authenticate until enabled again.',
    );
    // The focus starts on Cancel; Tab reaches the confirmation, which names the count.
    expect(await deepActiveElement(page)).toMatchObject({ tag: 'button', text: 'Cancel' });
    await page.keyboard.press('Tab');
    expect(await deepActiveElement(page)).toMatchObject({ tag: 'button', text: 'Disable (4)' });
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('bulk-summary').textContent()).toBe('Done for all 4 agents.');
    expect(await page.getByTestId('keys-download').count()).toBe(0);
    await page.keyboard.press('Escape');
    await page.getByTestId('bulk-summary').waitFor({ state: 'hidden' });
    // The focus comes back to the toolbar, and the picks are cleared.
    expect(await deepActiveElement(page)).toMatchObject({ tag: 'select', id: 'bulk-action' });
    expect(await selectedText(page)).toContain('0 selected');
    await expect.poll(() => row(page, 'bulk-1').textContent()).toContain('Disabled');
    let now = await agentsNow();
    for (const name of ALL)
      expect(now.get(name)?.enabled, name).toBe(!['bulk-1', 'bulk-2', 'bulk-3', 'bulk-4'].includes(name));
    expect(bulkRequests).toHaveLength(1);
    expect(await oneRequest('updateAgent', 0)).toEqual(
      ['bulk-1', 'bulk-2', 'bulk-3', 'bulk-4'].map((name) => ({ name, outcome: 'ok' })),
    );
    expect((await api(server, 'GET', '/me', { key: keys['bulk-1'] })).status).toBe(401);

    // Enable three of them again, with the mouse.
    await pick(page, ['bulk-1', 'bulk-2', 'bulk-3']);
    expect(await run(page, 'Enable', 'Enable 3 agents?', 3)).toBe('Done for all 3 agents.');
    await closeReport(page);
    now = await agentsNow();
    for (const name of ALL) expect(now.get(name)?.enabled, name).toBe(name !== 'bulk-4');
    expect(bulkRequests).toHaveLength(2);
    expect(await oneRequest('updateAgent', 4)).toEqual(
      ['bulk-1', 'bulk-2', 'bulk-3'].map((name) => ({ name, outcome: 'ok' })),
    );

    // New keys: offered once, as a file with one key per agent; the old keys stop working.
    await pick(page, ['bulk-1', 'bulk-2', 'bulk-3']);
    expect(
      await run(page, 'Issue new keys', 'Issue new API keys for 3 agents? Their current keys stop working at once.', 3),
    ).toBe('Done for all 3 agents.');
    const link = page.getByTestId('keys-download');
    const href = (await link.getAttribute('href')) as string;
    expect(href).toMatch(/^blob:/);
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).toBe('switchboard-keys.csv');
    const lines = readFileSync((await download.path()) as string, 'utf8')
      .trim()
      .split(/\r?\n/);
    expect(lines[0]).toBe('agent_id,name,api_key');
    const issued = new Map(
      lines.slice(1).map((line) => {
        const [agentId, name, key] = line.split(',');
        expect(agentId).toBe(id(name as string));
        return [name as string, key as string];
      }),
    );
    expect([...issued.keys()].sort()).toEqual(['bulk-1', 'bulk-2', 'bulk-3']);
    // The report names the agents, never their keys.
    const report = (await page.getByTestId('bulk-report').textContent()) ?? '';
    for (const [name, key] of issued) {
      expect(report).toContain(name);
      expect(report).not.toContain(key);
      expect(key).not.toBe(keys[name]);
      expect((await api(server, 'GET', '/me', { key })).status, name).toBe(200);
      expect((await api(server, 'GET', '/me', { key: keys[name] })).status, name).toBe(401);
      keys[name] = key;
    }
    // Once the report closes, the keys are gone: no link, and the file's address is revoked.
    await closeReport(page);
    expect(await link.count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { revoked: string[] }).revoked)).toContain(href);
    expect(bulkRequests).toHaveLength(3);
    expect(await oneRequest('regenerateAgentKey', 0)).toEqual(
      ['bulk-1', 'bulk-2', 'bulk-3'].map((name) => ({ name, outcome: 'ok' })),
    );

    // Revoke two of the new keys.
    await pick(page, ['bulk-1', 'bulk-2']);
    expect(
      await run(
        page,
        'Revoke keys',
        'Revoke the API keys of 2 agents? They cannot authenticate until new keys are issued.',
        2,
      ),
    ).toBe('Done for all 2 agents.');
    await closeReport(page);
    now = await agentsNow();
    for (const name of ALL)
      expect(now.get(name)?.key_status, name).toBe(['bulk-1', 'bulk-2'].includes(name) ? 'revoked' : 'active');
    expect((await api(server, 'GET', '/me', { key: keys['bulk-1'] })).status).toBe(401);
    expect((await api(server, 'GET', '/me', { key: keys['bulk-3'] })).status).toBe(200);
    expect(await oneRequest('revokeAgentKey', 0)).toEqual(
      ['bulk-1', 'bulk-2'].map((name) => ({ name, outcome: 'ok' })),
    );

    // Delete two: bulk-5 owns a group, so it alone is refused, with its reason.
    await pick(page, ['bulk-4', 'bulk-5']);
    expect(
      await run(
        page,
        'Delete',
        'Delete 2 agents for good? Their keys stop working at once and messages waiting for them are dropped.',
        2,
      ),
    ).toBe('Done for 1 of 2 agents; the others are unchanged.');
    expect(await page.locator('sb-agent-bulk ul.report li.failed').textContent()).toContain('bulk-5');
    await closeReport(page);
    await expect.poll(() => page.locator('sb-agents tbody tr').count()).toBe(4);
    now = await agentsNow();
    expect([...now.keys()].sort()).toEqual(ALL.filter((n) => n !== 'bulk-4').sort());
    expect(await oneRequest('deleteAgent', 0)).toEqual([
      { name: 'bulk-4', outcome: 'ok' },
      { name: 'bulk-5', outcome: 'conflict' },
    ]);
    expect(bulkRequests).toHaveLength(5);
    expect(bulkRequests.map((body) => JSON.parse(body).action)).toEqual([
      'disable',
      'enable',
      'regenerate_key',
      'revoke_key',
      'delete',
    ]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('names one agent rather than “1 agents”, and asks in French in a French console', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    const errors = watchPageErrors(page);
    watchBulk(page);
    await signIn(page, server.url, server.adminPassword as string);
    await page.goto(`${server.url}/agents?q=spare`);
    await expect.poll(() => page.locator('sb-agents tbody tr').count()).toBe(2);
    await pick(page, ['spare-1']);
    await page.getByLabel('Action for the selected agents').selectOption('disable');
    await page.getByRole('button', { name: 'Apply to selected' }).click();
    await page.getByRole('dialog', { name: 'Disable' }).waitFor();
    expect(await page.locator('sb-agent-bulk sb-confirm p').textContent()).toBe(
      'Disable spare-1? It cannot authenticate until enabled again.',
    );
    await page.locator('sb-agent-bulk sb-confirm').getByRole('button', { name: 'Disable (1)' }).click();
    await expect.poll(() => page.getByTestId('bulk-summary').textContent()).toBe('Done for spare-1.');
    await closeReport(page);
    expect((await agentsNow()).get('spare-1')?.enabled).toBe(false);
    expect(bulkRequests).toHaveLength(6);

    await page.locator('sb-language-picker select').selectOption('fr');
    await page.waitForFunction(() => document.documentElement.lang === 'fr');
    await pick(page, ['spare-1', 'spare-2'], '2 sélectionnés');
    await page.getByLabel('Action pour les agents sélectionnés').selectOption('revoke_key');
    await page.getByRole('button', { name: 'Appliquer à la sélection' }).click();
    await page.getByRole('dialog', { name: 'Révoquer les clés' }).waitFor();
    const text = (await page.locator('sb-agent-bulk sb-confirm p').textContent()) ?? '';
    expect(text.replace(/\s/g, ' ')).toBe(
      'Révoquer les clés d’API de 2 agents ? Ils ne pourront plus s’authentifier avant l’émission de nouvelles clés.',
    );
    const buttons = await page.locator('sb-agent-bulk sb-confirm').getByRole('button').allTextContents();
    expect(buttons.map((b) => b.trim())).toEqual(expect.arrayContaining(['Annuler', 'Révoquer les clés (2)']));
    await page.locator('sb-agent-bulk sb-confirm').getByRole('button', { name: 'Annuler' }).click();
    // Cancelled: nothing was sent, nothing changed.
    const now = await agentsNow();
    expect(now.get('spare-1')).toMatchObject({ enabled: false, key_status: 'active' });
    expect(now.get('spare-2')).toMatchObject({ enabled: true, key_status: 'active' });
    expect(bulkRequests).toHaveLength(6);
    expect(errors).toEqual([]);
    await context.close();
  });
});
