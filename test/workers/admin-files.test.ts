/**
 * GET /admin/channels/{channel_id}/files/{file_id}: an administrator's download of any channel's
 * attachment, with exactly the agent download's safe headers; inline only for raster images; and
 * the content search's highlighted snippet (GET /admin/channels?q=).
 */
import { describe, expect, it } from 'vitest';
import { call } from './helpers.js';
import { sendOne, type TestAgent, world } from './messaging-helpers.js';
import { formPart, multipartBody } from './multipart-body.js';

const BOUNDARY = 'admin-files-boundary';
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44]);

async function sendFile(from: TestAgent, to: TestAgent, filename: string, type: string, data: Uint8Array | string) {
  const res = await call('POST', '/messages/direct', {
    key: from.key,
    rawBody: multipartBody(BOUNDARY, [
      formPart({ name: 'metadata', data: JSON.stringify({ to_agent_ids: [to.id], body: `file ${filename}` }) }),
      formPart({ name: 'file', filename, type, data }),
    ]),
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
  });
  expect(res.body.results?.[0]?.status, JSON.stringify(res.body)).toBe('sent');
  const { channel_id: channelId, message_id: messageId } = res.body.results[0];
  const listed = await call('GET', `/channels/${channelId}/files`, { key: to.key });
  const file = (listed.body.files as { file_id: string; message_id: string }[]).find((f) => f.message_id === messageId);
  return { channelId: channelId as string, fileId: file!.file_id };
}

const SAFE_HEADERS = {
  'x-content-type-options': 'nosniff',
  'cache-control': 'private, no-store',
  'content-security-policy': "default-src 'none'; sandbox",
};

function headersOf(res: { headers: Headers }, names: string[]) {
  return Object.fromEntries(names.map((n) => [n, res.headers.get(n)]));
}

describe('GET /admin/channels/{channel_id}/files/{file_id}', () => {
  it('refuses no session and agent keys, even a participant of the channel', async () => {
    const { agents } = await world(2);
    const [a, b] = agents as [TestAgent, TestAgent];
    const { channelId, fileId } = await sendFile(a, b, 'notes.txt', 'text/plain', 'secret');
    const path = `/admin/channels/${channelId}/files/${fileId}`;
    for (const res of [
      await call('GET', path),
      await call('GET', path, { key: a.key }),
      await call('GET', path, { key: b.key }),
    ]) {
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthenticated');
    }
  });

  it("answers the bytes with exactly the agent download's headers", async () => {
    const { cookie, agents } = await world(2);
    const [a, b] = agents as [TestAgent, TestAgent];
    const { channelId, fileId } = await sendFile(
      a,
      b,
      '%22><img src=x>.html',
      'text/html',
      '<script>alert(1)</script>',
    );
    const admin = await call('GET', `/admin/channels/${channelId}/files/${fileId}`, { cookie });
    const agent = await call('GET', `/files/${fileId}/content`, { key: b.key });
    expect(admin.status).toBe(200);
    expect(admin.body).toBe('<script>alert(1)</script>');
    const names = [...Object.keys(SAFE_HEADERS), 'content-type', 'content-length', 'content-disposition'];
    expect(headersOf(admin, names)).toEqual(headersOf(agent, names));
    expect(headersOf(admin, Object.keys(SAFE_HEADERS))).toEqual(SAFE_HEADERS);
    expect(admin.headers.get('content-disposition')).toBe(
      `attachment; filename="_><img src=x>.html"; filename*=UTF-8''%22%3E%3Cimg%20src%3Dx%3E.html`,
    );
    // Reading is not a claim: the recipient's message is still unread.
    expect((await call('GET', '/inbox', { key: b.key })).body.unread).toBe(1);
  });

  it('previews raster images inline and refuses inline for HTML and SVG', async () => {
    const { cookie, agents } = await world(2);
    const [a, b] = agents as [TestAgent, TestAgent];
    const png = await sendFile(a, b, 'shot.png', 'image/png', PNG);
    const inline = await call('GET', `/admin/channels/${png.channelId}/files/${png.fileId}?disposition=inline`, {
      cookie,
    });
    expect(inline.status).toBe(200);
    expect(inline.headers.get('content-type')).toBe('image/png');
    expect(inline.headers.get('content-disposition')).toBe(`inline; filename="shot.png"; filename*=UTF-8''shot.png`);
    expect(headersOf(inline, Object.keys(SAFE_HEADERS))).toEqual(SAFE_HEADERS);
    for (const [name, type, data] of [
      ['x.svg', 'image/svg+xml', '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'],
      ['x.html', 'text/html', '<script>alert(1)</script>'],
      ['x.png', 'image/png; x="y"', PNG],
    ] as const) {
      const sent = await sendFile(a, b, name, type, data);
      const res = await call('GET', `/admin/channels/${sent.channelId}/files/${sent.fileId}?disposition=inline`, {
        cookie,
      });
      if (name === 'x.png') {
        expect(res.status).toBe(200);
        continue;
      }
      expect(res.status, name).toBe(415);
      expect(res.body.error.code).toBe('unsupported_media_type');
      // The download itself stays available, as an attachment.
      const download = await call('GET', `/admin/channels/${sent.channelId}/files/${sent.fileId}`, { cookie });
      expect(download.headers.get('content-disposition')).toMatch(/^attachment; /);
    }
    const bad = await call('GET', `/admin/channels/${png.channelId}/files/${png.fileId}?disposition=render`, {
      cookie,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_failed');
  });

  it('is not_found for a file of another channel, an unknown channel or file, without creating anything', async () => {
    const { cookie, agents } = await world(3);
    const [a, b, c] = agents as [TestAgent, TestAgent, TestAgent];
    const one = await sendFile(a, b, 'one.txt', 'text/plain', '1');
    const other = (await sendOne(a, c, 'hi')).channel_id;
    for (const path of [
      `/admin/channels/${other}/files/${one.fileId}`,
      `/admin/channels/${one.channelId}/files/fil_nope`,
      `/admin/channels/${one.channelId}/files/${one.fileId.slice(0, -2)}xx`,
      `/admin/channels/dm_${'z'.repeat(20)}/files/${one.fileId}`,
    ]) {
      const res = await call('GET', path, { cookie });
      expect(res.status, path).toBe(404);
      expect(res.body.error.code, path).toBe('not_found');
    }
  });
});

describe('GET /admin/channels?q= snippet', () => {
  it('cuts the newest matching message around the match, as written, in three plain strings', async () => {
    const { cookie, agents } = await world(2);
    const [a, b] = agents as [TestAgent, TestAgent];
    await sendOne(a, b, 'an older Café note');
    const long = `${'x'.repeat(60)} <b>Deploy</b> CAFÉ crème failed ${'y'.repeat(200)}`;
    const sent = await sendOne(a, b, long);
    const res = await call('GET', '/admin/channels?q=cafe', { cookie });
    expect(res.status).toBe(200);
    const [channel] = res.body.channels;
    expect(channel.matching_messages).toBe(2);
    expect(channel.snippet.message_id).toBe(sent.message_id);
    expect(channel.snippet.match).toBe('CAFÉ');
    expect(channel.snippet.before).toBe(`…${'x'.repeat(25)} <b>Deploy</b> `);
    expect(channel.snippet.after.startsWith(' crème failed yyy')).toBe(true);
    expect(channel.snippet.after.endsWith('…')).toBe(true);
    // Without a search there is no snippet.
    expect((await call('GET', '/admin/channels', { cookie })).body.channels[0].snippet).toBeUndefined();
  });

  it('locates short needles with their accents, and ß where the index equates it with ss', async () => {
    const { cookie, agents } = await world(2);
    const [a, b] = agents as [TestAgent, TestAgent];
    await sendOne(a, b, 'Eine Straße im Café');
    const accent = await call('GET', `/admin/channels?q=${encodeURIComponent('É')}`, { cookie });
    expect(accent.body.channels[0].snippet).toMatchObject({ before: 'Eine Straße im Caf', match: 'é', after: '' });
    const sharp = await call('GET', '/admin/channels?q=STRASSE', { cookie });
    expect(sharp.body.channels[0].snippet).toMatchObject({ before: 'Eine ', match: 'Straße', after: ' im Café' });
  });
});
