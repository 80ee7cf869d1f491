/**
 * The console's Channels page in real Chromium against the real server (REQ-54, REQ-58, REQ-59):
 * separate Private and Group tabs with readable summaries, the participant-list and owner
 * filters, the content search (never names), the read-only message view with attachment
 * metadata, an agent's inbox unchanged by an administrator reading, a phone-sized layout and a
 * translated page. Screenshots go to test-results/screenshots/.
 */
import { createHash } from 'node:crypto';
import type { Browser, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, newContext, pickAgent, screenshot, signIn, watchPageErrors } from './browser-kit.js';
import { adminLogin, api, createAgent, createHost, type Server, startServer } from './harness.js';

let server: Server;
let browser: Browser;
let cookie: string;

interface Agent {
  id: string;
  key: string;
}
const agents: Record<string, Agent> = {};
const channels: Record<string, string> = {};
const FILE_TEXT = 'build log: all 42 steps passed\n';

async function send(from: Agent, to: Agent, body: string): Promise<string> {
  const res = await api(server, 'POST', '/messages/direct', { key: from.key, body: { to_agent_ids: [to.id], body } });
  expect(res.body.results?.[0]?.status, res.text).toBe('sent');
  return res.body.results[0].channel_id as string;
}

async function sendFile(from: Agent, to: Agent, body: string): Promise<void> {
  const form = new FormData();
  form.append('metadata', JSON.stringify({ to_agent_ids: [to.id], body }));
  form.append('file', new Blob([FILE_TEXT], { type: 'text/plain' }), 'build-log.txt');
  const res = await fetch(`${server.url}/api/v1/messages/direct`, {
    method: 'POST',
    headers: { authorization: `Bearer ${from.key}` },
    body: form,
  });
  const answer = (await res.json()) as { results: { status: string }[] };
  expect(answer.results[0]?.status, JSON.stringify(answer)).toBe('sent');
}

async function group(owner: Agent, name: string, invitees: Agent[]): Promise<string> {
  const res = await api(server, 'POST', '/groups', {
    key: owner.key,
    body: { name, invitee_ids: invitees.map((a) => a.id) },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.group.group_id as string;
}

const rows = (page: Page) => page.locator('sb-channels tr[data-channel-id]');
const rowIds = async (page: Page) =>
  (await rows(page).evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-channel-id')))).sort();

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchChromium()]);
  cookie = await adminLogin(server);
  const host = await createHost(server, cookie, ['127.0.0.1'], 'chat-host');
  for (const name of ['alice', 'bob', 'carol', 'dave']) {
    const { agent, key } = await createAgent(server, cookie, host.host_id, name);
    agents[name] = { id: agent.agent_id, key };
  }
  const { alice, bob, carol, dave } = agents as Record<string, Agent>;
  channels.ab = await send(alice!, bob!, 'hello bob, lunch at noon?');
  channels.ac = await send(alice!, carol!, 'Deploy FAILED on host 7');
  await sendFile(carol!, alice!, 'here is the build log');
  channels.crew = await group(alice!, 'Release crew', [bob!, carol!]);
  expect((await api(server, 'POST', `/groups/${channels.crew}/join`, { key: bob!.key })).status).toBe(200);
  const said = await api(server, 'POST', `/groups/${channels.crew}/messages`, {
    key: alice!.key,
    body: { body: 'disk full on db-2' },
  });
  expect(said.status, said.text).toBe(200);
  channels.night = await group(dave!, 'Night shift', []);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe('the Channels page', () => {
  it('shows private and group conversations in tabs, filters by identity and searches content', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    const errors = watchPageErrors(page);
    // The pickers ask the server as the administrator types: no page downloads the agent list.
    const agentLists: URL[] = [];
    page.on('request', (r) => {
      const url = new URL(r.url());
      if (url.pathname === '/api/v1/admin/agents') agentLists.push(url);
    });
    await signIn(page, server.url, server.adminPassword as string);
    await page.getByRole('link', { name: 'Channels' }).click();
    await page.getByRole('heading', { level: 1, name: 'Channels' }).waitFor();

    // Private tab (the default): readable summaries with both names, counts, last activity.
    const privateTab = page.getByRole('tab', { name: 'Private conversations' });
    expect(await privateTab.getAttribute('aria-selected')).toBe('true');
    expect(await privateTab.locator('svg').count()).toBe(1);
    await expect.poll(() => rowIds(page)).toEqual([channels.ab, channels.ac].sort());
    const ac = page.locator(`tr[data-channel-id="${channels.ac}"]`);
    const acText = (await ac.textContent()) ?? '';
    expect(acText).toContain('alice');
    expect(acText).toContain('carol');
    expect(await ac.locator('td[data-label="Messages"]').textContent()).toContain('2');
    expect(await ac.locator('td[data-label="Files"]').textContent()).toContain('1');
    expect(await ac.locator('td[data-label="Last activity"] time').count()).toBe(1);
    await screenshot(page, 'channels-private');

    // Participant-list filter: bob narrows to the alice–bob conversation; removing him undoes it.
    // Picking is explicit (a click or Enter), so no Add button is needed.
    await pickAgent(page, 'Participants', 'bob');
    await expect.poll(() => rowIds(page)).toEqual([channels.ab]);
    expect(page.url()).toContain(`participant=${agents.bob?.id}`);
    await page.getByRole('button', { name: 'Remove bob' }).click();
    await expect.poll(() => rowIds(page)).toEqual([channels.ab, channels.ac].sort());

    // Content search: case-insensitive, over message text only, never over names.
    const search = page.getByLabel('Search message content');
    await search.fill('deploy failed');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => rowIds(page)).toEqual([channels.ac]);
    expect(await ac.locator('td[data-label="Matching messages"]').textContent()).toContain('1');
    await expect
      .poll(() => page.locator('sb-channels').getByRole('status').textContent())
      .toContain('Channels with matches: 1');
    await screenshot(page, 'channels-search');
    await search.fill('alice');
    await search.press('Enter');
    await expect.poll(() => rowIds(page)).toEqual([]);
    expect(await page.getByText('No channel among those searched has a retained message with this text.').count()).toBe(
      1,
    );
    await page.getByRole('button', { name: 'Clear search' }).click();
    await expect.poll(() => rowIds(page)).toEqual([channels.ab, channels.ac].sort());

    // Group tab, reached with the keyboard (arrow keys move between tabs).
    await privateTab.focus();
    await page.keyboard.press('ArrowRight');
    const groupTab = page.getByRole('tab', { name: 'Group conversations' });
    await expect.poll(() => groupTab.getAttribute('aria-selected')).toBe('true');
    await expect.poll(() => rowIds(page)).toEqual([channels.crew, channels.night].sort());
    const crew = page.locator(`tr[data-channel-id="${channels.crew}"]`);
    const crewText = (await crew.textContent()) ?? '';
    expect(crewText).toContain('Release crew');
    expect(crewText).toContain('invited'); // carol has not joined
    expect(await crew.locator('td[data-label="Owner"]').textContent()).toContain('alice');
    await screenshot(page, 'channels-groups');

    // Owner filter, then the participant list (an invitee counts as a participant).
    await pickAgent(page, 'Owner', 'dave');
    await expect.poll(() => rowIds(page)).toEqual([channels.night]);
    await page.getByRole('combobox', { name: 'Owner', exact: true }).fill('');
    await pickAgent(page, 'Participants', 'carol');
    await expect.poll(() => rowIds(page)).toEqual([channels.crew]);
    await page.getByLabel('Search message content').fill('DISK FULL');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => rowIds(page)).toEqual([channels.crew]);
    await screenshot(page, 'channels-groups-filtered');
    expect(agentLists.length).toBeGreaterThan(0);
    for (const url of agentLists) expect(url.searchParams.get('limit'), url.search).toBe('50');

    // A failed search says so in the list; typing again asks again.
    const refuse = (route: Route) => route.fulfill({ status: 500, contentType: 'application/json', body: '{}' });
    await page.route('**/api/v1/admin/agents?**', refuse);
    await page.getByRole('combobox', { name: 'Participants', exact: true }).fill('dav');
    await page.getByText('The agents could not be searched; type again to retry.').waitFor();
    await page.unroute('**/api/v1/admin/agents?**', refuse);
    await page.getByRole('combobox', { name: 'Participants', exact: true }).fill('dave');
    await page.getByRole('option', { name: 'dave', exact: true }).waitFor();
    await page.getByRole('combobox', { name: 'Participants', exact: true }).fill('');

    // An address with a participant filter, opened as a link, names the agent in its chip.
    await page.goto(`${server.url}/channels?tab=private&participant=${agents.bob?.id}`);
    await page.getByRole('button', { name: 'Remove bob' }).waitFor();
    await expect.poll(() => rowIds(page)).toEqual([channels.ab]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('opens a read-only message view with attachment metadata, and no agent’s inbox changes', async () => {
    const carol = agents.carol as Agent;
    const alice = agents.alice as Agent;
    const before = await Promise.all([
      api(server, 'GET', '/inbox', { key: carol.key }),
      api(server, 'GET', '/inbox', { key: alice.key }),
    ]);
    expect(before[0].body.unread).toBeGreaterThan(0);

    const context = await newContext(browser);
    const page = await context.newPage();
    const errors = watchPageErrors(page);
    await signIn(page, server.url, server.adminPassword as string);
    await page.goto(`${server.url}/channels?tab=private&q=deploy`);
    await expect.poll(() => rowIds(page)).toEqual([channels.ac]);
    await page.getByRole('link', { name: /^Read messages \(/ }).click();

    const heading = page.getByRole('heading', { level: 1 });
    await expect.poll(() => heading.textContent()).toContain('carol');
    expect(page.url()).toBe(`${server.url}/channels/${channels.ac}`);
    const messages = page.locator('sb-channel-messages li[data-message-id]');
    await expect.poll(() => messages.count()).toBe(2);
    expect(await messages.nth(0).textContent()).toContain('Deploy FAILED on host 7');
    const attachment = page.getByRole('definition').filter({ hasText: 'build-log.txt' });
    expect(await attachment.count()).toBe(1);
    const fileText = (await messages.nth(1).textContent()) ?? '';
    expect(fileText).toContain('text/plain');
    expect(fileText).toContain(createHash('sha256').update(FILE_TEXT).digest('hex'));
    expect(fileText).toContain(`${Buffer.byteLength(FILE_TEXT)} bytes`);
    expect(
      await page.getByText('Read-only: reading here claims nothing and marks nothing read.', { exact: false }).count(),
    ).toBe(1);
    await screenshot(page, 'channel-messages');

    // Newest first, then back to the list as it was.
    await page.getByLabel('Order').selectOption({ label: 'Newest first' });
    await expect.poll(() => messages.nth(0).textContent()).toContain('here is the build log');
    await page.getByRole('link', { name: 'All channels' }).click();
    await expect.poll(() => rowIds(page)).toEqual([channels.ac]);
    expect(await page.getByLabel('Search message content').inputValue()).toBe('deploy');

    const after = await Promise.all([
      api(server, 'GET', '/inbox', { key: carol.key }),
      api(server, 'GET', '/inbox', { key: alice.key }),
    ]);
    expect(after.map((r) => r.body)).toEqual(before.map((r) => r.body));
    expect(errors).toEqual([]);
    await context.close();
  });

  it('works on a phone-sized screen and in another language', async () => {
    const context = await newContext(browser, {
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    const page = await context.newPage();
    const errors = watchPageErrors(page);
    await signIn(page, server.url, server.adminPassword as string);
    await page.goto(`${server.url}/channels?tab=group`);
    await expect.poll(() => rowIds(page)).toEqual([channels.crew, channels.night].sort());
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(1);
    await screenshot(page, 'channels-phone');
    await page.goto(`${server.url}/channels/${channels.ac}`);
    await expect.poll(() => page.locator('sb-channel-messages li[data-message-id]').count()).toBe(2);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(1);
    await screenshot(page, 'channel-messages-phone');

    await page.locator('sb-language-picker select').selectOption('ru');
    await page.waitForFunction(() => document.documentElement.lang === 'ru');
    await page.goto(`${server.url}/channels?tab=private`);
    await page.getByRole('tab', { name: 'Личные беседы' }).waitFor();
    expect(await page.getByRole('tab', { name: 'Групповые беседы' }).count()).toBe(1);
    expect(await page.getByLabel('Поиск по тексту сообщений').count()).toBe(1);
    await screenshot(page, 'channels-ru');
    expect(errors).toEqual([]);
    await context.close();
  });
});
