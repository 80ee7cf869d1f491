/**
 * Key status and the agent page in real Chromium against the real server (issue 14, items 3 and
 * 6): the list row follows the key (working, revoked, issued again), the new-key dialog's login
 * command works with the real CLI and Escape asks first, and the agent page shows refused
 * requests (wrong key, wrong address), last access with its address, and inbox depth.
 */
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  launchChromium,
  newContext,
  openedDialog,
  rowAction,
  screenshot,
  signIn,
  watchPageErrors,
} from './browser-kit.js';
import { runCli, tempConfig } from './cli-process.js';
import { adminLogin, api, createAgent, createHost, type Server, startServer } from './harness.js';

/** The accessible names of a row's menu actions, read with its menu open; the menu is closed again. */
async function menuActions(row: Locator): Promise<string[]> {
  await row.getByRole('button', { name: /^More actions for / }).click();
  await row.getByRole('menuitem').first().waitFor();
  const names = await row
    .getByRole('menuitem')
    .evaluateAll((items) => items.map((item) => item.getAttribute('aria-label') ?? ''));
  await row.page().keyboard.press('Escape');
  await row.getByRole('menuitem').first().waitFor({ state: 'hidden' });
  return names;
}

let server: Server;
let browser: Browser;
let cookie: string;

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchChromium()]);
  cookie = await adminLogin(server);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

const prefixOf = (key: string) => key.slice(0, key.indexOf('.') + 5);

/** Refreshes the agent page until `text` shows in it (data arrives asynchronously). */
async function pageShows(page: Page, text: string): Promise<void> {
  const agentPage = page.locator('sb-agent-page');
  await expect
    .poll(async () => {
      if ((await agentPage.getByText(text).count()) > 0) return true;
      await agentPage.getByRole('button', { name: /Refresh|Actualiser/ }).click();
      return false;
    })
    .toBe(true);
}

describe('key status and the agent page', () => {
  it('follows the key in the list, guards the key dialog, and diagnoses the agent on its page', async () => {
    const host = await createHost(server, cookie, ['127.0.0.1'], 'page-host');
    const scout = await createAgent(server, cookie, host.host_id, 'scout');
    const pinger = await createAgent(server, cookie, host.host_id, 'pinger');
    const scoutId = scout.agent.agent_id;

    const context = await newContext(browser);
    const page = await context.newPage();
    const errors = watchPageErrors(page);
    await signIn(page, server.url, server.adminPassword as string);
    await page.getByRole('link', { name: 'Agents' }).click();
    const row = page.locator('tr', { hasText: 'scout' });
    await row.waitFor();

    // A working key: its prefix and issue time, and both key actions.
    await row.getByText('Working key').waitFor();
    expect(await row.getByTestId('key-prefix').textContent()).toBe(`${prefixOf(scout.key)}…`);
    expect(await row.getByTestId('key-issued').textContent()).toMatch(/^Issued \w/);
    const working = await menuActions(row);
    expect(working).toEqual(expect.arrayContaining(['Issue a new key for scout', 'Revoke the key of scout']));
    expect(working).not.toContain('Issue a key for scout');

    // Revoked: the row says so and offers only to issue a key.
    await rowAction(row, 'Revoke the key of scout');
    await (await openedDialog(page, 'sb-confirm', 'Revoke key')).getByRole('button', { name: 'Revoke key' }).click();
    await row.getByText('Key revoked').waitFor();
    const revoked = await menuActions(row);
    expect(revoked).toContain('Issue a key for scout');
    expect(revoked).not.toContain('Revoke the key of scout');
    expect(revoked).not.toContain('Issue a new key for scout');
    expect((await api(server, 'GET', '/me', { key: scout.key })).status).toBe(401);

    // Issuing shows the key once, with a login command for this server; Escape asks first.
    await rowAction(row, 'Issue a key for scout');
    const dialog = await openedDialog(page, 'sb-key-dialog', 'New API key');
    const key = ((await dialog.getByTestId('api-key').textContent()) ?? '').trim();
    expect(key).toMatch(new RegExp(`^sbk_${scoutId}\\.`));
    const command = ((await dialog.getByTestId('login-command').textContent()) ?? '').trim();
    expect(command).toBe(`printf '%s\\n' '${key}' | switchboard login --profile scout --url ${server.url} --key-stdin`);
    await page.keyboard.press('Escape');
    await dialog.getByTestId('keep-open').waitFor();
    expect(await page.getByRole('dialog', { name: 'New API key' }).isVisible()).toBe(true);
    await screenshot(page, 'key-dialog-escape');
    await dialog.getByTestId('keep-open').click();
    await dialog.getByTestId('keep-open').waitFor({ state: 'detached' });
    expect(await page.getByRole('dialog', { name: 'New API key' }).isVisible()).toBe(true);

    // The command, pasted into a shell with the real CLI, saves a profile that works.
    const config = tempConfig();
    const login = await runCli([command.replace('switchboard login', 'node "$CLI" login')], {
      shell: true,
      env: { SWITCHBOARD_CONFIG: config },
    });
    expect(login.code, login.stderr).toBe(0);
    expect(login.json.agent.agent_id).toBe(scoutId);
    const me = await runCli(['--profile', 'scout', 'me'], { env: { SWITCHBOARD_CONFIG: config } });
    expect(me.json?.agent_id, me.stderr).toBe(scoutId);

    await page.keyboard.press('Escape');
    await dialog.getByTestId('close-anyway').click();
    await page.getByRole('dialog', { name: 'New API key' }).waitFor({ state: 'hidden' });
    await row.getByText('Working key').waitFor();
    expect(await row.getByTestId('key-prefix').textContent()).toBe(`${prefixOf(key)}…`);

    // A misconfigured client: the old key, a key with a wrong secret, and a wrong address.
    expect((await api(server, 'GET', '/me', { key: scout.key })).status).toBe(401);
    const forged = `sbk_${scoutId}.${'A'.repeat(43)}`;
    expect((await api(server, 'GET', '/me', { key: forged })).status).toBe(401);
    expect(
      (await api(server, 'PATCH', `/admin/hosts/${host.host_id}`, { cookie, body: { addresses: ['192.0.2.10'] } }))
        .status,
    ).toBe(200);
    expect((await api(server, 'GET', '/me', { key })).status).toBe(403);
    expect(
      (await api(server, 'PATCH', `/admin/hosts/${host.host_id}`, { cookie, body: { addresses: ['127.0.0.1'] } }))
        .status,
    ).toBe(200);
    // And some mail waiting for it: one message parked (claimed max_deliveries times, released), one claimed.
    for (const body of ['first', 'second']) {
      const sent = await api(server, 'POST', '/messages/direct', {
        key: pinger.key,
        body: { to_agent_ids: [scoutId], body },
      });
      expect(sent.status).toBe(200);
    }
    const setMax = async (n: number) =>
      expect((await api(server, 'PATCH', '/admin/settings', { cookie, body: { max_deliveries: n } })).status).toBe(200);
    await setMax(1);
    const [first] = (await api(server, 'POST', '/inbox/claim', { key, body: { limit: 1 } })).body.claims;
    const items = [{ message_id: first.message.message_id, claim_token: first.claim_token }];
    expect((await api(server, 'POST', '/inbox/release', { key, body: { items } })).body.results[0].status).toBe(
      'released',
    );
    expect((await api(server, 'POST', '/inbox/claim', { key, body: { limit: 1 } })).body.claims).toHaveLength(1);

    // The agent's name opens its page.
    await row.getByRole('link', { name: 'scout' }).click();
    await page.waitForURL(`${server.url}/agents/${scoutId}`);
    await page.getByRole('heading', { level: 1, name: 'scout' }).waitFor();
    await pageShows(page, 'Address not allowed for its host');
    await pageShows(page, 'Wrong key (not its current one)');
    const refused = page.locator('sb-agent-page tr[data-reason]');
    expect(await page.locator('sb-agent-page tr[data-reason="wrong_address"]').getAttribute('data-address')).toBe(
      '127.0.0.1',
    );
    expect(await page.locator('sb-agent-page tr[data-reason="wrong_key"]').count()).toBeGreaterThanOrEqual(1);
    expect(await refused.count()).toBeGreaterThanOrEqual(2);
    await pageShows(page, 'from 127.0.0.1');
    expect(await page.getByTestId('inbox-unread').textContent()).toBe('2');
    expect(await page.getByTestId('inbox-leased').textContent()).toBe('1');
    expect(await page.getByTestId('inbox-parked').textContent()).toBe('1');
    expect(await page.locator('sb-agent-page td[data-label="Parked"]').first().textContent()).toBe('1');
    await setMax(0);
    expect(await page.getByTestId('host-addresses').textContent()).toBe('127.0.0.1');
    expect(await page.getByTestId('agent-key').getByTestId('key-prefix').textContent()).toBe(`${prefixOf(key)}…`);
    const channel = page.getByRole('link', { name: 'Private with pinger' });
    await screenshot(page, 'agent-page');
    await channel.click();
    await page.waitForURL(/\/channels\/dm_/);
    await page.getByText('second').waitFor();

    // Another language: the page in French, nothing left in English on it.
    await page.goBack();
    await page.getByRole('heading', { level: 1, name: 'scout' }).waitFor();
    await page.locator('sb-language-picker select').selectOption('fr');
    await page.waitForFunction(() => document.documentElement.lang === 'fr');
    await page.getByRole('heading', { name: 'Requêtes refusées récentes' }).waitFor();
    await page.getByText('Clé valide').waitFor();
    await page.getByText('Adresse non autorisée pour son hôte').waitFor();
    await screenshot(page, 'agent-page-fr');
    // On a phone the tables become cards: nothing wider than the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByText('Clé valide').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(page, 'agent-page-phone');
    expect(errors).toEqual([]);
    await context.close();
  });
});
