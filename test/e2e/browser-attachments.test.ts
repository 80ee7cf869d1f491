/**
 * Attachments and search snippets in the console's read-only channel view, in real Chromium
 * against the real server (issue 14 item 9): an administrator downloads an attachment (bytes and
 * headers as the agent download has them), an image gets an inline preview, an HTML or SVG file
 * is never rendered (no preview, refused inline by the server, a download when opened), and a
 * content search shows the newest matching message with the match highlighted, as text.
 */
import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, newContext, screenshot, signIn, watchPageErrors } from './browser-kit.js';
import { adminLogin, api, createAgent, createHost, type Server, startServer } from './harness.js';

let server: Server;
let browser: Browser;
let cookie: string;
let channelId = '';

interface Agent {
  id: string;
  key: string;
}

/** A 1×1 PNG: the preview must really decode it (naturalWidth 1). */
const PNG = new Uint8Array(
  Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64'),
);
const HTML = '<html><body><script>document.title = "pwned"</script><h1>owned</h1></body></html>';
const SVG = '<svg xmlns="http://www.w3.org/2000/svg" onload="document.title=\'pwned\'"><circle r="5"/></svg>';
const HOSTILE_BODY = 'Deploy <b>FAILED</b> on host 7 <img src=x onerror="document.title=\'pwned\'">';

async function sendFile(from: Agent, to: Agent, name: string, type: string, data: Uint8Array<ArrayBuffer> | string) {
  const form = new FormData();
  form.append('metadata', JSON.stringify({ to_agent_ids: [to.id], body: `file: ${name}` }));
  form.append('file', new Blob([data], { type }), name);
  const res = await fetch(`${server.url}/api/v1/messages/direct`, {
    method: 'POST',
    headers: { authorization: `Bearer ${from.key}` },
    body: form,
  });
  const answer = (await res.json()) as { results: { status: string; channel_id: string }[] };
  expect(answer.results[0]?.status, JSON.stringify(answer)).toBe('sent');
  return answer.results[0]!.channel_id;
}

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchChromium()]);
  cookie = await adminLogin(server);
  const host = await createHost(server, cookie, ['127.0.0.1'], 'files-host');
  const made: Agent[] = [];
  for (const name of ['alice', 'bob']) {
    const { agent, key } = await createAgent(server, cookie, host.host_id, name);
    made.push({ id: agent.agent_id, key });
  }
  const [alice, bob] = made as [Agent, Agent];
  channelId = await sendFile(alice, bob, 'dot.png', 'image/png', PNG);
  await sendFile(alice, bob, 'page.html', 'text/html', HTML);
  await sendFile(alice, bob, 'logo.svg', 'image/svg+xml', SVG);
  const said = await api(server, 'POST', '/messages/direct', {
    key: alice.key,
    body: { to_agent_ids: [bob.id], body: HOSTILE_BODY },
  });
  expect(said.body.results?.[0]?.status, said.text).toBe('sent');
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe('attachments in the read-only channel view', () => {
  it('downloads with the safe headers, previews the image only, never renders HTML or SVG', async () => {
    const context = await newContext(browser, { acceptDownloads: true });
    const page = await context.newPage();
    const errors = watchPageErrors(page);
    await signIn(page, server.url, server.adminPassword as string);
    await page.goto(`${server.url}/channels/${channelId}`);
    await expect.poll(() => page.locator('sb-channel-messages li[data-message-id]').count()).toBe(4);

    // The image: one preview, decoded by the browser, served inline through the safe route.
    const previews = page.locator('sb-channel-messages img.preview');
    await expect.poll(() => previews.count()).toBe(1);
    expect(await previews.getAttribute('alt')).toBe('Preview of dot.png');
    await expect.poll(() => previews.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1);
    expect(await previews.getAttribute('src')).toMatch(
      /\/api\/v1\/admin\/channels\/.+\/files\/fil_.+\?disposition=inline$/,
    );

    // HTML and SVG: a download link each, and nothing that could render them in the page.
    for (const name of ['page.html', 'logo.svg']) {
      expect(await page.getByRole('link', { name: `Download ${name}` }).count()).toBe(1);
    }
    expect(await page.locator('sb-channel-messages').locator('iframe, object, embed, svg image').count()).toBe(0);
    const imgSources = await page
      .locator('sb-channel-messages img')
      .evaluateAll((imgs) => imgs.map((i) => i.getAttribute('src') ?? ''));
    expect(imgSources).toHaveLength(1);

    // Download the HTML file as a browser does: a download, the exact bytes, the safe headers.
    const link = page.getByRole('link', { name: 'Download page.html' });
    const href = (await link.getAttribute('href')) as string;
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).toBe('page.html');
    expect(readFileSync((await download.path()) as string, 'utf8')).toBe(HTML);
    const answer = await context.request.get(`${server.url}${href}`);
    expect(answer.status()).toBe(200);
    expect(await answer.text()).toBe(HTML);
    const headers = answer.headers();
    expect(headers['content-type']).toBe('text/html');
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['content-security-policy']).toBe("default-src 'none'; sandbox");
    expect(headers['cache-control']).toBe('private, no-store');
    expect(headers['content-disposition']).toBe(`attachment; filename="page.html"; filename*=UTF-8''page.html`);

    // Asked for inline, the server refuses HTML and SVG; opened directly, they download.
    const svgHref = (await page.getByRole('link', { name: 'Download logo.svg' }).getAttribute('href')) as string;
    for (const url of [href, svgHref]) {
      const inline = await context.request.get(`${server.url}${url}?disposition=inline`);
      expect(inline.status(), url).toBe(415);
      expect((await inline.json()).error.code).toBe('unsupported_media_type');
      const opened = await context.newPage();
      const [file] = await Promise.all([
        opened.waitForEvent('download'),
        opened.goto(`${server.url}${url}`).catch(() => null),
      ]);
      expect(file.suggestedFilename()).toMatch(/^(page\.html|logo\.svg)$/);
      expect(await opened.title()).not.toBe('pwned');
      await opened.close();
    }
    expect(await page.title()).not.toBe('pwned');
    await screenshot(page, 'channel-attachments');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('shows the newest matching message with the match highlighted, as text', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    const errors = watchPageErrors(page);
    await signIn(page, server.url, server.adminPassword as string);
    await page.goto(`${server.url}/channels?tab=private`);
    await page.getByLabel('Search message content').fill('HOST 7');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const snippet = page.locator(`sb-channels tr[data-channel-id="${channelId}"] p.snippet`);
    await expect.poll(() => snippet.count()).toBe(1);
    expect(await snippet.locator('mark').allTextContents()).toEqual(['host 7']);
    // The message's markup is shown as its characters: no element came from the message.
    expect(await snippet.textContent()).toBe(HOSTILE_BODY);
    expect(await snippet.locator('b, img').count()).toBe(0);
    expect(await page.title()).not.toBe('pwned');
    await screenshot(page, 'channel-search-snippet');
    expect(errors).toEqual([]);
    await context.close();
  });
});
