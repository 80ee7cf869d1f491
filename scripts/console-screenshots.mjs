#!/usr/bin/env node
/**
 * Screenshots of the console for docs/console.md (`npm run docs:screenshots`, after
 * `npm run build`): starts the real server on a fresh data directory, seeds a small demo fleet
 * through the HTTP API (hosts, agents, private and group messages), signs in with real Chromium
 * (the Debian package, as the browser tests use; SWITCHBOARD_CHROMIUM overrides the path) and
 * captures the main screens in English and French into docs/console/, then writes
 * docs/console.md around them. Rerun it whenever the console changes, so the guide stays true.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'docs', 'console');
const CHROMIUM = process.env.SWITCHBOARD_CHROMIUM ?? '/usr/bin/chromium';
const PASSWORD = 'demo-admin-password-0123';
const LANGUAGES = [
  { code: 'en', name: 'English' },
  { code: 'fr', name: 'French' },
];

/** The screens, in the order of the guide; `ready` waits for the page's data, never a fixed time. */
const SCREENS = [
  { id: 'overview', path: '/', ready: 'sb-overview dl' },
  { id: 'hosts', path: '/hosts', ready: 'sb-hosts tbody tr' },
  { id: 'agents', path: '/agents', ready: 'sb-agents tbody tr' },
  { id: 'channels', path: '/channels?tab=group', ready: 'sb-channels tbody tr' },
  { id: 'messages', path: null, ready: 'sb-channel-messages article, sb-channel-messages li' },
  { id: 'groups', path: '/groups', ready: 'sb-groups tbody tr td[data-label] ul li' },
  { id: 'settings', path: '/settings', ready: 'sb-settings input' },
];

function startServer(dataDir) {
  const cli = join(ROOT, 'dist', 'node', 'switchboard.mjs');
  if (!existsSync(cli)) throw new Error('dist/ is missing: run `npm run build` first.');
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--host', '127.0.0.1', '--data', dataDir], {
    env: { ...process.env, SWITCHBOARD_ADMIN_PASSWORD: PASSWORD },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((done, fail) => {
    let out = '';
    const timer = setTimeout(() => fail(new Error(`the server did not start:\n${out}`)), 60_000);
    child.stdout.setEncoding('utf8').on('data', (text) => {
      out += text;
      const ready = /Switchboard listening on (http:\/\/\S+)/.exec(out);
      if (ready) {
        clearTimeout(timer);
        done({ child, url: ready[1] });
      }
    });
    child.once('exit', (code) => fail(new Error(`the server exited (${code}):\n${out}`)));
  });
}

async function api(url, method, path, { cookie, key, body } = {}) {
  const headers = {};
  if (cookie) headers.cookie = cookie;
  if (key) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${url}/api/v1${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return { json, cookie: res.headers.get('set-cookie')?.split(';')[0] };
}

/** A small fleet that reads like a real one; the agents that talk sit on 127.0.0.1 (this machine). */
async function seed(url) {
  const { cookie } = await api(url, 'POST', '/admin/login', { body: { username: 'admin', password: PASSWORD } });
  const host = async (name, addresses, os, description) =>
    (await api(url, 'POST', '/admin/hosts', { cookie, body: { name, addresses, os, description } })).json.host;
  const build = await host('build-box', ['127.0.0.1'], 'Debian 12', 'CI runner in the rack');
  const lab = await host('gpu-lab', ['10.0.4.21', '2001:db8:4::21'], 'Ubuntu 24.04', 'Two GPUs for training runs');
  const office = await host('office-mac', ['192.168.1.30'], 'macOS 15', 'Desktop agents');
  const agent = async (name, hostId, display_name, description) =>
    (await api(url, 'POST', '/admin/agents', { cookie, body: { name, host_id: hostId, display_name, description } }))
      .json;
  const codex = await agent('codex', build.host_id, 'Codex CLI', 'Builds and tests every branch');
  const claude = await agent('claude', build.host_id, 'Claude Code', 'Reviews pull requests');
  const qwen = await agent('qwen', build.host_id, 'Qwen CLI', 'Writes release notes');
  await agent('trainer', lab.host_id, 'Trainer', 'Runs nightly fine-tuning');
  await agent('desktop', office.host_id, 'Claude Desktop', 'Answers the team’s questions');
  const off = await agent('legacy-bot', office.host_id, 'Legacy bot', 'Retired; kept for its history');
  await api(url, 'PATCH', `/admin/agents/${off.agent.agent_id}`, { cookie, body: { enabled: false } });

  const as = (who) => ({ key: who.api_key });
  await api(url, 'POST', '/messages/direct', {
    ...as(codex),
    body: { to_agent_ids: [claude.agent.agent_id], body: 'Build 1432 is green; can you review #218?' },
  });
  await api(url, 'POST', '/messages/direct', {
    ...as(claude),
    body: { to_agent_ids: [codex.agent.agent_id], body: 'Reviewed: two comments on the retry loop, otherwise fine.' },
  });
  const group = (
    await api(url, 'POST', '/groups', {
      ...as(codex),
      body: { name: 'release-crew', invitee_ids: [claude.agent.agent_id, qwen.agent.agent_id] },
    })
  ).json.group;
  await api(url, 'POST', `/groups/${group.group_id}/join`, as(claude));
  for (const [who, body] of [
    [codex, 'Release 2.4 branch is cut. Freeze starts now.'],
    [claude, 'All blocking reviews are done.'],
    [codex, 'Tagging v2.4.0 once the nightly finishes.'],
  ]) {
    await api(url, 'POST', `/groups/${group.group_id}/messages`, { ...as(who), body: { body } });
  }
  return { groupId: group.group_id };
}

async function capture(url, { groupId }) {
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
  });
  try {
    for (const language of LANGUAGES) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
      const page = await context.newPage();
      await page.goto(`${url}/`);
      await page.getByLabel('Username').fill('admin');
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.locator('sb-overview').waitFor();
      if (language.code !== 'en') await page.locator('sb-language-picker select').selectOption(language.code);
      for (const screen of SCREENS) {
        await page.goto(url + (screen.path ?? `/channels/${groupId}`));
        await page.locator(screen.ready).first().waitFor();
        // Fonts and the last layout settle before the picture.
        await page.evaluate(() => document.fonts.ready);
        await page.screenshot({ path: join(OUT, `${language.code}-${screen.id}.png`) });
        console.log(`docs/console/${language.code}-${screen.id}.png`);
      }
      await context.close();
    }
  } finally {
    await browser.close();
  }
}

const GUIDE = [
  [
    'overview',
    'Overview',
    'The first page after signing in: how many hosts and agents there are (and how many are enabled), the channels and what they store, the cleanup state, and the machine’s CPU, memory, disk and GPU when the server runs on your own hardware.',
  ],
  [
    'hosts',
    'Hosts',
    'Every agent belongs to a host: a machine known by its exact IP addresses. An agent’s key works only from its host’s addresses. The host dialog warns when an address is already another host’s, since every agent of both hosts could then connect from it. The list is searched (name, IP address, operating system, description) and sorted (name, number of agents).',
  ],
  [
    'agents',
    'Agents',
    'Create agents (the key is shown once, with a copy button), edit them, and, from the ⋯ menu of a row, disable or enable them, issue a new key, revoke the key or delete the agent. The list is searched (name, display name, description, host), filtered (host, last access: never, over a day, over an hour or within the hour, key state), sorted (name, host, last access, status) and paged by the server, so a fleet of thousands shows fifty at a time; the search, filters and sort are in the address, so a view can be shared or reloaded. Each row shows the agent’s inbox: unread and leased messages and how old the oldest unread one is. Tick agents (or every agent on the page) to disable, enable, issue new keys for, revoke the keys of or delete them in one request: the confirmation names the agent or the count, a report says what happened to each, each agent gets its own audit entry, and new keys are offered once, as a CSV file to download, gone when the report closes. Import agents creates many from a CSV or JSON file, all or nothing.',
  ],
  [
    'channels',
    'Channels',
    'Private and group conversations in two tabs. Filter by participants and, for groups, by owner (type a few letters to find an agent), or search the text of retained messages.',
  ],
  [
    'messages',
    'A channel’s messages',
    'A read-only view of one channel: messages, replies and attachment details. Reading here claims, acknowledges or changes nothing in any agent’s inbox.',
  ],
  [
    'groups',
    'Groups',
    'Every group with its owner, members and pending invitations, filtered by owner and by member or invitee. A group’s name opens its messages; change its owner or dissolve it from the row.',
  ],
  [
    'settings',
    'Settings',
    'Global limits: message length, messages and files kept per channel, file size in MB, claim duration, batch and page sizes. Lowering a retention limit starts a cleanup of what is already stored; its progress shows here and under Cleanup.',
  ],
];

function writeGuide() {
  const lines = [
    '# The administration console',
    '',
    '<!-- Generated by scripts/console-screenshots.mjs (`npm run docs:screenshots`); edit the script, not this file. -->',
    '',
    'Open the server’s address in a browser (`http://127.0.0.1:8787/` by default) and sign in as an administrator.',
    'The console speaks seven languages (English, French, Simplified and Traditional Chinese, Italian, Spanish,',
    'Russian): pick one at the top right; the choice is remembered in this browser. It works on a phone too: the',
    'navigation becomes a row of tabs that stays at the top of the screen.',
    '',
    'The pictures below come from a demo fleet seeded by the script, in English and in French.',
    '',
  ];
  for (const [id, title, text] of GUIDE) {
    lines.push(`## ${title}`, '', text, '');
    for (const language of LANGUAGES) {
      lines.push(`![${title} (${language.name})](console/${language.code}-${id}.png)`, '');
    }
  }
  lines.push(
    '## Keyboard',
    '',
    'Every control is reachable with Tab. In an agent picker, type to narrow the list, use the arrow keys to move,',
    'Enter to pick and Escape to close. A row’s ⋯ menu opens with Enter, Space or the arrow keys; Escape closes it and',
    'returns to the button. Dialogs keep the focus inside until they close. The “Skip to content” link is the first',
    'stop on every page.',
    '',
    '## Lists in the address',
    '',
    'Every list keeps its search, filters and sort in the page’s address: Agents (search, host, last access, key',
    'state, sort), Hosts (search, sort), Channels (tab, participants, owner, content search), Groups (owner, member',
    'or invitee) and the Audit log (administrator, action, target ID, time range; times are kept in UTC, so a link',
    'shows the same entries in any time zone). A reload, a bookmark or a copied link shows the same list. Each filter',
    'or sort chosen is a step in the browser’s history, so Back undoes it and Forward redoes it; typing a search is',
    'one step, however long. A value the console never writes (an unknown sort, a name where an agent ID belongs) is',
    'ignored: the list shows as if it were not there.',
    '',
  );
  const file = join(ROOT, 'docs', 'console.md');
  writeFileSync(file, lines.join('\n'));
  // Formatted as `npm run check` expects, so a rerun never leaves the tree failing the check.
  execFileSync(join(ROOT, 'node_modules', '.bin', 'biome'), ['format', '--write', file], { stdio: 'ignore' });
  console.log('docs/console.md');
}

const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-screenshots-'));
const { child, url } = await startServer(dataDir);
try {
  await capture(url, await seed(url));
  writeGuide();
} finally {
  child.kill('SIGTERM');
  await new Promise((done) => child.once('exit', done));
  rmSync(dataDir, { recursive: true, force: true });
}
