/**
 * Every list keeps its state in the address (the fleet-console issue), in real Chromium against
 * the real server: on the Hosts, Groups and Audit pages (and the Agents page they copy) a search,
 * filter or sort shows in the address; a reload or the address opened in another tab shows the
 * same list; Back and Forward step between the states; an address with values the console never
 * writes shows the default list without an error.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, newContext, pickAgent, signIn, watchPageErrors } from './browser-kit.js';
import { adminLogin, api, createAgent, type Server, startServer } from './harness.js';

let server: Server;
let browser: Browser;
const ids: Record<string, string> = {};

async function host(cookie: string, name: string, address: string, description: string): Promise<string> {
  const res = await api(server, 'POST', '/admin/hosts', { cookie, body: { name, addresses: [address], description } });
  expect(res.status, res.text).toBe(201);
  return res.body.host.host_id as string;
}

async function group(ownerKey: string, name: string, invitees: string[]): Promise<void> {
  const res = await api(server, 'POST', '/groups', { key: ownerKey, body: { name, invitee_ids: invitees } });
  expect(res.status, res.text).toBe(201);
}

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchChromium()]);
  const cookie = await adminLogin(server);
  // Agents on 127.0.0.1 can call the API from here (to make groups).
  const gpu = await host(cookie, 'lab-gpu', '127.0.0.1', 'GPU box in the lab');
  const cpu = await host(cookie, 'lab-cpu', '10.1.0.2', 'build machine');
  await host(cookie, 'office', '10.2.0.3', 'front desk');
  const keys: Record<string, string> = {};
  for (const [name, hostId] of [
    ['alice', gpu],
    ['bob', gpu],
    ['carol', gpu],
    ['dave', cpu],
  ] as const) {
    const made = await createAgent(server, cookie, hostId, name);
    ids[name] = made.agent.agent_id;
    keys[name] = made.key;
  }
  await group(keys.alice as string, 'ops', [ids.bob as string]);
  await group(keys.bob as string, 'night', [ids.carol as string]);
  await group(keys.carol as string, 'solo', []);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

const query = (page: Page) => Object.fromEntries(new URL(page.url()).searchParams);
const hostNames = (page: Page) => page.locator('sb-hosts tr[data-host-id] td:first-child').allTextContents();
const groupNames = (page: Page) =>
  page.locator('sb-groups tr[data-group-id] .group-name').evaluateAll((els) => els.map((e) => e.textContent?.trim()));
/** The audit rows on screen as "admin action" (the operation ID, not its label). */
const auditRows = (page: Page) =>
  page
    .locator('sb-audit tbody tr')
    .evaluateAll((rows) => rows.map((r) => `${r.getAttribute('data-admin')} ${r.getAttribute('data-action')}`));

describe('lists in the address', () => {
  it('keeps the Hosts search and sort through a reload, Back and Forward', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    const errors = watchPageErrors(page);
    await signIn(page, server.url, server.adminPassword as string);
    await page.getByRole('link', { name: 'Hosts' }).click();
    await expect.poll(() => hostNames(page)).toEqual(['lab-cpu', 'lab-gpu', 'office']);

    // Typing is one history entry however it pauses; the sort is another.
    const search = page.getByRole('searchbox', { name: 'Search hosts' });
    await search.pressSequentially('la');
    await expect.poll(() => query(page)).toEqual({ q: 'la' });
    await search.pressSequentially('b');
    await expect.poll(() => hostNames(page)).toEqual(['lab-cpu', 'lab-gpu']);
    await page.getByLabel('Sort by').selectOption({ label: 'Most agents first' });
    await expect.poll(() => hostNames(page)).toEqual(['lab-gpu', 'lab-cpu']);
    expect(query(page)).toEqual({ q: 'lab', sort: 'agents:desc' });

    await page.reload();
    await expect.poll(() => hostNames(page)).toEqual(['lab-gpu', 'lab-cpu']);
    expect(await search.inputValue()).toBe('lab');
    expect(await page.getByLabel('Sort by').inputValue()).toBe('agents:desc');

    await page.goBack();
    await expect.poll(() => hostNames(page)).toEqual(['lab-cpu', 'lab-gpu']);
    expect(await page.getByLabel('Sort by').inputValue()).toBe('name:asc');
    expect(await search.inputValue()).toBe('lab');
    await page.goBack();
    await expect.poll(() => hostNames(page)).toEqual(['lab-cpu', 'lab-gpu', 'office']);
    expect(await search.inputValue()).toBe('');
    await page.goForward();
    await page.goForward();
    await expect.poll(() => hostNames(page)).toEqual(['lab-gpu', 'lab-cpu']);
    // A search of the description; no match says so.
    await search.fill('front desk');
    await expect.poll(() => hostNames(page)).toEqual(['office']);
    await search.fill('nowhere');
    await page.locator('sb-hosts').getByText('No host matches the search.').waitFor();

    // The page's own link shows the whole list again.
    await page.getByRole('link', { name: 'Hosts' }).click();
    await expect.poll(() => hostNames(page)).toEqual(['lab-cpu', 'lab-gpu', 'office']);
    expect(page.url()).toBe(`${server.url}/hosts`);
    expect(await search.inputValue()).toBe('');

    await page.goto(`${server.url}/hosts?sort=price&q=`);
    await expect.poll(() => hostNames(page)).toEqual(['lab-cpu', 'lab-gpu', 'office']);
    expect(await page.getByLabel('Sort by').inputValue()).toBe('name:asc');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('keeps the Groups filters through a reload, another tab, Back and Forward', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    const errors = watchPageErrors(page);
    await signIn(page, server.url, server.adminPassword as string);
    await page.getByRole('link', { name: 'Groups' }).click();
    await expect.poll(() => groupNames(page)).toEqual(['solo', 'night', 'ops']);

    await pickAgent(page, 'Member or invitee', 'carol');
    await expect.poll(() => groupNames(page)).toEqual(['solo', 'night']);
    await pickAgent(page, 'Owner', 'bob');
    await expect.poll(() => groupNames(page)).toEqual(['night']);
    expect(query(page)).toEqual({ owner: ids.bob, participant: ids.carol });

    await page.reload();
    await expect.poll(() => groupNames(page)).toEqual(['night']);
    const owner = page.getByRole('combobox', { name: 'Owner', exact: true });
    const member = page.getByRole('combobox', { name: 'Member or invitee' });
    await expect.poll(() => owner.inputValue()).toBe('bob');
    await expect.poll(() => member.inputValue()).toBe('carol');
    // The same address in another tab: no group names the filter's agents until the list is in.
    const other = await context.newPage();
    const otherErrors = watchPageErrors(other);
    await other.goto(`${server.url}/groups?owner=${ids.dave}`);
    await other.locator('sb-groups').getByText('No groups to show.').waitFor();
    await expect.poll(() => other.getByRole('combobox', { name: 'Owner', exact: true }).inputValue()).toBe('dave');
    await other.close();

    await page.goBack();
    await expect.poll(() => groupNames(page)).toEqual(['solo', 'night']);
    await expect.poll(() => owner.inputValue()).toBe('');
    expect(await member.inputValue()).toBe('carol');
    await page.goBack();
    await expect.poll(() => groupNames(page)).toEqual(['solo', 'night', 'ops']);
    expect(await member.inputValue()).toBe('');
    await page.goForward();
    await expect.poll(() => groupNames(page)).toEqual(['solo', 'night']);

    await page.goto(`${server.url}/groups?owner=alice&participant=agt_a,agt_b`);
    await expect.poll(() => groupNames(page)).toEqual(['solo', 'night', 'ops']);
    expect(errors).toEqual([]);
    expect(otherErrors).toEqual([]);
    await context.close();
  });

  it('keeps the Audit log filters, times included, through a reload, Back and Forward', async () => {
    // The browser's zone is not UTC: the address keeps UTC, the form shows local time.
    const context = await newContext(browser, { timezoneId: 'Europe/Paris' });
    const page = await context.newPage();
    const errors = watchPageErrors(page);
    await signIn(page, server.url, server.adminPassword as string);
    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.locator('sb-audit tbody tr').first().waitFor();
    const hosts = ['admin createHost', 'admin createHost', 'admin createHost'];

    await page.locator('sb-audit select#admin option[value=admin]').waitFor({ state: 'attached' });
    await page.locator('sb-audit select#admin').selectOption('admin');
    await page.locator('sb-audit select#action').selectOption('createHost');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => auditRows(page)).toEqual(hosts);
    expect(query(page)).toEqual({ admin: 'admin', action: 'createHost' });
    // A time range after every entry: none match.
    await page.locator('sb-audit #since').fill('2999-01-01T10:00');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.locator('sb-audit').getByText('No entries match.').waitFor();
    expect(query(page)).toEqual({ admin: 'admin', action: 'createHost', since: '2999-01-01T09:00:00.000Z' });

    await page.reload();
    await page.locator('sb-audit').getByText('No entries match.').waitFor();
    expect(await page.locator('sb-audit #since').inputValue()).toBe('2999-01-01T10:00');
    expect(await page.locator('sb-audit select#action').inputValue()).toBe('createHost');
    await expect.poll(() => page.locator('sb-audit select#admin').inputValue()).toBe('admin');

    await page.goBack();
    await expect.poll(() => auditRows(page)).toEqual(hosts);
    expect(await page.locator('sb-audit #since').inputValue()).toBe('');
    await page.goBack();
    await expect.poll(async () => (await auditRows(page)).length).toBeGreaterThan(hosts.length);
    expect(await page.locator('sb-audit select#action').inputValue()).toBe('');
    await page.goForward();
    await expect.poll(() => auditRows(page)).toEqual(hosts);
    expect(await page.locator('sb-audit select#action').inputValue()).toBe('createHost');

    // Filters the console never writes are no filters; a deleted administrator's name is kept.
    await page.goto(`${server.url}/audit?action=rm%20-rf&since=yesterday&admin=no%20one`);
    await expect.poll(async () => (await auditRows(page)).length).toBeGreaterThan(hosts.length);
    expect(await page.locator('sb-audit select#action').inputValue()).toBe('');
    await page.goto(`${server.url}/audit?admin=gone.admin`);
    await page.locator('sb-audit').getByText('No entries match.').waitFor();
    expect(await page.locator('sb-audit select#admin').inputValue()).toBe('gone.admin');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('steps back through the Agents list’s filters too', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    const errors = watchPageErrors(page);
    await signIn(page, server.url, server.adminPassword as string);
    await page.getByRole('link', { name: 'Agents' }).click();
    const names = async () => (await page.locator('sb-agents tbody tr td.name').allTextContents()).map((t) => t.trim());
    await expect.poll(names).toEqual(['alice', 'bob', 'carol', 'dave']);
    await page.getByLabel('Sort by').selectOption({ label: 'Name (Z to A)' });
    await expect.poll(names).toEqual(['dave', 'carol', 'bob', 'alice']);
    await page.getByRole('searchbox', { name: 'Search agents' }).fill('lab-cpu');
    await expect.poll(names).toEqual(['dave']);
    await page.goBack();
    await expect.poll(names).toEqual(['dave', 'carol', 'bob', 'alice']);
    expect(await page.getByRole('searchbox', { name: 'Search agents' }).inputValue()).toBe('');
    await page.goBack();
    await expect.poll(names).toEqual(['alice', 'bob', 'carol', 'dave']);
    expect(await page.getByLabel('Sort by').inputValue()).toBe('name:asc');
    await page.goto(`${server.url}/agents?host=nowhere&sort=price&last_access=yesterday`);
    await expect.poll(names).toEqual(['alice', 'bob', 'carol', 'dave']);
    expect(errors).toEqual([]);
    await context.close();
  });
});
