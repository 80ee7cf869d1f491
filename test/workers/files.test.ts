/**
 * Attachments through the real routes (multipart sends, listing, downloads) and the retention
 * engine: message and file deletion coupled both ways, retroactive cleanup of lowered limits, the
 * deletion jobs (failures visible, cleanup_unavailable), and the R2 bucket always holding exactly
 * the live attachments.
 */
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { type Call, call } from './helpers.js';
import { ack, claim, inbox, sendOne, setLimits, type TestAgent, world } from './messaging-helpers.js';
import { formPart, multipartBody } from './multipart-body.js';
import { env } from './test-env.js';

const enc = new TextEncoder();
const B = 'files-test-boundary';
const retention = () => env.RETENTION.get(env.RETENTION.idFromName('retention'));
const channel = (id: string) => env.CHANNEL.get(env.CHANNEL.idFromName(id));

beforeEach(async () => {
  const listed = await env.FILES.list();
  if (listed.objects.length > 0) await env.FILES.delete(listed.objects.map((o) => o.key));
});

function multipart(metadata: unknown, file?: { name: string; type?: string; data: string | Uint8Array }): Uint8Array {
  const parts = [formPart({ name: 'metadata', data: JSON.stringify(metadata) })];
  if (file) parts.push(formPart({ name: 'file', filename: file.name, type: file.type, data: file.data }));
  return multipartBody(B, parts);
}

function sendFile(
  from: TestAgent,
  to: (TestAgent | string)[],
  body: string,
  file?: { name: string; type?: string; data: string | Uint8Array },
): Promise<Call> {
  return call('POST', '/messages/direct', {
    key: from.key,
    rawBody: multipart({ to_agent_ids: to.map((t) => (typeof t === 'string' ? t : t.id)), body }, file),
    headers: { 'content-type': `multipart/form-data; boundary=${B}` },
  });
}

async function sendOneFile(from: TestAgent, to: TestAgent, body: string, name: string, data: string) {
  const res = await sendFile(from, [to], body, { name, data });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.results[0].status).toBe('sent');
  return res.body.results[0] as { message_id: string; channel_id: string };
}

const history = async (agent: TestAgent, channelId: string) =>
  (await call('GET', `/channels/${channelId}/messages?limit=200`, { key: agent.key })).body.messages as any[];
const files = async (agent: TestAgent, channelId: string) =>
  (await call('GET', `/channels/${channelId}/files?limit=200`, { key: agent.key })).body.files as any[];

async function r2Keys(): Promise<string[]> {
  return (await env.FILES.list()).objects.map((o) => o.key).sort();
}

/** The bucket holds exactly the live attachments of these channels: no orphan, no missing object. */
async function expectStorageMatches(channelIds: string[]): Promise<void> {
  const live: string[] = [];
  for (const id of channelIds) {
    const owned = await channel(id).storedKeys();
    expect(owned.pending).toEqual([]);
    expect(owned.deleting).toEqual([]);
    live.push(...owned.live);
  }
  expect(await r2Keys()).toEqual(live.sort());
}

async function sha256(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', enc.encode(text)));
  return [...digest].map((b) => b.toString(16).padStart(2, '0')).join('');
}

describe('sending files', () => {
  it('gives every accepted private target its own object; rejected targets get none', async () => {
    const { agents } = await world(3);
    const [a, b, c] = agents as [TestAgent, TestAgent, TestAgent];
    const res = await sendFile(a, [b, c, a, 'agt_unknown1'], 'report', {
      name: 'report.csv',
      type: 'text/csv',
      data: 'x,y\n1,2\n',
    });
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: any) => r.status)).toEqual(['sent', 'sent', 'rejected', 'rejected']);
    const [toB, toC] = res.body.results;
    const [fileB] = await files(b, toB.channel_id);
    const [fileC] = await files(c, toC.channel_id);
    expect(fileB).toMatchObject({
      message_id: toB.message_id,
      sender_id: a.id,
      filename: 'report.csv',
      media_type: 'text/csv',
      size: 8,
      sha256: await sha256('x,y\n1,2\n'),
    });
    expect(fileB.file_id).not.toBe(fileC.file_id);
    const keys = await r2Keys();
    expect(keys).toHaveLength(2);
    expect(keys.some((k) => k.startsWith(`files/${toB.channel_id}/`))).toBe(true);
    expect(keys.some((k) => k.startsWith(`files/${toC.channel_id}/`))).toBe(true);
    // The message carries the attachment in history and in claims.
    const [message] = await history(b, toB.channel_id);
    expect(message.attachment).toEqual({
      file_id: fileB.file_id,
      filename: 'report.csv',
      media_type: 'text/csv',
      size: 8,
      sha256: fileB.sha256,
    });
    const claimed = await claim(b);
    expect(claimed.body.claims[0].message.attachment.file_id).toBe(fileB.file_id);
    // One recipient's copy is independent of the other's.
    await expectStorageMatches([toB.channel_id, toC.channel_id]);
  });

  it('allows a file-only message, refuses an empty one, and deduplicates on the file too', async () => {
    const { agents } = await world(2);
    const [a, b] = agents as [TestAgent, TestAgent];
    const first = await sendFile(a, [b], '', { name: 'a.txt', data: 'same bytes' });
    expect(first.body.results[0].status).toBe('sent');
    const empty = await sendFile(a, [b], '');
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe('empty_message');
    // Same body and same file: duplicate, and no second object.
    const again = await sendFile(a, [b], '', { name: 'a.txt', data: 'same bytes' });
    expect(again.body.results[0]).toMatchObject({ status: 'duplicate', message_id: first.body.results[0].message_id });
    // Any difference in name, media type or bytes is a new message.
    const renamed = await sendFile(a, [b], '', { name: 'b.txt', data: 'same bytes' });
    expect(renamed.body.results[0].status).toBe('sent');
    const retyped = await sendFile(a, [b], '', { name: 'b.txt', type: 'text/plain', data: 'same bytes' });
    expect(retyped.body.results[0].status).toBe('sent');
    const changed = await sendFile(a, [b], '', { name: 'b.txt', type: 'text/plain', data: 'other bytes' });
    expect(changed.body.results[0].status).toBe('sent');
    // Text alone after a file is not a duplicate of it either.
    expect((await sendFile(a, [b], '')).status).toBe(400);
    expect((await files(b, first.body.results[0].channel_id)).length).toBe(4);
    await expectStorageMatches([first.body.results[0].channel_id]);
  });

  it('downloads with the stored media type, nosniff, length and a safe disposition; only for participants', async () => {
    const { agents } = await world(3);
    const [a, b, outsider] = agents as [TestAgent, TestAgent, TestAgent];
    // The form encoding of `"><img src=x>` CR LF `.html` (as browsers and fetch send it).
    const sent = await sendOneFile(a, b, 'html inside', '%22><img src=x>%0D%0A.html', '<script>alert(1)</script>');
    const [file] = await files(b, sent.channel_id);
    expect(file.filename).toBe('"><img src=x>\r\n.html');
    const res = await call('GET', `/files/${file.file_id}/content`, { key: b.key });
    expect(res.status).toBe(200);
    expect(res.body).toBe('<script>alert(1)</script>');
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-length')).toBe('25');
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="_><img src=x>__.html"; filename*=UTF-8''%22%3E%3Cimg%20src%3Dx%3E__.html`,
    );
    const refused = await call('GET', `/files/${file.file_id}/content`, { key: outsider.key });
    expect(refused.status).toBe(404);
    expect(refused.body.error.code).toBe('not_found');
    expect((await call('GET', `/channels/${sent.channel_id}/files`, { key: outsider.key })).status).toBe(404);
    // Unknown, malformed and foreign-channel IDs all look the same.
    expect((await call('GET', '/files/fil_nope/content', { key: b.key })).status).toBe(404);
    expect((await call('GET', `/files/${file.file_id.slice(0, -2)}xx/content`, { key: b.key })).status).toBe(404);
  });

  it('pages the file list with a cursor, both orders', async () => {
    const { agents } = await world(2);
    const [a, b] = agents as [TestAgent, TestAgent];
    let channelId = '';
    for (let i = 0; i < 5; i++) channelId = (await sendOneFile(a, b, `m${i}`, `f${i}`, `d${i}`)).channel_id;
    await sendOne(a, b, 'text only');
    const first = await call('GET', `/channels/${channelId}/files?limit=2&order=desc`, { key: a.key });
    expect(first.body.files.map((f: any) => f.filename)).toEqual(['f4', 'f3']);
    const second = await call(
      'GET',
      `/channels/${channelId}/files?limit=2&order=desc&cursor=${first.body.next_cursor}`,
      {
        key: a.key,
      },
    );
    expect(second.body.files.map((f: any) => f.filename)).toEqual(['f2', 'f1']);
    const asc = await call('GET', `/channels/${channelId}/files?limit=10`, { key: a.key });
    expect(asc.body.files.map((f: any) => f.filename)).toEqual(['f0', 'f1', 'f2', 'f3', 'f4']);
    expect(asc.body.next_cursor).toBeNull();
  });
});

describe('coupled retention', () => {
  it('deleting a message deletes its file (message count cap)', async () => {
    const { cookie, agents } = await world(2);
    const [a, b] = agents as [TestAgent, TestAgent];
    await setLimits(cookie, { max_messages_per_channel: 2 });
    const withFile = await sendOneFile(a, b, 'has a file', 'old.txt', 'old bytes');
    const claimed = await claim(b);
    const [oldFile] = await files(b, withFile.channel_id);
    await sendOne(a, b, 'text 1');
    expect(await r2Keys()).toHaveLength(1);
    await sendOne(a, b, 'text 2');
    // The file message was the oldest: it went, unread and leased, and its object with it.
    expect((await history(b, withFile.channel_id)).map((m) => m.body)).toEqual(['text 1', 'text 2']);
    expect(await files(b, withFile.channel_id)).toEqual([]);
    expect(await r2Keys()).toEqual([]);
    expect((await call('GET', `/files/${oldFile.file_id}/content`, { key: b.key })).status).toBe(404);
    const acked = await ack(b, [{ message_id: withFile.message_id, claim_token: claimed.body.claims[0].claim_token }]);
    expect(acked.body.results[0].error.code).toBe('message_purged');
    await expectStorageMatches([withFile.channel_id]);
  });

  it('evicting a file deletes its whole message (file count cap), and dedup evidence with it', async () => {
    const { cookie, agents } = await world(2);
    const [a, b] = agents as [TestAgent, TestAgent];
    await setLimits(cookie, { max_files_per_channel: 1 });
    const first = await sendOneFile(a, b, 'first', 'a.txt', 'A');
    await sendOne(b, a, 'a reply');
    await sendOneFile(a, b, 'second', 'b.txt', 'B');
    expect((await history(b, first.channel_id)).map((m) => m.body)).toEqual(['a reply', 'second']);
    expect((await files(b, first.channel_id)).map((f) => f.filename)).toEqual(['b.txt']);
    expect(await r2Keys()).toHaveLength(1);
    // "first" was a's comparison message only until "second"; resending it is new, not a duplicate.
    const resent = await sendFile(a, [b], 'first', { name: 'a.txt', data: 'A' });
    expect(resent.body.results[0].status).toBe('sent');
    expect((await history(b, first.channel_id)).map((m) => m.body)).toEqual(['a reply', 'first']);
    await expectStorageMatches([first.channel_id]);
  });

  it('a group message has one group-owned object, deleted with the message', async () => {
    const { cookie, agents } = await world(3);
    const [owner, m1, m2] = agents as [TestAgent, TestAgent, TestAgent];
    const created = await call('POST', '/groups', { key: owner.key, body: { name: 'g', invitee_ids: [m1.id, m2.id] } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const groupId = created.body.group.group_id as string;
    for (const m of [m1, m2]) expect((await call('POST', `/groups/${groupId}/join`, { key: m.key })).status).toBe(200);
    const sent = await call('POST', `/groups/${groupId}/messages`, {
      key: owner.key,
      rawBody: multipart({ body: 'to all' }, { name: 'g.bin', data: 'group bytes' }),
      headers: { 'content-type': `multipart/form-data; boundary=${B}` },
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    expect(await r2Keys()).toHaveLength(1);
    const [file] = await files(m1, groupId);
    expect((await call('GET', `/files/${file.file_id}/content`, { key: m2.key })).body).toBe('group bytes');
    // A member who left loses access at once.
    expect((await call('POST', `/groups/${groupId}/leave`, { key: m2.key })).status).toBe(200);
    expect((await call('GET', `/files/${file.file_id}/content`, { key: m2.key })).status).toBe(404);
    expect((await call('GET', `/files/${file.file_id}/content`, { key: m1.key })).status).toBe(200);
    await setLimits(cookie, { max_messages_per_channel: 1 });
    await call('POST', `/groups/${groupId}/messages`, { key: m1.key, body: { body: 'pushes it out' } });
    expect(await files(m1, groupId)).toEqual([]);
    await expectStorageMatches([groupId]);
  });
});

describe('group files and membership', () => {
  async function groupWithFile() {
    const { cookie, agents } = await world(3);
    const [owner, member, invitee] = agents as [TestAgent, TestAgent, TestAgent];
    const created = await call('POST', '/groups', {
      key: owner.key,
      body: { name: 'files', invitee_ids: [member.id, invitee.id] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const groupId = created.body.group.group_id as string;
    expect((await call('POST', `/groups/${groupId}/join`, { key: member.key })).status).toBe(200);
    const sent = await call('POST', `/groups/${groupId}/messages`, {
      key: owner.key,
      rawBody: multipart({ body: 'before you joined' }, { name: 'early.txt', data: 'early bytes' }),
      headers: { 'content-type': `multipart/form-data; boundary=${B}` },
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const [file] = await files(member, groupId);
    expect(file).toMatchObject({ filename: 'early.txt', message_id: sent.body.message_id });
    return { cookie, owner, member, invitee, groupId, file, messageId: sent.body.message_id as string };
  }

  it('REQ-19: a pending invitee can neither list nor download group files, nor receive the message', async () => {
    const { invitee, groupId, file } = await groupWithFile();
    // The invitation is visible (GET /groups), the content is not.
    expect((await call('GET', `/groups/${groupId}`, { key: invitee.key })).body.group.members).toEqual([
      { agent_id: invitee.id, state: 'pending' },
    ]);
    const listed = await call('GET', `/channels/${groupId}/files`, { key: invitee.key });
    expect({ status: listed.status, code: listed.body?.error?.code }).toEqual({ status: 404, code: 'not_found' });
    const download = await call('GET', `/files/${file.file_id}/content`, { key: invitee.key });
    expect({ status: download.status, code: download.body?.error?.code }).toEqual({ status: 404, code: 'not_found' });
    expect(download.body).not.toContain('early bytes');
    expect((await call('GET', `/channels/${groupId}/messages`, { key: invitee.key })).status).toBe(404);
    expect((await inbox(invitee)).body.unread).toBe(0);
    expect((await claim(invitee, { limit: 10 })).body.claims).toEqual([]);
  });

  it('REQ-22: a file sent before a member joined is listed and downloadable after joining, not unread', async () => {
    const { invitee, groupId, file, messageId } = await groupWithFile();
    expect((await call('POST', `/groups/${groupId}/join`, { key: invitee.key })).status).toBe(200);
    const listed = await files(invitee, groupId);
    expect(listed).toEqual([file]);
    expect(listed[0].message_id).toBe(messageId);
    const download = await call('GET', `/files/${file.file_id}/content`, { key: invitee.key });
    expect(download.status).toBe(200);
    expect(download.body).toBe('early bytes');
    expect(download.headers.get('content-length')).toBe(String('early bytes'.length));
    expect((await history(invitee, groupId)).map((m) => [m.body, m.attachment?.file_id])).toEqual([
      ['before you joined', file.file_id],
    ]);
    // Readable, but it did not become unread for the joiner.
    expect((await inbox(invitee)).body.unread).toBe(0);
    expect((await claim(invitee, { limit: 10 })).body.claims).toEqual([]);
  });
});

describe('ACKs and retention (REQ-30)', () => {
  it('an ACK does not extend retention: an ACKed message and its file are evicted in their turn', async () => {
    const { cookie, agents } = await world(2);
    const [a, b] = agents as [TestAgent, TestAgent];
    await setLimits(cookie, { max_messages_per_channel: 3 });
    const m1 = await sendOne(a, b, 'one (never read)');
    const m2 = await sendOneFile(a, b, 'two (read)', 'two.txt', 'two bytes');
    const m3 = await sendOne(a, b, 'three (never read)');
    const channelId = m1.channel_id;
    // b reads the middle message only (no download needed for an ACK).
    const claimed = await claim(b, { limit: 3 });
    const token = claimed.body.claims.find((c: any) => c.message.message_id === m2.message_id).claim_token;
    const acked = await ack(b, [{ message_id: m2.message_id, claim_token: token }]);
    expect(acked.body.results).toEqual([{ message_id: m2.message_id, status: 'read' }]);
    expect(await r2Keys()).toHaveLength(1);

    // The oldest goes first, read or not: the unread m1 before the ACKed m2.
    await sendOne(a, b, 'four');
    expect((await history(b, channelId)).map((m) => m.message_id)).toEqual([
      m2.message_id,
      m3.message_id,
      expect.any(String),
    ]);
    // Next in turn is the ACKed m2: its ACK keeps neither it nor its file.
    await sendOne(a, b, 'five');
    expect((await history(b, channelId)).map((m) => m.body)).toEqual(['three (never read)', 'four', 'five']);
    expect(await files(b, channelId)).toEqual([]);
    expect(await r2Keys()).toEqual([]);
    // The ACK evidence went with it: a repeated ACK finds the message purged, not already_read.
    const again = await ack(b, [{ message_id: m2.message_id, claim_token: token }]);
    expect(again.body.results[0]).toMatchObject({ status: 'rejected', error: { code: 'message_purged' } });
    await expectStorageMatches([channelId]);
  });
});

describe('retroactive cleanup', () => {
  it('applies lowered counts, body length and file size to existing channels, visible through the API', async () => {
    const { cookie, agents } = await world(3);
    const [a, b, c] = agents as [TestAgent, TestAgent, TestAgent];
    const ab = (await sendOneFile(a, b, 'small file', 's.txt', 'tiny')).channel_id;
    await sendOneFile(a, b, 'big file', 'b.txt', 'x'.repeat(500));
    await sendOne(a, b, '😀'.repeat(20)); // 20 code points, 40 UTF-16 units, 80 bytes
    await sendOne(a, b, 'e\u0301'.repeat(30)); // 60 code points
    await sendOne(a, b, 'short');
    const ac = (await sendOneFile(a, c, 'c1', 'c1.txt', 'c1')).channel_id;
    await sendOneFile(a, c, 'c2', 'c2.txt', 'c2');
    await sendOneFile(a, c, 'c3', 'c3.txt', 'c3');
    expect(await r2Keys()).toHaveLength(5);

    const res = await call('PATCH', '/admin/settings', {
      cookie,
      body: { max_file_bytes: 100, max_body_code_points: 50, max_files_per_channel: 2 },
    });
    expect(res.body.cleanup.state).toBe('running');
    const done = await retention().runAlarmNow();
    expect(done).toMatchObject({
      state: 'idle',
      pending_jobs: 0,
      failed_jobs: 0,
      channels_total: 2,
      channels_done: 2,
    });
    expect(done.last_completed_at).not.toBeNull();
    // a↔b: the 500-byte file and the 60-code-point body went whole; the 20-emoji body (80 bytes) stayed.
    expect((await history(b, ab)).map((m) => m.body)).toEqual(['small file', '😀'.repeat(20), 'short']);
    expect((await files(b, ab)).map((f) => f.filename)).toEqual(['s.txt']);
    // a↔c: the oldest file message went for the file cap.
    expect((await history(c, ac)).map((m) => m.body)).toEqual(['c2', 'c3']);
    expect((await call('GET', '/admin/cleanup', { cookie })).body).toEqual(done);
    await expectStorageMatches([ab, ac]);

    // The message count too, and it is reported in the settings answer.
    const counts = await call('PATCH', '/admin/settings', { cookie, body: { max_messages_per_channel: 1 } });
    expect(counts.body.cleanup.state).toBe('running');
    await retention().runAlarmNow();
    expect((await history(b, ab)).map((m) => m.body)).toEqual(['short']);
    expect((await history(c, ac)).map((m) => m.body)).toEqual(['c3']);
    expect((await call('GET', '/admin/settings', { cookie })).body.cleanup.state).toBe('idle');
    await expectStorageMatches([ab, ac]);
  });

  it('reports deletion failures, never as done; refuses new files meanwhile; recovers', async () => {
    const { cookie, agents } = await world(2);
    const [a, b] = agents as [TestAgent, TestAgent];
    const ch = (await sendOneFile(a, b, 'one', '1.txt', '1')).channel_id;
    await sendOneFile(a, b, 'two', '2.txt', '2');
    await channel(ch).setDeletionFailure('R2 unavailable');
    await call('PATCH', '/admin/settings', { cookie, body: { max_files_per_channel: 1 } });
    let status = await retention().runAlarmNow();
    // Access is revoked at once (the message and its file are gone from the API)...
    expect((await history(b, ch)).map((m) => m.body)).toEqual(['two']);
    // ...but the object is still there, and the run is not complete.
    expect(await r2Keys()).toHaveLength(2);
    expect(status).toMatchObject({ state: 'running', pending_jobs: 1, failed_jobs: 0 });
    expect(status.last_completed_at).toBeNull();
    expect(status.last_error).toContain('R2 unavailable');

    let offset = 0;
    for (let i = 0; i < 5; i++) {
      offset += 10 * 60_000;
      await channel(ch).setClockOffset(offset);
      await retention().setClockOffset(offset);
      status = await retention().runAlarmNow();
    }
    expect(status).toMatchObject({ state: 'failed', pending_jobs: 1, failed_jobs: 1 });
    const refused = await sendFile(a, [b], 'three', { name: '3.txt', data: '3' });
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe('cleanup_unavailable');
    expect(refused.body.error.retry_after_ms).toBeGreaterThan(0);
    expect((await sendOne(a, b, 'text still works')).message_id).toBeTruthy();

    await channel(ch).setDeletionFailure(null);
    offset += 10 * 60_000;
    await channel(ch).setClockOffset(offset);
    await retention().setClockOffset(offset);
    status = await retention().runAlarmNow();
    status = await retention().runAlarmNow();
    expect(status).toMatchObject({ state: 'idle', pending_jobs: 0, failed_jobs: 0 });
    expect(status.last_completed_at).not.toBeNull();
    expect(await r2Keys()).toHaveLength(1);
    expect((await sendFile(a, [b], 'three', { name: '3.txt', data: '3' })).status).toBe(200);
    await expectStorageMatches([ch]);
  });
});

describe('no orphans', () => {
  it('a copy whose request died before its message committed is swept by the alarm', async () => {
    const { agents } = await world(2);
    const [a, b] = agents as [TestAgent, TestAgent];
    const ch = (await sendOneFile(a, b, 'kept', 'k.txt', 'kept')).channel_id;
    const stub = channel(ch);
    // The state a crash leaves between the copy and the insert: a pending-copy row and its object.
    const strayKey = `files/${ch}/stray-copy`;
    await runInDurableObject(stub, async (instance) => {
      (instance as any).store.files.beginCopy(strayKey, Date.now());
    });
    await env.FILES.put(strayKey, 'copied but never committed');
    expect(await r2Keys()).toHaveLength(2);
    await stub.setClockOffset(11 * 60_000);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await r2Keys()).toHaveLength(1);
    expect((await history(b, ch)).map((m) => m.body)).toEqual(['kept']);
    await expectStorageMatches([ch]);
  });
});

describe('retention model', () => {
  interface ModelMessage {
    body: string;
    file: number | null;
  }

  /** The reference: the newest N messages, and of those the newest F with files. */
  function retain(messages: ModelMessage[], n: number, f: number): ModelMessage[] {
    const newest = messages.slice(-n);
    const fileMessages = newest.filter((m) => m.file !== null);
    const keepFiles = new Set(fileMessages.slice(-f));
    return newest.filter((m) => m.file === null || keepFiles.has(m));
  }

  it('keeps history, file list and R2 objects equal to the reference after any sequence', async () => {
    const { cookie, agents } = await world(2);
    const [a, b] = agents as [TestAgent, TestAgent];
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.record({ kind: fc.constant('text' as const), length: fc.integer({ min: 1, max: 30 }) }),
            fc.record({ kind: fc.constant('file' as const), size: fc.integer({ min: 0, max: 40 }) }),
            fc.record({
              kind: fc.constant('lower' as const),
              n: fc.integer({ min: 1, max: 6 }),
              f: fc.integer({ min: 1, max: 4 }),
              body: fc.integer({ min: 10, max: 30 }),
              bytes: fc.integer({ min: 1, max: 40 }),
            }),
          ),
          { minLength: 1, maxLength: 10 },
        ),
        async (ops) => {
          run++;
          // A fresh pair per run: a new sender each time keeps channels apart.
          const limits = { n: 6, f: 4, body: 30, bytes: 40 };
          await setLimits(cookie, {
            max_messages_per_channel: limits.n,
            max_files_per_channel: limits.f,
            max_body_code_points: 1000,
            max_file_bytes: 1000,
          });
          await retention().runAlarmNow();
          await setLimits(cookie, { max_body_code_points: limits.body, max_file_bytes: limits.bytes });
          await retention().runAlarmNow();
          const sender = run % 2 === 0 ? a : b;
          const receiver = run % 2 === 0 ? b : a;
          let channelId = '';
          // Start each run from an empty channel state in the model: previous runs' messages count too.
          const existing = await (async () => {
            const first = await sendOne(sender, receiver, `run ${run} start`);
            channelId = first.channel_id;
            return (await history(sender, channelId)).map(
              (m): ModelMessage => ({ body: m.body, file: m.attachment ? m.attachment.size : null }),
            );
          })();
          let model = existing;
          let counter = 0;
          for (const op of ops) {
            counter++;
            if (op.kind === 'text') {
              const body = `${run}.${counter}:`.padEnd(Math.max(op.length, `${run}.${counter}:`.length), 't');
              const res = await sendFile(sender, [receiver], body);
              if (body.length > limits.body) {
                expect(res.body.error.code).toBe('text_too_long');
                continue;
              }
              expect(res.body.results[0].status).toBe('sent');
              model = retain([...model, { body, file: null }], limits.n, limits.f);
            } else if (op.kind === 'file') {
              const body = `${run}.${counter}`;
              const res = await sendFile(sender, [receiver], body, { name: 'f', data: 'z'.repeat(op.size) });
              if (op.size > limits.bytes) {
                expect(res.body.error.code).toBe('file_too_large');
                continue;
              }
              expect(res.body.results[0].status).toBe('sent');
              model = retain([...model, { body, file: op.size }], limits.n, limits.f);
            } else {
              Object.assign(limits, {
                n: Math.min(limits.n, op.n),
                f: Math.min(limits.f, op.f),
                body: Math.min(limits.body, op.body),
                bytes: Math.min(limits.bytes, op.bytes),
              });
              await setLimits(cookie, {
                max_messages_per_channel: limits.n,
                max_files_per_channel: limits.f,
                max_body_code_points: limits.body,
                max_file_bytes: limits.bytes,
              });
              expect((await retention().runAlarmNow()).state).toBe('idle');
              model = retain(
                model.filter((m) => [...m.body].length <= limits.body && (m.file === null || m.file <= limits.bytes)),
                limits.n,
                limits.f,
              );
            }
            const actual = (await history(receiver, channelId)).map(
              (m): ModelMessage => ({ body: m.body, file: m.attachment ? m.attachment.size : null }),
            );
            expect(actual).toEqual(model);
            expect((await files(receiver, channelId)).map((f) => f.size)).toEqual(
              model.filter((m) => m.file !== null).map((m) => m.file),
            );
          }
          const listed = await env.FILES.list({ prefix: `files/${channelId}/` });
          expect(listed.objects.length).toBe(model.filter((m) => m.file !== null).length);
          await expectStorageMatches([channelId]);
        },
      ),
      { numRuns: 12 },
    );
  });
});
