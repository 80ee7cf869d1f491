/**
 * Real Chromium for the console's end-to-end tests: the Debian `chromium` package driven by
 * playwright-core (never a downloaded browser). Screenshots of the main pages are kept under
 * test-results/screenshots/ as test artifacts.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import { ROOT } from './harness.js';

export const CHROMIUM = process.env.SWITCHBOARD_CHROMIUM ?? '/usr/bin/chromium';
export const SCREENSHOTS = join(ROOT, 'test-results', 'screenshots');

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    // Playwright adds its own headless flag; these keep the browser offline and quiet.
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-quic',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/**
 * Fails the test on any uncaught error in the page (a broken component must not pass quietly) and
 * on any Content-Security-Policy violation Chromium logs (admin-ui/public/_headers).
 */
export function watchPageErrors(page: Page): Error[] {
  const errors: Error[] = [];
  page.on('pageerror', (error) => errors.push(error));
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) errors.push(new Error(message.text()));
  });
  return errors;
}

/** Signs in through the form, as a person would. */
export async function signIn(page: Page, baseUrl: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/`);
  await page.getByLabel('Username').fill('admin');
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
}

export async function newContext(
  browser: Browser,
  options: Parameters<Browser['newContext']>[0] = {},
): Promise<BrowserContext> {
  return browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'en-US', ...options });
}

/** Requests in flight per tracked page (trackRequests), to tell when a page's data is in. */
const inFlight = new WeakMap<Page, number>();

/** Counts the page's requests in flight from now on, for visitInApp. */
export function trackRequests(page: Page): Page {
  inFlight.set(page, 0);
  const done = () => inFlight.set(page, (inFlight.get(page) ?? 1) - 1);
  page.on('request', () => inFlight.set(page, (inFlight.get(page) ?? 0) + 1));
  page.on('requestfinished', done);
  page.on('requestfailed', done);
  return page;
}

/**
 * Shows a console page as the console's own links do (history.pushState and popstate, no reload:
 * a reload per page makes a many-page test slow; the first visit loads the console), then waits
 * until the page has a heading and no request has been in flight for a moment. The page must be
 * tracked (trackRequests).
 */
export async function visitInApp(page: Page, baseUrl: string, path: string): Promise<void> {
  if (!inFlight.has(page)) throw new Error('visitInApp needs a page passed to trackRequests first');
  if (page.url().startsWith(baseUrl)) {
    await page.evaluate((p) => {
      history.pushState(null, '', p);
      window.dispatchEvent(new PopStateEvent('popstate'));
    }, path);
  } else {
    await page.goto(`${baseUrl}${path}`);
  }
  await page.locator('h1').first().waitFor();
  let quiet = 0;
  for (let waited = 0; quiet < 4 && waited < 100; waited++) {
    await page.waitForTimeout(50);
    quiet = inFlight.get(page) === 0 ? quiet + 1 : 0;
  }
}

/** The focused element, looking into shadow roots (the console is made of web components). */
export function deepActiveElement(page: Page): Promise<{ tag: string; id: string; text: string } | null> {
  return page.evaluate(() => {
    let active: Element | null = document.activeElement;
    while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
    return active
      ? { tag: active.tagName.toLowerCase(), id: active.id, text: (active.textContent ?? '').trim() }
      : null;
  });
}

/**
 * Waits for the modal dialog with this accessible name and returns its component. Dialog content
 * is slotted into the <dialog> (flat tree), so it is found under the component, not the element.
 */
export async function openedDialog(page: Page, component: string, name: string): Promise<Locator> {
  await page.getByRole('dialog', { name }).waitFor();
  return page.locator(component);
}

/**
 * Runs one of an agent row's secondary actions: opens its "⋯" menu (sb-row-menu) and picks the
 * item with this accessible name ('Disable agent builder').
 */
export async function rowAction(row: Locator, name: string): Promise<void> {
  await row.getByRole('button', { name: /^More actions for / }).click();
  await row.getByRole('menuitem', { name }).click();
}

/** Picks an agent in a searchable picker (sb-agent-combobox): types, then clicks the option. */
export async function pickAgent(scope: Page | Locator, label: string, typed: string, option = typed): Promise<void> {
  const box = scope.getByRole('combobox', { name: label, exact: true });
  await box.fill(typed);
  await scope.getByRole('option', { name: option, exact: true }).click();
}
