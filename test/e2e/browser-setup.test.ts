/**
 * First-run set-up in real Chromium: without SWITCHBOARD_ADMIN_PASSWORD the launcher prints a
 * one-time link `/setup#token=…`; the console creates the administrator from it and signs in.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, newContext, screenshot, watchPageErrors } from './browser-kit.js';
import { adminLogin, api, type Server, startServer } from './harness.js';

let server: Server;
let browser: Browser;

beforeAll(async () => {
  [server, browser] = await Promise.all([
    startServer({ env: { SWITCHBOARD_ADMIN_PASSWORD: undefined } }),
    launchChromium(),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe('first-run set-up from the launcher link', () => {
  it('creates the administrator, signs in, drops the token from the address, and works once', async () => {
    const link = /(https?:\/\/\S+\/setup#token=[A-Za-z0-9_-]+)/.exec(server.stdout())?.[1];
    expect(link, server.stdout()).toBeTruthy();
    const token = new URL(link as string).hash.replace('#token=', '');
    expect((await api(server, 'GET', '/admin/setup')).body).toEqual({ needs_setup: true });

    const context = await newContext(browser);
    const page = await context.newPage();
    const errors = watchPageErrors(page);

    // Opened without the link, the console explains where the link is.
    await page.goto(`${server.url}/`);
    await page.getByRole('heading', { level: 1, name: 'First-run set-up' }).waitFor();
    expect(await page.getByText('Open the one-time set-up link').count()).toBe(1);
    expect(await page.getByLabel('Password').count()).toBe(0);

    await page.goto(`${server.url}/setup#token=${token}`);
    await page.getByRole('heading', { level: 1, name: 'First-run set-up' }).waitFor();
    await screenshot(page, 'setup');
    await page.getByLabel('Username').fill('chief');
    await page.getByLabel('Password', { exact: true }).fill('too short');
    await page.getByLabel('Repeat the password').fill('too short');
    await page.getByRole('button', { name: 'Create administrator' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('at least 12 characters');
    await page.getByLabel('Password', { exact: true }).fill('a long enough passphrase');
    await page.getByLabel('Repeat the password').fill('a long enough passphrase!');
    await page.getByRole('button', { name: 'Create administrator' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('differ');
    expect((await api(server, 'GET', '/admin/setup')).body).toEqual({ needs_setup: true });

    await page.getByLabel('Repeat the password').fill('a long enough passphrase');
    await page.getByRole('button', { name: 'Create administrator' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expect(page.url()).toBe(`${server.url}/`);
    expect((await api(server, 'GET', '/admin/setup')).body).toEqual({ needs_setup: false });
    expect(await page.locator('sb-app').evaluate((el) => el.shadowRoot?.textContent ?? '')).toContain('chief');
    await adminLogin(server, { username: 'chief', password: 'a long enough passphrase' });

    // The link worked once: opened again in a fresh browser, it leads to the sign-in form.
    const later = await newContext(browser);
    const laterPage = await later.newPage();
    await laterPage.goto(link as string);
    await laterPage.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    expect(laterPage.url()).not.toContain(token);
    const reuse = await api(server, 'POST', '/admin/setup', {
      body: { token, username: 'intruder', password: 'another long passphrase' },
    });
    expect(reuse.status).toBe(409);

    expect(errors).toEqual([]);
    await later.close();
    await context.close();
  });
});
