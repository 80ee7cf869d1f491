/**
 * The console's static assets through the real launcher: the security headers and caching of
 * admin-ui/public/_headers (applied by Miniflare's asset worker, as by Cloudflare's), a real
 * /favicon.ico, and real Chromium running the whole console under the Content-Security-Policy
 * without a single violation.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, newContext, signIn, watchPageErrors } from './browser-kit.js';
import { api, type Server, startServer } from './harness.js';

let server: Server;
let browser: Browser;

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchChromium()]);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

const get = (path: string) => api(server, 'GET', path, { absolutePath: true });

describe('console assets', () => {
  it('sends a strict Content-Security-Policy and refuses framing on every console page', async () => {
    for (const path of ['/', '/hosts', '/settings', '/setup', '/channels/dm_x']) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(res.text).toContain('<title>Switchboard</title>');
      const csp = String(res.headers['content-security-policy']);
      expect(csp, path).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("style-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).not.toContain('unsafe-eval');
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      // The page itself is revalidated, so a new version is picked up at once.
      expect(String(res.headers['cache-control'])).not.toContain('immutable');
    }
    // Nothing inline that the policy would have to allow.
    const index = (await get('/')).text;
    expect(index).not.toMatch(/<style|<script(?![^>]*\ssrc=)|\sstyle=|\son\w+=/i);
  });

  it('serves hashed assets as immutable for a year', async () => {
    const index = (await get('/')).text;
    const assets = [...index.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1] as string);
    expect(assets.some((a) => a.endsWith('.js'))).toBe(true);
    expect(assets.some((a) => a.endsWith('.css'))).toBe(true);
    for (const path of assets) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers['cache-control'], path).toBe('public, max-age=31536000, immutable');
    }
  });

  it('serves a real /favicon.ico, does not serve _headers, and leaves API answers alone', async () => {
    const icon = await get('/favicon.ico');
    expect(icon.status).toBe(200);
    expect(icon.headers['content-type']).toMatch(/^image\/(x-icon|vnd\.microsoft\.icon)/);
    expect(icon.text.startsWith('\0\0\u0001\0')).toBe(true); // ICO header: reserved, type 1 (icon)
    expect(icon.text).not.toContain('<html');

    const rules = await get('/_headers');
    expect(rules.text).not.toContain('Content-Security-Policy:');

    const apiAnswer = await api(server, 'GET', '/limits');
    expect(apiAnswer.headers['content-security-policy']).toBeUndefined();
  });

  it('runs the whole console in Chromium under the policy without a violation', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    const errors = watchPageErrors(page);
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content.Security.Policy|Refused to/i.test(message.text())) violations.push(message.text());
    });
    await page.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { __cspViolations: string[] }).__cspViolations = seen;
      document.addEventListener('securitypolicyviolation', (event) =>
        seen.push(`${event.violatedDirective} ${event.blockedURI}`),
      );
    });

    await signIn(page, server.url, server.adminPassword as string);
    // Page-level styles come from the stylesheet, not an inline <style>.
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(background).not.toBe('rgba(0, 0, 0, 0)');
    for (const name of ['Hosts', 'Agents', 'Settings']) {
      await page.getByRole('link', { name }).click();
      await page.getByRole('heading', { level: 1, name }).waitFor();
    }
    // Another language is a module loaded on demand, under script-src 'self'.
    await page.locator('sb-language-picker select').selectOption('fr');
    await page.getByRole('heading', { level: 1, name: 'Paramètres' }).waitFor();

    const reported = await page.evaluate(() => (window as unknown as { __cspViolations: string[] }).__cspViolations);
    expect(reported).toEqual([]);
    expect(violations).toEqual([]);
    expect(errors).toEqual([]);

    // And the policy is really enforced: an inline script is refused.
    const blocked = await page.evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'window.__inlineRan = true;';
      document.head.append(script);
      return (window as unknown as { __inlineRan?: boolean }).__inlineRan === true;
    });
    expect(blocked).toBe(false);
    await context.close();
  });

  it('cannot be framed by another page', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.setContent(`<iframe id="f" src="${server.url}/"></iframe>`);
    const frame = page.frames().find((f) => f.url().startsWith(server.url));
    // Chromium replaces a refused frame with an error page: no console document is inside.
    const framedTitle = frame ? await frame.title().catch(() => '') : '';
    expect(framedTitle).not.toBe('Switchboard');
    await context.close();
  });
});
