/**
 * Administrators and the audit log in real Chromium (issue 14, items 7 and 8): the first
 * administrator adds a second one; the second signs in (in French), changes their password; the
 * first lists and ends the second's session, which signs the second out; the audit log shows
 * these actions filtered by administrator, in English and in French.
 */
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, newContext, openedDialog, screenshot, signIn, watchPageErrors } from './browser-kit.js';
import { adminLogin, api, DEFAULT_ADMIN_PASSWORD, type Server, startServer } from './harness.js';

let server: Server;
let browser: Browser;

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchChromium()]);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

const SECOND = { username: 'second', initial: 'initial passphrase 42', changed: 'changed passphrase 42' };

/** Signs in through the form by field IDs, so it works in any language. */
async function signInAs(page: Page, username: string, password: string): Promise<void> {
  await page.locator('sb-login #username').fill(username);
  await page.locator('sb-login #password').fill(password);
  await page.locator('sb-login button[type=submit]').click();
}

/** The audit rows on screen as [admin, action label] pairs. */
function auditRows(page: Page): Promise<string[][]> {
  return page
    .locator('sb-audit tbody tr')
    .evaluateAll((rows) =>
      rows.map((row) => [
        row.getAttribute('data-admin') ?? '',
        (row.querySelector('td:nth-child(3)')?.textContent ?? '').trim(),
      ]),
    );
}

describe('administrators in the console', () => {
  it('a second administrator changes their password, the first ends their session, the audit log shows it', async () => {
    const first = await (await newContext(browser)).newPage();
    const firstErrors = watchPageErrors(first);
    await signIn(first, server.url, DEFAULT_ADMIN_PASSWORD);

    // The first administrator adds the second.
    await first.getByRole('link', { name: 'Administrators' }).click();
    await first.getByRole('heading', { level: 1, name: 'Administrators' }).waitFor();
    await first.getByLabel('Username').fill(SECOND.username);
    await first.getByLabel('Initial password').fill(SECOND.initial);
    await first.getByRole('button', { name: 'Add administrator' }).click();
    await first.locator(`sb-admins tr[data-username=${SECOND.username}]`).waitFor();

    // The second signs in with a French browser and changes their password.
    const second = await (await newContext(browser, { locale: 'fr-FR' })).newPage();
    const secondErrors = watchPageErrors(second);
    await second.goto(`${server.url}/`);
    await signInAs(second, SECOND.username, SECOND.initial);
    await second.getByRole('heading', { level: 1, name: 'Vue d’ensemble' }).waitFor();
    await second.getByRole('link', { name: 'Administrateurs' }).click();
    await second.getByRole('heading', { level: 1, name: 'Administrateurs' }).waitFor();
    await second.getByLabel('Mot de passe actuel').fill('not the password at all');
    await second.getByLabel('Nouveau mot de passe', { exact: true }).fill(SECOND.changed);
    await second.getByLabel('Répétez le nouveau mot de passe').fill(SECOND.changed);
    await second.getByRole('button', { name: 'Changer le mot de passe' }).click();
    await expect.poll(() => second.getByRole('alert').textContent()).toContain('Le mot de passe actuel est incorrect.');
    await second.getByLabel('Mot de passe actuel').fill(SECOND.initial);
    await second.getByRole('button', { name: 'Changer le mot de passe' }).click();
    await expect
      .poll(() => second.locator('sb-password-form [role=status]').textContent())
      .toContain('Mot de passe changé');
    await screenshot(second, 'admins-fr');

    // The first lists the second's session and ends it.
    await first.reload();
    await first.getByRole('heading', { level: 1, name: 'Administrators' }).waitFor();
    const row = first.locator(`sb-admin-sessions tr[data-username=${SECOND.username}]`);
    await row.waitFor();
    expect(await row.textContent()).toContain('127.0.0.1');
    expect(await row.textContent()).toMatch(/Chrom/);
    await screenshot(first, 'admins-en');
    await first.getByRole('button', { name: `End session (${SECOND.username})` }).click();
    const confirm = await openedDialog(first, 'sb-admin-sessions sb-confirm', 'End session');
    await confirm.getByRole('button', { name: 'End session' }).click();
    await expect.poll(() => row.count()).toBe(0);

    // The second is signed out at their next request.
    await second.getByRole('link', { name: 'Journal d’audit' }).click();
    await second.locator('sb-login').waitFor();
    const ended = await api(server, 'GET', '/admin/sessions?username=second', { cookie: await adminLogin(server) });
    expect(ended.body.sessions).toEqual([]);

    // The audit log, filtered by administrator.
    await first.getByRole('link', { name: 'Audit log' }).click();
    await first.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    await first.locator('sb-audit select#admin option[value=second]').waitFor({ state: 'attached' });
    await first.locator('sb-audit select#admin').selectOption(SECOND.username);
    await first.getByRole('button', { name: 'Apply filters' }).click();
    await expect
      .poll(() => auditRows(first))
      .toEqual([
        [SECOND.username, 'Changed their password'],
        [SECOND.username, 'Changed their password'],
        [SECOND.username, 'Signed in'],
      ]);
    expect(await first.locator('sb-audit tbody tr').first().textContent()).toContain('Succeeded');
    const refused = first.locator('sb-audit tbody tr').nth(1);
    expect(await refused.locator('[data-code="forbidden"]').textContent()).toContain('This action is not allowed.');
    await first.locator('sb-audit select#admin').selectOption('admin');
    await first.locator('sb-audit select#action').selectOption('endAdminSession');
    await first.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => auditRows(first)).toEqual([['admin', 'Ended a session']]);
    await screenshot(first, 'audit-en');

    // An agent's change reads with names beside IDs and each field's old and new value, and the
    // filtered log exports as CSV.
    const cookie = await adminLogin(server);
    const host = await api(server, 'POST', '/admin/hosts', { cookie, body: { name: 'lab', addresses: ['192.0.2.9'] } });
    const made = await api(server, 'POST', '/admin/agents', {
      cookie,
      body: { name: 'old-bot', host_id: host.body.host.host_id },
    });
    const agentId = made.body.agent.agent_id as string;
    await api(server, 'PATCH', `/admin/agents/${agentId}`, { cookie, body: { name: 'build-bot' } });
    await first.locator('sb-audit select#admin').selectOption('');
    await first.locator('sb-audit select#action').selectOption('updateAgent');
    await first.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => auditRows(first)).toEqual([['admin', 'Changed an agent']]);
    const changed = first.locator('sb-audit tbody tr').first();
    expect(await changed.locator('td.targets').textContent()).toMatch(new RegExp(`build-bot\\s+${agentId}`));
    expect(await changed.locator('td.changes').textContent()).toMatch(/Name: old-bot → build-bot/);
    const [download] = await Promise.all([first.waitForEvent('download'), first.getByTestId('audit-export').click()]);
    const csv = readFileSync((await download.path()) as string, 'utf8').split('\r\n');
    expect(csv[0]).toBe('at,admin,action,targets,changes,client_address,outcome,count,last_at,request_id');
    expect(csv[1]).toContain(`,admin,updateAgent,${agentId} (build-bot); hst_`);
    expect(csv[1]).toContain(' (lab),name: old-bot → build-bot,');
    expect(csv.slice(2)).toEqual(['']);
    await expect.poll(() => first.locator('sb-audit [role=status]').textContent()).toBe('Entries exported: 1.');

    // The second signs in again with the new password; the audit log reads in French.
    await signInAs(second, SECOND.username, SECOND.changed);
    await second.getByRole('link', { name: 'Journal d’audit' }).click();
    await second.getByRole('heading', { level: 1, name: 'Journal d’audit' }).waitFor();
    await second.locator('sb-audit select#admin option[value=second]').waitFor({ state: 'attached' });
    await second.locator('sb-audit select#admin').selectOption(SECOND.username);
    await second.getByRole('button', { name: 'Appliquer les filtres' }).click();
    await expect
      .poll(() => auditRows(second))
      .toEqual([
        [SECOND.username, 'Connexion'],
        [SECOND.username, 'Mot de passe changé'],
        [SECOND.username, 'Mot de passe changé'],
        [SECOND.username, 'Connexion'],
      ]);
    expect(await second.locator('sb-audit tbody tr').first().textContent()).toContain('Réussi');
    await screenshot(second, 'audit-fr');

    expect(firstErrors).toEqual([]);
    expect(secondErrors).toEqual([]);
  });
});
