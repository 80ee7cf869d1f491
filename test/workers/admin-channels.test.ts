/**
 * The administrators' channel routes through the worker (REQ-54, REQ-58, REQ-59): who may call
 * them, the kind/participant/owner filters, the content search over retained bodies (never
 * names), paging through the catalog, the read-only message view with attachment metadata, and
 * that reading changes no agent's read state. Also the channel totals of the overview.
 */
import { env, runDurableObjectAlarm } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { type Call, call } from './helpers.js';
import { claim, inbox, sendOne, setLimits, type TestAgent, world } from './messaging-helpers.js';

const enc = new TextEncoder();
const BOUNDARY = 'admin-channels-boundary';

function expectOk(res: Call, status = 200) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res.body;
}

function expectError(res: Call, status: number, code: string) {
  expect({ status: res.status, code: res.body?.error?.code }, JSON.stringify(res.body)).toEqual({ status, code });
}

async function createGroup(owner: TestAgent, name: string, invitees: TestAgent[]): Promise<string> {
  const res = await call('POST', '/groups', { key: owner.key, body: { name, invitee_ids: invitees.map((m) => m.id) } });
  return expectOk(res, 201).group.group_id as string;
}
async function join(m: TestAgent, groupId: string) {
  return expectOk(await call('POST', `/groups/${groupId}/join`, { key: m.key }));
}
async function say(m: TestAgent, groupId: string, body: string) {
  return expectOk(await call('POST', `/groups/${groupId}/messages`, { key: m.key, body: { body } }));
}

async function sendFile(from: TestAgent, to: TestAgent, body: string, name: string, data: string) {
  const parts = [
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="metadata"\r\n\r\n${JSON.stringify({ to_agent_ids: [to.id], body })}\r\n`,
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: text/plain\r\n\r\n${data}\r\n`,
    `--${BOUNDARY}--\r\n`,
  ];
  const res = await call('POST', '/messages/direct', {
    key: from.key,
    rawBody: enc.encode(parts.join('')),
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
  });
  expect(res.body.results?.[0]?.status, JSON.stringify(res.body)).toBe('sent');
  return res.body.results[0] as { message_id: string; channel_id: string };
}

const search = (query: Record<string, string | number>) =>
  new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
const list = (cookie: string, query: Record<string, string | number> = {}) =>
  call('GET', `/admin/channels?${search(query)}`, { cookie });
const read = (cookie: string, channelId: string, query: Record<string, string | number> = {}) =>
  call('GET', `/admin/channels/${channelId}/messages?${search(query)}`, { cookie });

const ids = (res: Call) => (res.body.channels as { channel_id: string }[]).map((c) => c.channel_id).sort();

/**
 * Agents a, b, c, d. Private: a–b ("hello bob"), a–c ("Deploy FAILED on host 7"). Group "ops"
 * owned by a, with b (joined) and c (invited, pending): "disk full". Group "quiet" owned by d,
 * no message yet.
 */
async function scene() {
  const { cookie, agents } = await world(4);
  const [a, b, c, d] = agents as [TestAgent, TestAgent, TestAgent, TestAgent];
  const ab = (await sendOne(a, b, 'hello bob')).channel_id;
  const ac = (await sendOne(a, c, 'Deploy FAILED on host 7')).channel_id;
  const ops = await createGroup(a, 'ops', [b, c]);
  await join(b, ops);
  await say(a, ops, 'disk full on db-2');
  const quiet = await createGroup(d, 'quiet', []);
  return { cookie, a, b, c, d, ab, ac, ops, quiet };
}

describe('GET /admin/channels', () => {
  it('is for administrators only: no session and agent keys are refused', async () => {
    const { a, ab } = await scene();
    expectError(await call('GET', '/admin/channels'), 401, 'unauthenticated');
    expectError(await call('GET', '/admin/channels', { key: a.key }), 401, 'unauthenticated');
    expectError(await call('GET', `/admin/channels/${ab}/messages`), 401, 'unauthenticated');
    expectError(await call('GET', `/admin/channels/${ab}/messages`, { key: a.key }), 401, 'unauthenticated');
  });

  it('lists private and group channels apart, with names, counts and last activity', async () => {
    const s = await scene();
    const all = expectOk(await list(s.cookie));
    expect(ids(await list(s.cookie))).toEqual([s.ab, s.ac, s.ops, s.quiet].sort());
    expect(all.scanned).toBe(4);
    expect(all.next_cursor).toBeNull();

    const privates = expectOk(await list(s.cookie, { kind: 'private' }));
    expect(ids(await list(s.cookie, { kind: 'private' }))).toEqual([s.ab, s.ac].sort());
    const ab = privates.channels.find((c: { channel_id: string }) => c.channel_id === s.ab);
    expect(ab).toMatchObject({ kind: 'private', message_count: 1, file_count: 0 });
    expect(ab.participants.map((p: { agent_id: string }) => p.agent_id).sort()).toEqual([s.a.id, s.b.id].sort());
    expect(ab.participants.every((p: { name: string | null }) => /^agent-\d$/.test(p.name ?? ''))).toBe(true);
    expect(ab).not.toHaveProperty('owner_id');
    expect(Date.parse(ab.last_message_at)).toBeGreaterThan(0);

    const groups = expectOk(await list(s.cookie, { kind: 'group' }));
    expect(groups.channels.map((c: { name: string }) => c.name).sort()).toEqual(['ops', 'quiet']);
    const ops = groups.channels.find((c: { name: string }) => c.name === 'ops');
    expect(ops).toMatchObject({ channel_id: s.ops, owner_id: s.a.id, status: 'active', message_count: 1 });
    const states = Object.fromEntries(
      ops.participants.map((p: { agent_id: string; state: string; role: string }) => [p.agent_id, [p.state, p.role]]),
    );
    expect(states).toEqual({
      [s.a.id]: ['active', 'owner'],
      [s.b.id]: ['active', 'member'],
      [s.c.id]: ['pending', 'member'],
    });
    // A group exists from its creation, before any message.
    const quiet = groups.channels.find((c: { name: string }) => c.name === 'quiet');
    expect(quiet).toMatchObject({ message_count: 0, last_message_at: null, owner_id: s.d.id });
  });

  it('filters by participant list (all of them, in any state) and by owner (groups only)', async () => {
    const s = await scene();
    expect(ids(await list(s.cookie, { participant: s.a.id }))).toEqual([s.ab, s.ac, s.ops].sort());
    expect(ids(await list(s.cookie, { kind: 'private', participant: `${s.a.id},${s.b.id}` }))).toEqual([s.ab]);
    expect(ids(await list(s.cookie, { participant: `${s.b.id},${s.c.id}` }))).toEqual([s.ops]);
    expect(ids(await list(s.cookie, { kind: 'private', participant: `${s.b.id},${s.c.id}` }))).toEqual([]);
    expect(ids(await list(s.cookie, { owner: s.a.id }))).toEqual([s.ops]);
    expect(ids(await list(s.cookie, { owner: s.b.id }))).toEqual([]);
    expect(ids(await list(s.cookie, { owner: s.d.id, kind: 'group' }))).toEqual([s.quiet]);
    expect(ids(await list(s.cookie, { owner: s.a.id, kind: 'private' }))).toEqual([]);
    expectError(await list(s.cookie, { participant: 'alice' }), 400, 'validation_failed');
    expectError(await list(s.cookie, { owner: `${s.a.id},${s.b.id}` }), 400, 'validation_failed');
  });

  it('searches retained message content, case-insensitively and literally, never names', async () => {
    const s = await scene();
    const hit = expectOk(await list(s.cookie, { q: 'deploy failed' }));
    expect(hit.channels.map((c: { channel_id: string }) => c.channel_id)).toEqual([s.ac]);
    expect(hit.channels[0].matching_messages).toBe(1);
    expect(ids(await list(s.cookie, { q: 'DISK FULL', kind: 'group' }))).toEqual([s.ops]);
    expect(ids(await list(s.cookie, { q: 'disk full', kind: 'private' }))).toEqual([]);
    // Agent and group names are not content.
    expect(ids(await list(s.cookie, { q: 'agent-1' }))).toEqual([]);
    expect(ids(await list(s.cookie, { q: 'ops' }))).toEqual([]);
    // Wildcards are text: "%" and "_" match only themselves.
    expect(ids(await list(s.cookie, { q: '%' }))).toEqual([]);
    expect(ids(await list(s.cookie, { q: 'disk_full' }))).toEqual([]);
    // Search combines with the identity filters.
    expect(ids(await list(s.cookie, { q: 'o', participant: s.b.id }))).toEqual([s.ab, s.ops].sort());
    expect(ids(await list(s.cookie, { q: 'HOST 7', owner: s.a.id }))).toEqual([]);
    expectError(await list(s.cookie, { q: '   ' }), 400, 'validation_failed');
    expectError(await list(s.cookie, { q: 'x'.repeat(201) }), 400, 'validation_failed');
  });

  it('counts matches per channel, in any script, and forgets what retention deleted', async () => {
    const { cookie, agents } = await world(2);
    const [a, b] = agents as [TestAgent, TestAgent];
    const channelId = (await sendOne(a, b, 'Привет, мир')).channel_id;
    await sendOne(b, a, 'ПРИВЕТ снова');
    await sendOne(a, b, 'unrelated');
    const found = expectOk(await list(cookie, { q: 'привет' }));
    expect(found.channels).toHaveLength(1);
    expect(found.channels[0]).toMatchObject({ channel_id: channelId, matching_messages: 2, message_count: 3 });

    await setLimits(cookie, { max_messages_per_channel: 1 });
    await sendOne(b, a, 'latest');
    expect(expectOk(await list(cookie, { q: 'привет' })).channels).toEqual([]);
    expect(expectOk(await list(cookie)).channels[0]).toMatchObject({ message_count: 1 });
  });

  it('pages through every channel exactly once, newest first, and refuses foreign cursors', async () => {
    const { cookie, agents } = await world(8);
    const [hub, ...others] = agents as [TestAgent, ...TestAgent[]];
    const created: string[] = [];
    for (const other of others) created.push((await sendOne(hub, other, `to ${other.id}`)).channel_id);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = expectOk(await list(cookie, { limit: 3, ...(cursor ? { cursor } : {}) }));
      expect(page.channels.length).toBeLessThanOrEqual(3);
      seen.push(...page.channels.map((c: { channel_id: string }) => c.channel_id));
      cursor = page.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...created].reverse());

    // A search with few matches examines the catalog and says how far it got.
    const search = expectOk(await list(cookie, { q: `to ${others[2]?.id}`, limit: 1 }));
    expect(search.channels.map((c: { channel_id: string }) => c.channel_id)).toEqual([created[2]]);
    expect(search.scanned).toBe(5);
    expect(search.next_cursor).not.toBeNull();
    const rest = expectOk(await list(cookie, { q: `to ${others[2]?.id}`, limit: 1, cursor: search.next_cursor }));
    expect(rest).toMatchObject({ channels: [], next_cursor: null, scanned: 2 });

    expectError(await list(cookie, { cursor: 'not-a-cursor' }), 400, 'validation_failed');
    expectError(await list(cookie, { cursor: btoa(JSON.stringify(['x'])) }), 400, 'validation_failed');
  });

  it('leaves dissolved groups out of the list; what they held is gone from their message view', async () => {
    const s = await scene();
    expectOk(await call('DELETE', `/admin/groups/${s.ops}`, { cookie: s.cookie }));
    expect(ids(await list(s.cookie, { kind: 'group' }))).toEqual([s.quiet]);
    const dissolved = expectOk(await read(s.cookie, s.ops));
    expect(dissolved).toMatchObject({ messages: [], next_cursor: null, channel: { status: 'dissolved' } });
  });
});

describe('GET /admin/channels/{channel_id}/messages', () => {
  it('reads any channel’s retained messages with attachment metadata, in pages, both orders', async () => {
    const { cookie, agents } = await world(2);
    const [a, b] = agents as [TestAgent, TestAgent];
    const first = await sendOne(a, b, 'one');
    const file = await sendFile(b, a, 'the report', 'report.txt', 'hello file');
    await sendOne(a, b, 'three');

    const page1 = expectOk(await read(cookie, first.channel_id, { limit: 2 }));
    expect(page1.messages.map((m: { body: string }) => m.body)).toEqual(['one', 'the report']);
    expect(page1.channel).toMatchObject({
      channel_id: first.channel_id,
      kind: 'private',
      message_count: 3,
      file_count: 1,
    });
    expect(page1.messages[1]).toMatchObject({
      message_id: file.message_id,
      sender_id: b.id,
      attachment: {
        filename: 'report.txt',
        media_type: 'text/plain',
        size: 10,
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
    });
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', enc.encode('hello file')));
    expect(page1.messages[1].attachment.sha256).toBe([...digest].map((x) => x.toString(16).padStart(2, '0')).join(''));
    const page2 = expectOk(await read(cookie, first.channel_id, { limit: 2, cursor: page1.next_cursor }));
    expect(page2.messages.map((m: { body: string }) => m.body)).toEqual(['three']);
    expect(page2.next_cursor).toBeNull();
    const newest = expectOk(await read(cookie, first.channel_id, { order: 'desc', limit: 1 }));
    expect(newest.messages.map((m: { body: string }) => m.body)).toEqual(['three']);

    expectError(await read(cookie, 'dm_nosuchchannel0000000'), 404, 'not_found');
    expectError(await read(cookie, 'not-a-channel'), 400, 'validation_failed');
    expectError(await read(cookie, first.channel_id, { cursor: 'zzz' }), 400, 'validation_failed');
  });

  it('changes no read state: the recipient’s inbox and claim are the same after an administrator reads', async () => {
    const s = await scene();
    const before = {
      b: expectOk(await inbox(s.b)),
      c: expectOk(await inbox(s.c)),
    };
    expect(before.b.unread).toBe(2);
    // b holds a claim on the private message while the administrator reads.
    const claimed = expectOk(await claim(s.b, { channel_id: s.ab }));
    expect(claimed.claims).toHaveLength(1);
    const leased = expectOk(await inbox(s.b));

    for (const channelId of [s.ab, s.ac, s.ops]) {
      expectOk(await read(s.cookie, channelId));
      expectOk(await read(s.cookie, channelId, { order: 'desc' }));
    }
    expectOk(await list(s.cookie, { q: 'hello' }));

    expect(expectOk(await inbox(s.b))).toEqual(leased);
    expect(expectOk(await inbox(s.c))).toEqual(before.c);
    // The claim is still b's: its token is accepted, and nothing else became claimable.
    const token = claimed.claims[0].claim_token as string;
    const acked = expectOk(
      await call('POST', '/inbox/ack', {
        key: s.b.key,
        body: { acks: [{ message_id: claimed.claims[0].message.message_id, claim_token: token }] },
      }),
    );
    expect(acked.results[0].status).toBe('read');
    expect(expectOk(await inbox(s.b)).unread).toBe(before.b.unread - 1);
  });
});

describe('overview channel totals', () => {
  it('counts channels by kind, and messages and files as the channels report them', async () => {
    const s = await scene();
    await sendFile(s.b, s.a, 'a file', 'x.bin', 'xyz');
    await sendOne(s.a, s.c, 'second to c');
    // Channels report their totals to the catalog in their next alarm (coalesced, not per send).
    for (const channelId of [s.ab, s.ac, s.ops, s.quiet]) {
      await runDurableObjectAlarm(env.CHANNEL.get(env.CHANNEL.idFromName(channelId)));
    }
    const counts = expectOk(await call('GET', '/admin/overview', { cookie: s.cookie })).counts;
    expect(counts).toMatchObject({ channels: 4, private_channels: 2, group_channels: 2, messages: 5, files: 1 });

    expectOk(await call('DELETE', `/admin/groups/${s.ops}`, { cookie: s.cookie }));
    const after = expectOk(await call('GET', '/admin/overview', { cookie: s.cookie })).counts;
    expect(after).toMatchObject({ channels: 3, group_channels: 1, messages: 4, files: 1 });
  });
});
