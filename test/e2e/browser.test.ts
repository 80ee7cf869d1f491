/**
 * The administration console in real Chromium against the real server (REQ-03, 04, 09, 28,
 * 53, 55, 56, 57, 60, 61): sign-in, hosts and agents, the one-time key and its copy button, the
 * seven languages, settings in MB, keyboard use of dialogs, and a phone-sized layout.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  deepActiveElement,
  launchChromium,
  newContext,
  openedDialog,
  pickAgent,
  rowAction,
  screenshot,
  signIn,
  watchPageErrors,
} from './browser-kit.js';
import { EXPECTED_GPU, fakeNvidiaSmiDir, pathWith } from './fake-nvidia-smi.js';
import { adminLogin, api, createAgent, createHost, type Server, startServer } from './harness.js';

let server: Server;
let browser: Browser;
let cookie: string;

beforeAll(async () => {
  // A fake nvidia-smi first on the launcher's PATH, so the GPU card shows figures on any machine.
  [server, browser] = await Promise.all([
    startServer({ env: { PATH: pathWith(fakeNvidiaSmiDir()) } }),
    launchChromium(),
  ]);
  cookie = await adminLogin(server);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe('the console', () => {
  it('serves itself with a favicon, and answers any console path with the app (SPA)', async () => {
    for (const path of ['/', '/hosts', '/settings', '/setup']) {
      const res = await api(server, 'GET', path, { absolutePath: true });
      expect(res.status, path).toBe(200);
      expect(res.text).toContain('<title>Switchboard</title>');
    }
    const svg = await api(server, 'GET', '/favicon.svg', { absolutePath: true });
    expect(svg.status).toBe(200);
    expect(svg.headers['content-type']).toMatch(/image\/svg\+xml/);
    const png = await api(server, 'GET', '/favicon-32.png', { absolutePath: true });
    expect(png.status).toBe(200);
    expect(png.headers['content-type']).toMatch(/image\/png/);
    // The OpenAPI document is the worker's, not the console page (run_worker_first in wrangler.toml).
    const document = await api(server, 'GET', '/openapi.json', { absolutePath: true });
    expect(document.status).toBe(200);
    expect(document.body.openapi).toMatch(/^3\.1/);
    // The API keeps its own 404s: an unknown API path is not the console page.
    const missing = await api(server, 'GET', '/nope');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
  });

  it('signs in, creates a host with two addresses and an agent, and copies the key once shown', async () => {
    const context = await newContext(browser);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    const page = await context.newPage();
    const errors = watchPageErrors(page);

    await page.goto(`${server.url}/`);
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await screenshot(page, 'sign-in');
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Wrong username or password');
    await page.getByLabel('Password').fill(server.adminPassword as string);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();

    // Overview: counts and the four resources, each a figure or an explicit "Unavailable".
    for (const metric of ['cpu', 'memory', 'disk', 'gpu']) {
      const card = page.locator(`sb-resource[data-metric="${metric}"]`);
      await expect.poll(() => card.locator('[data-state]').count()).toBe(1);
      const state = await card.locator('[data-state]').getAttribute('data-state');
      if (state === 'unavailable') expect((await card.locator('.hint').textContent())?.trim()).not.toBe('');
      else expect(await card.locator('.figure').textContent()).toMatch(/%/);
    }
    const overview = await api(server, 'GET', '/admin/overview', { cookie });
    expect(overview.status).toBe(200);
    // Self-hosted, the launcher measures memory and disk from the operating system.
    expect(overview.body.resources.memory.available).toBe(true);
    expect(overview.body.resources.disk.available).toBe(true);
    // The GPU card shows nvidia-smi's figures: average utilization, memory used of total, the count.
    expect(overview.body.resources.gpu).toEqual(EXPECTED_GPU);
    const gpuCard = page.locator('sb-resource[data-metric="gpu"]');
    expect(await gpuCard.locator('[data-state]').getAttribute('data-state')).toBe('available');
    expect((await gpuCard.locator('.figure').textContent())?.trim()).toBe('21%');
    expect(await gpuCard.locator('meter').getAttribute('value')).toBe('21');
    expect(await gpuCard.locator('.hint').allTextContents()).toEqual([
      '2.1 GB of 51.5 GB',
      '2 GPUs (average utilization, memory summed)',
    ]);
    await screenshot(page, 'overview');

    // A host with two addresses.
    await page.getByRole('link', { name: 'Hosts' }).click();
    await page.getByRole('heading', { level: 1, name: 'Hosts' }).waitFor();
    await page.getByRole('button', { name: 'Add host' }).click();
    const hostDialog = await openedDialog(page, 'sb-host-dialog', 'Add host');
    await hostDialog.getByLabel('Name').fill('build-box');
    await hostDialog.getByLabel('IP address 1').fill('127.0.0.1');
    await hostDialog.getByRole('button', { name: 'Add address' }).click();
    await hostDialog.getByLabel('IP address 2').fill('::ffff:192.168.7.20');
    await hostDialog.getByLabel('Operating system').fill('Debian 12');
    await hostDialog.getByLabel('Description').fill('CI runner');
    await hostDialog.getByRole('button', { name: 'Add host' }).click();
    await page.getByRole('dialog', { name: 'Add host' }).waitFor({ state: 'hidden' });
    const row = page.locator('tr', { hasText: 'build-box' });
    await expect.poll(() => row.textContent()).toContain('192.168.7.20');
    const hosts = await api(server, 'GET', '/admin/hosts', { cookie });
    const host = hosts.body.hosts.find((h: { name: string }) => h.name === 'build-box');
    expect(host).toMatchObject({ addresses: ['127.0.0.1', '192.168.7.20'], os: 'Debian 12', description: 'CI runner' });
    await screenshot(page, 'hosts');

    // An agent; the create dialog has no language selector (REQ-60).
    await page.getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('heading', { level: 1, name: 'Agents' }).waitFor();
    await page.getByRole('button', { name: 'Add agent' }).click();
    const agentDialog = await openedDialog(page, 'sb-agent-dialog', 'Add agent');
    expect(await agentDialog.getByLabel(/language/i).count()).toBe(0);
    expect(await agentDialog.locator('select').count()).toBe(1); // the host, nothing else
    await agentDialog.getByLabel('Name', { exact: true }).fill('builder');
    await agentDialog.getByLabel('Display name').fill('The Builder');
    await agentDialog.getByLabel('Description').fill('Builds and tests every branch.');
    await agentDialog.getByLabel('Host').selectOption({ label: 'build-box' });
    await agentDialog.getByRole('button', { name: 'Add agent' }).click();

    const keyDialog = await openedDialog(page, 'sb-key-dialog', 'New API key');
    const shownKey = ((await keyDialog.getByTestId('api-key').textContent()) ?? '').trim();
    expect(shownKey).toMatch(/^sbk_agt_/);
    await screenshot(page, 'new-key');
    await keyDialog.getByRole('button', { name: 'Copy key' }).click();
    await expect.poll(() => keyDialog.getByRole('status').textContent()).toContain('Copied to the clipboard.');
    const clipboard = await page.evaluate(() => navigator.clipboard.readText());
    expect(clipboard).toBe(shownKey);
    // The key is real: the agent authenticates with it from its host's address.
    const me = await api(server, 'GET', '/me', { key: clipboard });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ name: 'builder', display_name: 'The Builder', host_id: host.host_id });
    // The description set in the dialog is what agents read in the directory.
    const directory = await api(server, 'GET', '/directory?name=builder', { key: clipboard });
    expect(directory.body.agents[0]).toMatchObject({ name: 'builder', description: 'Builds and tests every branch.' });

    await keyDialog.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('dialog', { name: 'New API key' }).waitFor({ state: 'hidden' });
    // Shown once: closed, the key is gone from the page.
    expect(await page.locator('sb-key-dialog').evaluate((el) => el.shadowRoot?.textContent ?? '')).not.toContain(
      shownKey,
    );
    const agentRow = page.locator('tr', { hasText: 'builder' });
    await expect.poll(() => agentRow.textContent()).toContain('Enabled');
    await screenshot(page, 'agents');

    // Disable, then enable again.
    await rowAction(agentRow, 'Disable agent builder');
    await expect.poll(() => agentRow.textContent()).toContain('Disabled');
    expect((await api(server, 'GET', '/me', { key: shownKey })).status).toBe(401);
    await rowAction(agentRow, 'Enable agent builder');
    await expect.poll(() => agentRow.textContent()).toContain('Enabled');
    expect((await api(server, 'GET', '/me', { key: shownKey })).status).toBe(200);

    // A new key replaces the old one at once; revoking leaves none.
    await rowAction(agentRow, 'Issue a new key for builder');
    await (await openedDialog(page, 'sb-confirm', 'Issue a new key'))
      .getByRole('button', { name: 'Issue new key' })
      .click();
    await page.getByRole('dialog', { name: 'New API key' }).waitFor();
    const newKey = ((await keyDialog.getByTestId('api-key').textContent()) ?? '').trim();
    expect(newKey).not.toBe(shownKey);
    await keyDialog.getByRole('button', { name: 'Copy key' }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(newKey);
    await keyDialog.getByRole('button', { name: 'Done' }).click();
    expect((await api(server, 'GET', '/me', { key: shownKey })).status).toBe(401);
    expect((await api(server, 'GET', '/me', { key: newKey })).status).toBe(200);
    await rowAction(agentRow, 'Revoke the key of builder');
    await (await openedDialog(page, 'sb-confirm', 'Revoke key')).getByRole('button', { name: 'Revoke key' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Revoked the key of builder');
    expect((await api(server, 'GET', '/me', { key: newKey })).status).toBe(401);

    expect(errors).toEqual([]);
    await context.close();
  });

  it('says so when the key could not be copied, instead of claiming success (REQ-57)', async () => {
    const context = await newContext(browser);
    // Both ways of copying refuse, as in a locked-down browser.
    await context.addInitScript(() => {
      Object.defineProperty(navigator, 'clipboard', {
        value: { writeText: () => Promise.reject(new DOMException('Write permission denied.', 'NotAllowedError')) },
      });
      document.execCommand = () => false;
    });
    const page = await context.newPage();
    await signIn(page, server.url, server.adminPassword as string);
    const hostRes = await api(server, 'POST', '/admin/hosts', {
      cookie,
      body: { name: 'copy-host', addresses: ['10.9.9.9'] },
    });
    expect(hostRes.status).toBe(201);
    await page.getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('button', { name: 'Add agent' }).click();
    const agentDialog = await openedDialog(page, 'sb-agent-dialog', 'Add agent');
    await agentDialog.getByLabel('Name', { exact: true }).fill('copier');
    await agentDialog.getByLabel('Host').selectOption({ label: 'copy-host' });
    await agentDialog.getByRole('button', { name: 'Add agent' }).click();
    const keyDialog = await openedDialog(page, 'sb-key-dialog', 'New API key');
    await keyDialog.getByRole('button', { name: 'Copy key' }).click();
    await expect.poll(() => keyDialog.getByRole('status').textContent()).toContain('Not copied.');
    const status = (await keyDialog.getByRole('status').textContent()) ?? '';
    expect(status).toContain('NotAllowedError');
    expect(status).not.toContain('Copied to the clipboard');
    await screenshot(page, 'copy-failed');
    await context.close();
  });

  it('keeps focus inside a dialog and returns it to the opener on Escape', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    await signIn(page, server.url, server.adminPassword as string);
    await page.getByRole('link', { name: 'Hosts' }).click();
    const opener = page.getByRole('button', { name: 'Add host' });
    await opener.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'Add host' }).waitFor();
    expect(await deepActiveElement(page)).toMatchObject({ tag: 'input', id: 'name' });
    // Tab through more elements than the dialog has: focus never leaves it (the page is inert).
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab');
      const inDialog = await page.evaluate(() => {
        let active: Element | null = document.activeElement;
        const path: Element[] = [];
        while (active) {
          path.push(active);
          active = active.shadowRoot?.activeElement ?? null;
        }
        return path.some((el) => el.tagName === 'SB-HOST-DIALOG') || document.activeElement === document.body;
      });
      expect(inDialog, `Tab ${i + 1}`).toBe(true);
    }
    await page.keyboard.press('Escape');
    await page.getByRole('dialog', { name: 'Add host' }).waitFor({ state: 'hidden' });
    expect(await deepActiveElement(page)).toMatchObject({ tag: 'button', text: 'Add host' });
    await context.close();
  });

  it('changes a size limit in MB and the API stores bytes; bad input saves nothing (REQ-55, REQ-28)', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    await signIn(page, server.url, server.adminPassword as string);
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
    const fileSize = page.getByLabel('Largest file (MB)');
    await expect.poll(() => fileSize.inputValue()).toBe('50');
    const before = await api(server, 'GET', '/admin/settings', { cookie });
    expect(before.body.settings.max_file_bytes).toBe(50_000_000);

    await fileSize.fill('abc');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(() => fileSize.getAttribute('aria-invalid')).toBe('true');
    expect((await api(server, 'GET', '/admin/settings', { cookie })).body.settings_revision).toBe(
      before.body.settings_revision,
    );

    await fileSize.fill('12,5');
    await page.getByLabel('Claim duration (seconds)').fill('90');
    await page.getByRole('button', { name: 'Save settings' }).click();
    // Lowering a limit deletes data, so the page asks first.
    const confirm = await openedDialog(page, 'sb-settings sb-confirm', 'Lower limits?');
    await confirm.getByRole('button', { name: 'Lower and delete' }).click();
    await expect
      .poll(async () => (await api(server, 'GET', '/admin/settings', { cookie })).body.settings.max_file_bytes)
      .toBe(12_500_000);
    const stored = await api(server, 'GET', '/admin/settings', { cookie });
    expect(stored.body.settings.claim_seconds).toBe(90);
    expect(stored.body.settings_revision).toBe(before.body.settings_revision + 1);
    // The shell's toast region announces it with the new revision (admin-ui/src/toast.ts); the
    // view keeps no second "Saved" line of its own.
    await page
      .locator('sb-toasts [data-toast]', { hasText: `Saved. Settings revision ${stored.body.settings_revision}.` })
      .waitFor();
    expect(await page.locator('sb-settings .notice.ok').count()).toBe(0);
    expect(await page.getByTestId('settings-revision').textContent()).toBe(String(stored.body.settings_revision));
    await expect.poll(() => fileSize.inputValue()).toBe('12.5');
    expect(await page.locator('sb-cleanup-status [data-state]').count()).toBe(1);
    await screenshot(page, 'settings');

    // Raising needs no confirmation; the agents see the new claim duration.
    await fileSize.fill('50');
    await page.getByLabel('Claim duration (seconds)').fill('60');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect
      .poll(async () => (await api(server, 'GET', '/admin/settings', { cookie })).body.settings.max_file_bytes)
      .toBe(50_000_000);
    await context.close();
  });

  it('creates the metrics token once shown, and turns metrics off (operations.md, "Metrics")', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    await signIn(page, server.url, server.adminPassword as string);
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { level: 2, name: 'Metrics' }).waitFor();
    const scrape = (token: string) =>
      api(server, 'GET', '/metrics', { absolutePath: true, headers: { authorization: `Bearer ${token}` } });

    await page.getByTestId('metrics-create').click();
    const ask = await openedDialog(page, 'sb-metrics-token sb-confirm', 'Create a metrics token?');
    await ask.getByRole('button', { name: 'Create token' }).click();
    const shown = page.getByTestId('metrics-token');
    await shown.waitFor();
    const token = ((await shown.textContent()) ?? '').trim();
    expect(token).toMatch(/^sbm_/);
    const ok = await scrape(token);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.text).toContain('switchboard_build_info');
    await page.getByRole('button', { name: 'Hide token' }).click();
    expect(await shown.count()).toBe(0);

    await page.getByTestId('metrics-delete').click();
    const off = await openedDialog(page, 'sb-metrics-token sb-confirm', 'Turn metrics off?');
    await off.getByRole('button', { name: 'Turn metrics off' }).click();
    await page.locator('sb-toasts [data-toast]', { hasText: 'Metrics are off. The token was deleted.' }).waitFor();
    expect((await scrape(token)).status).toBe(404);
    await context.close();
  });

  it('works on a phone-sized screen', async () => {
    const context = await newContext(browser, {
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    const page = await context.newPage();
    await signIn(page, server.url, server.adminPassword as string);
    await screenshot(page, 'phone-overview');
    await page.getByRole('link', { name: 'Hosts' }).click();
    await page.getByRole('heading', { level: 1, name: 'Hosts' }).waitFor();
    // No horizontal scrolling of the page itself.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(1);
    await page.getByRole('button', { name: 'Add host' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add host' });
    await dialog.waitFor();
    const box = await dialog.boundingBox();
    expect(box && box.width <= 390).toBe(true);
    await screenshot(page, 'phone-host-dialog');
    await context.close();
  });

  it('switches among the seven languages, remembers the choice, and defaults from the browser (REQ-53)', async () => {
    const headings: [string, string, string][] = [
      // locale, the Overview heading, the Settings navigation link
      ['fr', 'Vue d’ensemble', 'Paramètres'],
      ['zh-Hans', '概览', '设置'],
      ['zh-Hant', '總覽', '設定'],
      ['it', 'Panoramica', 'Impostazioni'],
      ['es', 'Resumen', 'Configuración'],
      ['ru', 'Обзор', 'Настройки'],
      ['en', 'Overview', 'Settings'],
    ];
    const context = await newContext(browser);
    const page = await context.newPage();
    const errors = watchPageErrors(page);
    await signIn(page, server.url, server.adminPassword as string);
    const picker = page.locator('sb-language-picker select');
    for (const [locale, overview, settings] of headings) {
      await picker.selectOption(locale);
      await page.getByRole('heading', { level: 1, name: overview, exact: true }).waitFor();
      await expect.poll(() => page.getByRole('link', { name: settings, exact: true }).count()).toBe(1);
      expect(await page.evaluate(() => document.documentElement.lang)).toBe(locale);
      await page.locator('sb-resource[data-metric="memory"] [data-state]').waitFor();
      await screenshot(page, `overview-${locale}`);
    }
    // The choice persists across visits.
    await picker.selectOption('ru');
    await page.getByRole('heading', { level: 1, name: 'Обзор' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Обзор' }).waitFor();
    await page.getByRole('link', { name: 'Настройки' }).click();
    await page.getByRole('heading', { level: 1, name: 'Настройки' }).waitFor();
    // The form renders once the settings have loaded, after the heading: wait for it.
    await expect.poll(() => page.getByText('Самый большой файл (МБ)').count()).toBe(1);
    await screenshot(page, 'settings-ru');
    expect(errors).toEqual([]);
    await context.close();

    // Without a stored choice, the browser's language decides.
    for (const [browserLocale, signInHeading] of [
      ['zh-TW', '登入'],
      ['fr-CA', 'Se connecter'],
      ['de-DE', 'Sign in'],
    ] as const) {
      const fresh = await newContext(browser, { locale: browserLocale });
      const freshPage = await fresh.newPage();
      await freshPage.goto(`${server.url}/`);
      await freshPage.getByRole('heading', { level: 1, name: signInHeading }).waitFor();
      await fresh.close();
    }
  });

  it('shows groups with owner, members and invitations; filters, reassigns the owner, dissolves', async () => {
    const host = await createHost(server, cookie, ['127.0.0.1'], 'group-host');
    const owner = await createAgent(server, cookie, host.host_id, 'g-owner');
    const member = await createAgent(server, cookie, host.host_id, 'g-member');
    const invitee = await createAgent(server, cookie, host.host_id, 'g-invitee');
    const other = await createAgent(server, cookie, host.host_id, 'g-other');
    const created = await api(server, 'POST', '/groups', {
      key: owner.key,
      body: { name: 'Release crew', invitee_ids: [member.agent.agent_id, invitee.agent.agent_id] },
    });
    expect(created.status, created.text).toBe(201);
    const groupId = created.body.group.group_id as string;
    expect((await api(server, 'POST', `/groups/${groupId}/join`, { key: member.key })).status).toBe(200);
    const second = await api(server, 'POST', '/groups', {
      key: other.key,
      body: { name: 'Night shift', invitee_ids: [] },
    });
    expect(second.status, second.text).toBe(201);

    const context = await newContext(browser);
    const page = await context.newPage();
    const errors = watchPageErrors(page);
    await signIn(page, server.url, server.adminPassword as string);
    await page.getByRole('link', { name: 'Groups' }).click();
    await page.getByRole('heading', { level: 1, name: 'Groups' }).waitFor();
    const row = page.locator(`tr[data-group-id="${groupId}"]`);
    await expect.poll(() => row.textContent()).toContain('Release crew');
    // The agent list loads beside the groups: names replace the IDs once it arrives.
    await expect.poll(() => row.textContent()).toContain('g-owner');
    const text = (await row.textContent()) ?? '';
    expect(text).toContain('g-member');
    expect(text).toContain('g-invitee'); // pending invitation
    expect(await page.locator('tr[data-group-id]').count()).toBeGreaterThanOrEqual(2);
    await screenshot(page, 'groups');

    // Owner filter: only the groups that agent owns.
    await pickAgent(page, 'Owner', 'g-other');
    await expect.poll(() => page.locator('tr[data-group-id]').count()).toBe(1);
    expect(await page.locator('tr[data-group-id]').textContent()).toContain('Night shift');
    await page.getByRole('combobox', { name: 'Owner', exact: true }).fill('');
    // Member-or-invitee filter: the invitee's pending invitation counts.
    await pickAgent(page, 'Member or invitee', 'g-invitee');
    await expect.poll(() => page.locator('tr[data-group-id]').count()).toBe(1);
    await page.getByRole('combobox', { name: 'Member or invitee' }).fill('');
    await expect.poll(() => page.locator('tr[data-group-id]').count()).toBeGreaterThanOrEqual(2);

    // Reassign the owner to the active member (the pending invitee is not offered).
    await row.getByRole('button', { name: 'Change owner (Release crew)' }).click();
    const ownerDialog = await openedDialog(page, 'sb-owner-dialog', 'Change owner');
    await ownerDialog.getByRole('combobox', { name: 'New owner' }).click();
    const offered = await ownerDialog.getByRole('option').allTextContents();
    expect(offered.map((o) => o.trim())).toEqual(['g-member']);
    await ownerDialog.getByRole('option', { name: 'g-member' }).click();
    await ownerDialog.getByRole('button', { name: 'Change owner' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Owner changed.');
    const after = await api(server, 'GET', '/admin/groups', { cookie });
    const reassigned = after.body.groups.find((g: { group_id: string }) => g.group_id === groupId);
    expect(reassigned.owner_id).toBe(member.agent.agent_id);

    // Dissolve, after confirming.
    await row.getByRole('button', { name: 'Dissolve Release crew' }).click();
    await (await openedDialog(page, 'sb-groups sb-confirm', 'Dissolve group'))
      .getByRole('button', { name: 'Dissolve' })
      .click();
    await expect.poll(() => row.count()).toBe(0);
    const remaining = await api(server, 'GET', '/admin/groups', { cookie });
    expect(remaining.body.groups.map((g: { group_id: string }) => g.group_id)).not.toContain(groupId);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('signs out, and the session is over', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    const errors = watchPageErrors(page);
    await signIn(page, server.url, server.adminPassword as string);
    const session = (await context.cookies(server.url)).find((c) => c.name === 'switchboard_session');
    expect(session, 'the session cookie after sign-in').toBeDefined();
    const sessionCookie = `${session!.name}=${session!.value}`;
    expect((await api(server, 'GET', '/admin/overview', { cookie: sessionCookie })).status).toBe(200);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    expect(await page.getByRole('heading', { level: 1, name: 'Overview' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(0);
    // The browser dropped the cookie, and the server ended the session: the old cookie, replayed,
    // opens no admin route.
    await expect
      .poll(async () => (await context.cookies(server.url)).some((c) => c.name === 'switchboard_session'))
      .toBe(false);
    for (const path of ['/admin/overview', '/admin/hosts', '/admin/settings']) {
      const replayed = await api(server, 'GET', path, { cookie: sessionCookie });
      expect({ path, status: replayed.status, code: replayed.body?.error?.code }).toEqual({
        path,
        status: 401,
        code: 'unauthenticated',
      });
    }
    // Reloading, or opening an admin page directly, shows the sign-in page, not the console.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await page.goto(`${server.url}/hosts`);
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    expect(await page.getByRole('heading', { level: 1, name: 'Hosts' }).count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });
});
