/**
 * Layout and accessibility of every console page in real Chromium, with the data that broke it:
 * names as long as the limits allow and IPv6 addresses. No page scrolls sideways at 1280 px or at
 * 390 px in any of the seven languages; axe-core (injected from node_modules, never fetched)
 * finds no serious or critical violation in English, Russian and Simplified Chinese; toasts
 * never cover a control and never stick on touch; the phone's tabs are all on screen; a phone
 * page of 50 agents stays compact.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, newContext, screenshot, trackRequests, visitInApp, watchPageErrors } from './browser-kit.js';
import { adminLogin, api, createAgent, createHost, type Server, startServer } from './harness.js';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const LOCALES = ['en', 'fr', 'zh-Hans', 'zh-Hant', 'it', 'es', 'ru'] as const;
type Locale = (typeof LOCALES)[number];
const AXE_LOCALES: readonly Locale[] = ['en', 'ru', 'zh-Hans'];
const WIDTHS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
] as const;

let server: Server;
let browser: Browser;
let cookie: string;
const pages = ['/', '/hosts', '/agents', '/channels', '/groups', '/cleanup', '/settings', '/admins', '/audit'];

/** Names at their limits (core/lib/limits.ts) with no space to break at, as a fleet script makes them. */
const LONG_HOST = `build-${'x'.repeat(88)}-linux`;
const LONG_AGENT = (n: number) => `agent-${n}-${'q'.repeat(50)}`.slice(0, 64);
const IPV6 = ['2001:0db8:85a3:0000:0000:8a2e:0370:7334', 'fd12:3456:789a:0001:0000:0000:0000:0001', '127.0.0.1'];

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchChromium()]);
  cookie = await adminLogin(server);
  const host = await createHost(server, cookie, IPV6, LONG_HOST);
  const made: { id: string; key: string }[] = [];
  for (let n = 0; n < 50; n++) {
    const { agent, key } = await createAgent(server, cookie, host.host_id, LONG_AGENT(n));
    made.push({ id: agent.agent_id, key });
  }
  const [alice, bob] = made as [{ id: string; key: string }, { id: string; key: string }];
  await api(server, 'PATCH', `/admin/agents/${alice.id}`, {
    cookie,
    body: { display_name: `Deployment coordinator ${'w'.repeat(70)}`, description: 'Runs the nightly builds' },
  });
  const group = await api(server, 'POST', '/groups', {
    key: alice.key,
    body: { name: `release-coordination-${'g'.repeat(40)}`, invitee_ids: [bob.id] },
  });
  expect(group.status, group.text).toBe(201);
  const form = new FormData();
  form.append('metadata', JSON.stringify({ to_agent_ids: [bob.id], body: 'build log attached' }));
  form.append('file', new Blob(['ok\n'], { type: 'text/plain' }), `build-${'l'.repeat(60)}.log`);
  const sent = await fetch(`${server.url}/api/v1/messages/direct`, {
    method: 'POST',
    headers: { authorization: `Bearer ${alice.key}` },
    body: form,
  });
  const answer = (await sent.json()) as { results: { channel_id: string; message_id: string }[] };
  const dm = answer.results[0]!;
  await api(server, 'POST', '/messages/direct', {
    key: bob.key,
    body: { to_agent_ids: [alice.id], body: 'thanks, looking', reply_to: dm.message_id },
  });
  // Refusals for the agent page and the overview.
  for (let i = 0; i < 3; i++) await api(server, 'GET', '/inbox', { key: `${alice.key.slice(0, -4)}zzzz` });
  pages.push(`/agents/${alice.id}`, `/channels/${encodeURIComponent(dm.channel_id)}`);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function openContext(locale: Locale, viewport: { width: number; height: number }): Promise<BrowserContext> {
  const phone = viewport.width < 500;
  const context = await newContext(browser, { viewport, isMobile: phone, hasTouch: phone });
  const [name, value] = cookie.split('=') as [string, string];
  await context.addCookies([{ name, value, url: server.url }]);
  await context.addInitScript((l) => localStorage.setItem('switchboard.locale', l), locale);
  return context;
}

async function openPage(context: BrowserContext): Promise<Page> {
  return trackRequests(await context.newPage());
}

const visit = (page: Page, path: string) => visitInApp(page, server.url, path);

describe('no page scrolls sideways', () => {
  for (const viewport of WIDTHS) {
    it(`at ${viewport.width} px in every language`, async () => {
      const wide: string[] = [];
      for (const locale of LOCALES) {
        const context = await openContext(locale, viewport);
        const page = await openPage(context);
        const errors = watchPageErrors(page);
        for (const path of pages) {
          await visit(page, path);
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
          if (overflow > 1) {
            wide.push(`${locale} ${path}: ${overflow} px too wide`);
            await screenshot(page, `overflow-${viewport.width}-${locale}-${path.replaceAll('/', '_')}`);
          }
        }
        expect(errors).toEqual([]);
        await context.close();
      }
      expect(wide).toEqual([]);
    }, 300_000);
  }
});

describe('axe-core', () => {
  for (const locale of AXE_LOCALES) {
    it(`finds no serious or critical violation on any page in ${locale}`, async () => {
      const found: string[] = [];
      for (const viewport of WIDTHS.slice(0, 1)) {
        const context = await openContext(locale, viewport);
        const page = await openPage(context);
        for (const path of pages) {
          await visit(page, path);
          // Evaluated, not added as a <script>: the console's CSP rightly refuses inline scripts.
          if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
          const violations = await page.evaluate(async () => {
            const axe = (window as unknown as { axe: { run: (c: unknown, o: unknown) => Promise<any> } }).axe;
            const result = await axe.run(document, { resultTypes: ['violations'] });
            return (result.violations as any[]).map((v) => ({
              id: v.id as string,
              impact: v.impact as string,
              targets: (v.nodes as any[]).slice(0, 3).map((n) => JSON.stringify(n.target)),
            }));
          });
          for (const v of violations) {
            if (v.impact === 'serious' || v.impact === 'critical' || v.id === 'region' || v.id === 'skip-link') {
              found.push(`${viewport.width} ${path} ${v.impact} ${v.id} ${v.targets.join(' ')}`);
            }
          }
        }
        await context.close();
      }
      expect(found).toEqual([]);
    }, 300_000);
  }
});

/** Every control on screen whose box meets a toast's box (through shadow roots). */
function controlsUnderToasts(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const all: Element[] = [];
    const walk = (root: Document | ShadowRoot) => {
      for (const el of Array.from(root.querySelectorAll('*'))) {
        all.push(el);
        if (el.shadowRoot) walk(el.shadowRoot);
      }
    };
    walk(document);
    const toasts = all.filter((el) => el.hasAttribute('data-toast')).map((el) => el.getBoundingClientRect());
    const controls = all.filter(
      (el) => el.matches('a[href], button, input, select, textarea, [role="menuitem"]') && !el.closest('[data-toast]'),
    );
    const hit: string[] = [];
    // On a phone the toasts sit in the sticky tab bar: what the page scrolled under the bar is
    // hidden by the bar itself, toast or not, so only controls below it count.
    const nav = document.querySelector('sb-app')?.shadowRoot?.querySelector('nav');
    const navBox = nav?.getBoundingClientRect();
    const barBottom = navBox && navBox.width >= window.innerWidth - 1 ? navBox.bottom : 0;
    for (const el of controls) {
      const r = el.getBoundingClientRect();
      if (el.closest('nav')) continue;
      if (r.width === 0 || r.height === 0 || r.top < barBottom || r.top > window.innerHeight) continue;
      for (const t of toasts) {
        if (r.left < t.right && r.right > t.left && r.top < t.bottom && r.bottom > t.top) {
          hit.push(`${el.tagName} ${(el.textContent ?? '').trim().slice(0, 30)}`);
        }
      }
    }
    return hit;
  });
}

function announce(page: Page, message: string): Promise<void> {
  return page.evaluate((m) => {
    document
      .querySelector('sb-app')
      ?.shadowRoot?.querySelector('main')
      ?.dispatchEvent(new CustomEvent('sb-toast', { detail: { message: m }, bubbles: true, composed: true }));
  }, message);
}

describe('toasts, tabs and lists on a phone', () => {
  for (const viewport of WIDTHS) {
    it(`never puts a toast over a control at ${viewport.width} px, with a row menu open`, async () => {
      const context = await openContext('ru', viewport);
      const page = await openPage(context);
      const errors = watchPageErrors(page);
      await visit(page, '/agents');
      await page
        .getByRole('button', { name: /^Другие действия|^More actions/ })
        .first()
        .click();
      for (let i = 0; i < 3; i++) await announce(page, `Агент ${LONG_AGENT(i)} сохранён.`);
      await page.locator('[data-toast]').first().waitFor();
      expect(await page.locator('[data-toast]').count()).toBe(3);
      expect(await controlsUnderToasts(page)).toEqual([]);
      await page.evaluate(() => window.scrollTo(0, 2000));
      expect(await controlsUnderToasts(page)).toEqual([]);
      await screenshot(page, `toasts-${viewport.width}`);
      expect(errors).toEqual([]);
      await context.close();
    }, 120_000);
  }

  it('lets a tapped toast go by itself', async () => {
    const context = await openContext('en', WIDTHS[1]);
    const page = await openPage(context);
    await visit(page, '/hosts');
    await announce(page, 'Saved host build-box.');
    const toast = page.locator('[data-toast]');
    await toast.locator('p').tap();
    // Shown for 6 s (sb-toasts.ts); a tap must not pause it for good.
    await toast.waitFor({ state: 'detached', timeout: 15_000 });
    await context.close();
  }, 60_000);

  it('shows all nine tabs at once and fifty agents as a short page', async () => {
    for (const locale of ['en', 'ru'] as const) {
      const context = await openContext(locale, WIDTHS[1]);
      const page = await openPage(context);
      await visit(page, '/agents');
      const tabs = await page.evaluate(() => {
        const nav = document.querySelector('sb-app')?.shadowRoot?.querySelector('nav');
        return Array.from(nav?.querySelectorAll('a') ?? []).map((a) => {
          const r = a.getBoundingClientRect();
          return r.left >= 0 && r.right <= window.innerWidth && r.top >= 0 && r.bottom <= window.innerHeight;
        });
      });
      expect(tabs, locale).toEqual(Array(9).fill(true));
      expect(await page.locator('sb-agents tbody tr').count()).toBe(50);
      // Each field is one line with its label in front, not a label line above a value line.
      const labels = await page.evaluate(() => {
        const tr = document
          .querySelector('sb-app')
          ?.shadowRoot?.querySelector('sb-agents')
          ?.shadowRoot?.querySelector('tbody tr');
        const status = tr?.querySelector('td[data-label]:not(.name)');
        return status ? getComputedStyle(status, '::before').display : null;
      });
      expect(labels, locale).toBe('inline');
      const height = await page.evaluate(() => document.documentElement.scrollHeight);
      // Names at their length limits wrap onto several lines even so; realistic names take about
      // 150 px an agent.
      expect(height, locale).toBeLessThan(50 * 400);
      await screenshot(page, `phone-agents-${locale}`);
      await context.close();
    }
  }, 60_000);
});

describe('the fleet view', () => {
  it('counts agents by key state and last access and lists the fullest channels, on the overview', async () => {
    // Cross-checked with the agent list, agent by agent.
    // Last access is written after each answer: read the list and the fleet until they agree.
    let seen = 0;
    await expect
      .poll(
        async () => {
          const list = (await api(server, 'GET', '/admin/agents?limit=100', { cookie })).body.agents as {
            last_access_at: string | null;
          }[];
          seen = list.filter((a) => a.last_access_at !== null).length;
          const fleet = (await api(server, 'GET', '/admin/fleet', { cookie })).body;
          return (
            seen > 0 &&
            JSON.stringify(fleet.agents) ===
              JSON.stringify({
                ...fleet.agents,
                total: 50,
                enabled: 50,
                disabled: 0,
                by_key_state: { active: 50, revoked: 0, none: 0 },
                by_last_access: { never: 50 - seen, over_a_day: 0, over_an_hour: 0, active: seen },
              })
          );
        },
        { timeout: 15_000 },
      )
      .toBe(true);
    await expect
      .poll(
        async () =>
          Math.max(
            ...(
              (await api(server, 'GET', '/admin/fleet', { cookie })).body.channels_nearest_limits as {
                message_count: number;
              }[]
            ).map((channel) => channel.message_count),
          ),
        // The channel catalog hears of each send after the send's answer.
        { timeout: 15_000 },
      )
      // The seed's channels have one or two messages (other tests of this file add to them).
      .toBeGreaterThan(0);
    const context = await openContext('en', WIDTHS[0]);
    const page = await openPage(context);
    await visit(page, '/');
    const access = page.getByTestId('fleet-access');
    await expect
      .poll(() => access.textContent())
      .toMatch(new RegExp(`Never\\s*${50 - seen}.*Within the hour\\s*${seen}`, 's'));
    expect(await page.getByTestId('fleet-channels').textContent()).toMatch(
      /[12] of 1,000 messages,\s*[01] of [\d,]+ files/,
    );
    // The seed's three forged keys for alice: the worker records at most one per agent per 10 s, so
    // the table says "at least", and alice leads the refused agents.
    const refusals = page.getByTestId('fleet-refusals');
    await expect
      .poll(() => refusals.locator('tr', { hasText: 'Wrong key' }).textContent(), { timeout: 20_000 })
      .toMatch(/Wrong key \(not its current one\)\s*at least [123]\s*at least [123]/);
    expect(await refusals.locator('tr', { hasText: 'Key revoked' }).textContent()).toMatch(/Key revoked\s*0\s*0/);
    expect(await page.getByTestId('fleet-refused-agents').getByRole('link').first().textContent()).toContain(
      LONG_AGENT(0).slice(0, 20),
    );
    // The backlog: the seed's file message waits for bob, the reply for alice.
    const fleet = (await api(server, 'GET', '/admin/fleet', { cookie })).body;
    expect(fleet.backlog.unread).toBeGreaterThanOrEqual(1);
    expect(await page.getByTestId('fleet-backlog').textContent()).toMatch(
      /Unread\s*[12]\s*Leased\s*0\s*Parked\s*0\s*Oldest unread\s*\d+ (seconds?|minutes?) ago/,
    );
    expect(await page.getByTestId('fleet-backlog-agents').textContent()).toMatch(
      /1 unread, 0 leased, 0 parked, oldest \d+ (seconds?|minutes?) ago/,
    );
    await context.close();
  }, 120_000);
});
