/**
 * The console's agent administration in real Chromium against the real server (issue 14):
 * deleting an agent (and then its host), key status, errors a person can act on.
 */
import type { Browser } from 'playwright-core';
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
import { adminLogin, api, createAgent, createHost, type Server, startServer } from './harness.js';

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

describe('agent administration in the console', () => {
  it('deletes an agent after confirmation; an owner is refused with the reason; the emptied host can go', async () => {
    const host = await createHost(server, cookie, ['127.0.0.1'], 'doomed-host');
    const leaver = await createAgent(server, cookie, host.host_id, 'leaver');
    const boss = await createAgent(server, cookie, host.host_id, 'boss');
    const group = await api(server, 'POST', '/groups', {
      key: boss.key,
      body: { name: 'bosses', invitee_ids: [leaver.agent.agent_id] },
    });
    expect(group.status).toBe(201);
    const groupId = group.body.group.group_id as string;
    expect((await api(server, 'POST', `/groups/${groupId}/join`, { key: leaver.key })).status).toBe(200);
    expect((await api(server, 'GET', '/me', { key: leaver.key })).status).toBe(200);

    const context = await newContext(browser);
    const page = await context.newPage();
    const errors = watchPageErrors(page);
    await signIn(page, server.url, server.adminPassword as string);
    await page.getByRole('link', { name: 'Agents' }).click();
    const leaverRow = page.locator('tr', { hasText: 'leaver' });
    await leaverRow.waitFor();

    // Cancelling changes nothing.
    await rowAction(leaverRow, 'Delete agent leaver');
    await (await openedDialog(page, 'sb-confirm', 'Delete agent')).getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('dialog', { name: 'Delete agent' }).waitFor({ state: 'hidden' });
    expect((await api(server, 'GET', '/me', { key: leaver.key })).status).toBe(200);

    await rowAction(leaverRow, 'Delete agent leaver');
    const confirm = await openedDialog(page, 'sb-confirm', 'Delete agent');
    await confirm.getByText(/stops working at once/).waitFor();
    await screenshot(page, 'delete-agent');
    await confirm.getByRole('button', { name: 'Delete agent' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Deleted agent leaver');
    await leaverRow.waitFor({ state: 'detached' });
    expect((await api(server, 'GET', '/me', { key: leaver.key })).status).toBe(401);
    const members = await api(server, 'GET', `/groups/${groupId}`, { key: boss.key });
    expect(members.body.group.members.map((m: { agent_id: string }) => m.agent_id)).toEqual([boss.agent.agent_id]);

    // The owner of an active group: refused, with the reason, and still there.
    const bossRow = page.locator('tr', { hasText: 'boss' });
    await rowAction(bossRow, 'Delete agent boss');
    await (await openedDialog(page, 'sb-confirm', 'Delete agent'))
      .getByRole('button', { name: 'Delete agent' })
      .click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('owns 1 active group');
    expect((await api(server, 'GET', '/me', { key: boss.key })).status).toBe(200);

    // Once the group is dissolved, the owner goes, and then the host it leaves empty.
    expect((await api(server, 'DELETE', `/admin/groups/${groupId}`, { cookie })).status).toBe(200);
    await rowAction(bossRow, 'Delete agent boss');
    await (await openedDialog(page, 'sb-confirm', 'Delete agent'))
      .getByRole('button', { name: 'Delete agent' })
      .click();
    await bossRow.waitFor({ state: 'detached' });
    await page.getByRole('link', { name: 'Hosts' }).click();
    const hostRow = page.locator('tr', { hasText: 'doomed-host' });
    await hostRow.getByRole('button', { name: 'Delete host doomed-host' }).click();
    await (await openedDialog(page, 'sb-confirm', 'Delete host')).getByRole('button', { name: 'Delete' }).click();
    await hostRow.waitFor({ state: 'detached' });
    const hosts = await api(server, 'GET', '/admin/hosts', { cookie });
    expect(hosts.body.hosts.map((h: { name: string }) => h.name)).not.toContain('doomed-host');

    expect(errors).toEqual([]);
    await context.close();
  });
});
