/**
 * Threads (reply_to, thread_id) and the richer message items (sender name, channel kind, group
 * name), through the worker (SELF.fetch) with the real objects, plus the tombstones and the name
 * backfill at store level.
 */
import { runInDurableObject } from 'cloudflare:test';
import { eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/durable-sqlite';
import { describe, expect, it } from 'vitest';
import { dmChannelId } from '../../core/domain/ids.js';
import * as schema from '../../durable-objects/channel/schema.js';
import { ChannelStore } from '../../durable-objects/channel/store.js';
import { call } from './helpers.js';
import { claim, inbox, sendOne, setLimits, type TestAgent, world } from './messaging-helpers.js';
import { formPart, multipartBody } from './multipart-body.js';
import { env } from './test-env.js';

function expectError(res: { status: number; body: any }, status: number, code: string, field?: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.error.code).toBe(code);
  if (field) expect(res.body.error.field).toBe(field);
}

const reply = (from: TestAgent, to: TestAgent[], body: string, replyTo: string) =>
  call('POST', '/messages/direct', {
    key: from.key,
    body: { to_agent_ids: to.map((t) => t.id), body, reply_to: replyTo },
  });

const history = (agent: TestAgent, channelId: string, query = '') =>
  call('GET', `/channels/${channelId}/messages${query}`, { key: agent.key });

/** A well-formed message ID of `channelId` that was never issued. */
const neverSent = (channelId: string) =>
  `msg_${channelId.startsWith('dm_') ? 'd' : 'g'}${channelId.replace(/^(dm|grp)_/, '')}AAAAAAAAAAAAAAAA`;

async function groupOf(owner: TestAgent, members: TestAgent[], name: string): Promise<string> {
  const created = await call('POST', '/groups', {
    key: owner.key,
    body: { name, invitee_ids: members.map((m) => m.id) },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const groupId = created.body.group.group_id as string;
  for (const m of members) {
    expect((await call('POST', `/groups/${groupId}/join`, { key: m.key })).status).toBe(200);
  }
  return groupId;
}

describe('threads in private channels', () => {
  it('threads replies to their root, in send results, claims and history, and filters history by thread', async () => {
    const { agents } = await world(2);
    const [a, b] = agents as [TestAgent, TestAgent];
    const root = await sendOne(a, b, 'root question');
    const other = await sendOne(a, b, 'unrelated');
    expect(root).toMatchObject({ thread_id: root.message_id, reply_to: null });
    expect(root).not.toHaveProperty('reply_to_purged');

    const r1 = await reply(b, [a], 'first answer', root.message_id);
    expect(r1.status, JSON.stringify(r1.body)).toBe(200);
    expect(r1.body.results[0]).toMatchObject({
      status: 'sent',
      channel_id: root.channel_id,
      reply_to: root.message_id,
      thread_id: root.message_id,
      reply_to_purged: false,
    });
    // A reply to a reply stays in the root's thread.
    const r2 = await reply(a, [b], 'follow-up', r1.body.results[0].message_id);
    expect(r2.body.results[0]).toMatchObject({
      reply_to: r1.body.results[0].message_id,
      thread_id: root.message_id,
    });

    const claimed = (await claim(a, { limit: 10 })).body.claims;
    expect(claimed).toHaveLength(1);
    expect(claimed[0].message).toMatchObject({
      message_id: r1.body.results[0].message_id,
      reply_to: root.message_id,
      thread_id: root.message_id,
      sender_id: b.id,
      sender_display_name: 'agent-1',
      channel_kind: 'private',
      group_name: null,
    });

    const all = (await history(b, root.channel_id)).body.messages;
    expect(all.map((m: any) => [m.body, m.thread_id, m.reply_to])).toEqual([
      ['root question', root.message_id, null],
      ['unrelated', other.message_id, null],
      ['first answer', root.message_id, root.message_id],
      ['follow-up', root.message_id, r1.body.results[0].message_id],
    ]);
    const thread = await history(b, root.channel_id, `?thread_id=${root.message_id}&order=desc&limit=2`);
    expect(thread.body.messages.map((m: any) => m.body)).toEqual(['follow-up', 'first answer']);
    const next = await history(
      b,
      root.channel_id,
      `?thread_id=${root.message_id}&order=desc&cursor=${thread.body.next_cursor}`,
    );
    expect(next.body.messages.map((m: any) => m.body)).toEqual(['root question']);
    expect(next.body.next_cursor).toBeNull();
    // A reply's own ID is not a thread; another message's thread is only itself.
    expect((await history(b, root.channel_id, `?thread_id=${r1.body.results[0].message_id}`)).body.messages).toEqual(
      [],
    );
    expect(
      (await history(b, root.channel_id, `?thread_id=${other.message_id}`)).body.messages.map((m: any) => m.body),
    ).toEqual(['unrelated']);
    expectError(await history(b, root.channel_id, '?thread_id=nope'), 400, 'validation_failed', 'thread_id');
  });

  it('refuses a reply_to of another channel, an unknown one, or with several targets, storing nothing', async () => {
    const { agents } = await world(3);
    const [a, b, c] = agents as [TestAgent, TestAgent, TestAgent];
    const ab = await sendOne(a, b, 'in a-b');
    const ac = await sendOne(a, c, 'in a-c');
    const before = (await history(a, ab.channel_id)).body.messages.length;

    expectError(await reply(b, [a], 'wrong channel', ac.message_id), 400, 'reply_to_other_channel', 'reply_to');
    expectError(await reply(b, [a], 'never sent', neverSent(ab.channel_id)), 400, 'reply_to_not_found', 'reply_to');
    expectError(await reply(a, [b, c], 'to two channels', ab.message_id), 400, 'reply_to_other_channel', 'reply_to');
    expectError(await reply(b, [a], 'not an id', 'hello'), 400, 'validation_failed', 'reply_to');
    // A duplicate body does not hide a bad reply_to.
    expectError(await reply(a, [b], 'in a-b', neverSent(ab.channel_id)), 400, 'reply_to_not_found');

    expect((await history(a, ab.channel_id)).body.messages).toHaveLength(before);
    expect((await inbox(a)).body.unread).toBe(0);
    expect((await inbox(c)).body.unread).toBe(1);

    // A channel that does not exist yet is not created by a refused reply.
    const bc = await dmChannelId(b.id, c.id);
    expectError(await reply(b, [c], 'first words', neverSent(bc)), 400, 'reply_to_not_found');
    expectError(await history(b, bc), 404, 'not_found');
    expect((await call('GET', '/channels', { key: b.key })).body.channels.map((x: any) => x.channel_id)).not.toContain(
      bc,
    );
  });

  it('accepts a reply to a message retention deleted, says so, and keeps the thread', async () => {
    const { cookie, agents } = await world(2);
    const [a, b] = agents as [TestAgent, TestAgent];
    await setLimits(cookie, { max_messages_per_channel: 2 });
    const root = await sendOne(a, b, 'root');
    const r1 = (await reply(b, [a], 'answer', root.message_id)).body.results[0];
    await sendOne(a, b, 'pushes the root out');
    expect((await history(a, root.channel_id)).body.messages.map((m: any) => m.body)).not.toContain('root');

    const late = await reply(b, [a], 'late answer', root.message_id);
    expect(late.body.results[0]).toMatchObject({
      status: 'sent',
      reply_to: root.message_id,
      thread_id: root.message_id,
      reply_to_purged: true,
    });
    // Its reply, purged in turn, still threads through its tombstone.
    const later = await reply(a, [b], 'reply to the purged answer', r1.message_id);
    expect(later.body.results[0]).toMatchObject({ thread_id: root.message_id, reply_to_purged: true });
    const thread = await history(a, root.channel_id, `?thread_id=${root.message_id}`);
    expect(thread.body.messages.map((m: any) => m.body)).toEqual(['late answer', 'reply to the purged answer']);
  });

  it('deduplicates a reply only when it answers the same message: the answer names the retained one', async () => {
    const { agents } = await world(2);
    const [a, b] = agents as [TestAgent, TestAgent];
    const x = await sendOne(a, b, 'question x');
    const y = await sendOne(a, b, 'question y');
    const first = (await reply(b, [a], 'ok', x.message_id)).body.results[0];
    const retry = (await reply(b, [a], 'ok', x.message_id)).body.results[0];
    expect(retry).toEqual({ ...first, status: 'duplicate', reply_to_purged: undefined });
    expect(retry).not.toHaveProperty('reply_to_purged');
    // Which message a reply answers is a detail of the request (api-v1's third release): "ok" to
    // y is a new message in y's thread, and the same "ok" to y again is its duplicate.
    const toY = (await reply(b, [a], 'ok', y.message_id)).body.results[0];
    expect(toY).toMatchObject({ status: 'sent', reply_to: y.message_id, thread_id: y.message_id });
    expect(toY.message_id).not.toBe(first.message_id);
    const toYAgain = (await reply(b, [a], 'ok', y.message_id)).body.results[0];
    expect(toYAgain).toMatchObject({ status: 'duplicate', message_id: toY.message_id });
    expect((await inbox(a)).body.unread).toBe(2);
  });

  it('takes reply_to in multipart metadata; a refused one stores no file', async () => {
    const { agents } = await world(2);
    const [a, b] = agents as [TestAgent, TestAgent];
    const root = await sendOne(a, b, 'send me the log');
    const upload = (replyTo: string) =>
      call('POST', '/messages/direct', {
        key: b.key,
        rawBody: multipartBody('sbx-threads', [
          formPart({ name: 'metadata', data: JSON.stringify({ to_agent_ids: [a.id], body: '', reply_to: replyTo }) }),
          formPart({ name: 'file', filename: 'log.txt', type: 'text/plain', data: 'line 1\n' }),
        ]),
        headers: { 'content-type': 'multipart/form-data; boundary=sbx-threads' },
      });
    expectError(await upload(neverSent(root.channel_id)), 400, 'reply_to_not_found');
    const stub = env.CHANNEL.get(env.CHANNEL.idFromName(root.channel_id));
    expect(await stub.storedKeys()).toEqual({ live: [], pending: [], deleting: [] });
    expect((await env.FILES.list({ prefix: 'files/' })).objects).toEqual([]);

    const ok = await upload(root.message_id);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.results[0]).toMatchObject({ status: 'sent', thread_id: root.message_id });
    const [item] = (await claim(a)).body.claims;
    expect(item.message).toMatchObject({ reply_to: root.message_id, attachment: { filename: 'log.txt' } });
  });
});

describe('threads in groups and richer items', () => {
  it('threads group replies, refuses other channels, and names the group and the sender', async () => {
    const { cookie, agents } = await world(3);
    const [a, b, c] = agents as [TestAgent, TestAgent, TestAgent];
    const rename = await call('PATCH', `/admin/agents/${b.id}`, { cookie, body: { display_name: 'Bob the builder' } });
    expect(rename.status).toBe(200);
    const groupId = await groupOf(a, [b, c], 'release crew');
    const otherGroup = await groupOf(a, [b], 'elsewhere');
    const post = (who: TestAgent, body: string, replyTo?: string) =>
      call('POST', `/groups/${groupId}/messages`, { key: who.key, body: { body, reply_to: replyTo } });

    const root = (await post(a, 'ship 1.4?')).body;
    expect(root).toMatchObject({ status: 'sent', thread_id: root.message_id, reply_to: null });
    const answer = await post(b, 'yes', root.message_id);
    expect(answer.body).toMatchObject({ status: 'sent', reply_to: root.message_id, thread_id: root.message_id });
    expect(answer.body.reply_to_purged).toBe(false);

    const elsewhere = (await call('POST', `/groups/${otherGroup}/messages`, { key: a.key, body: { body: 'hi' } })).body;
    expectError(await post(b, 'wrong group', elsewhere.message_id), 400, 'reply_to_other_channel', 'reply_to');
    const dm = await sendOne(a, b, 'private');
    expectError(await post(b, 'from a dm', dm.message_id), 400, 'reply_to_other_channel');
    expectError(await post(b, 'never', neverSent(groupId)), 400, 'reply_to_not_found');

    const claims = (await claim(c, { limit: 10 })).body.claims;
    expect(claims.map((x: any) => x.message)).toMatchObject([
      {
        body: 'ship 1.4?',
        sender_display_name: 'agent-0',
        channel_kind: 'group',
        group_name: 'release crew',
        thread_id: root.message_id,
        reply_to: null,
      },
      {
        body: 'yes',
        sender_display_name: 'Bob the builder',
        channel_kind: 'group',
        group_name: 'release crew',
        reply_to: root.message_id,
      },
    ]);
    // The name is the one the sender had when it sent: a later rename does not rewrite history.
    await call('PATCH', `/admin/agents/${b.id}`, { cookie, body: { display_name: 'Robert' } });
    const page = await history(c, groupId, `?thread_id=${root.message_id}`);
    expect(page.body.messages.map((m: any) => m.sender_display_name)).toEqual(['agent-0', 'Bob the builder']);
  });

  it('names senders of messages stored before names were kept, once, from the registry', async () => {
    const { agents } = await world(2);
    const [a, b] = agents as [TestAgent, TestAgent];
    const channelId = await dmChannelId(a.id, b.id);
    const stub = env.CHANNEL.get(env.CHANNEL.idFromName(channelId));
    // The channel is in both agents' indexes, as after any earlier exchange (history of a channel
    // an agent was never in is answered without opening it).
    await sendOne(b, a, 'hello');
    // As an older version stored it: no sender name.
    await runInDurableObject(stub, (_instance, state) => {
      const store = new ChannelStore(drizzle(state.storage, { schema }));
      store.sendDirect({
        channelId,
        senderId: a.id,
        recipientId: b.id,
        content: { body: 'from the old days', attachment: null },
        maxMessages: 100,
        now: Date.now(),
      });
    });
    const page = await history(b, channelId);
    const fromOldDays = page.body.messages.find((m: { body: string }) => m.body === 'from the old days');
    expect(fromOldDays).toMatchObject({ sender_display_name: 'agent-0', channel_kind: 'private' });
    const stored = await runInDurableObject(stub, (_instance, state) =>
      drizzle(state.storage, { schema })
        .select({ name: schema.messages.senderName })
        .from(schema.messages)
        .where(eq(schema.messages.senderId, a.id))
        .get(),
    );
    expect(stored?.name).toBe('agent-0');
  });

  it('keeps the thread of purged messages in the bounded tombstone set', async () => {
    const { agents } = await world(2);
    const [a, b] = agents as [TestAgent, TestAgent];
    const channelId = await dmChannelId(a.id, b.id);
    const stub = env.CHANNEL.get(env.CHANNEL.idFromName(channelId));
    await runInDurableObject(stub, (_instance, state) => {
      const db = drizzle(state.storage, { schema });
      const store = new ChannelStore(db);
      const base = { channelId, recipientId: b.id, maxMessages: 1, now: Date.now() };
      const root = store.sendDirect({ ...base, senderId: a.id, content: { body: 'root', attachment: null } });
      const answer = store.sendDirect({
        ...base,
        senderId: b.id,
        recipientId: a.id,
        replyTo: root.message_id,
        content: { body: 'answer', attachment: null },
      });
      expect(answer).toMatchObject({ status: 'sent', thread_id: root.message_id, reply_to_purged: false });
      if (answer.status !== 'sent' && answer.status !== 'duplicate') throw new Error('not sent');
      store.sendDirect({ ...base, senderId: a.id, content: { body: 'evicts the answer', attachment: null } });
      expect(store.replyTarget(root.message_id)).toEqual({ thread_id: root.message_id, purged: true });
      expect(store.replyTarget(answer.message_id)).toEqual({ thread_id: root.message_id, purged: true });
      const tomb = db.select().from(schema.purged).where(eq(schema.purged.messageId, answer.message_id)).get();
      expect(tomb?.threadId).toBe(root.message_id);
      expect(store.replyTarget(neverSent(channelId))).toBeNull();
    });
  });
});

describe('agent descriptions', () => {
  it('are set by administrators and shown to agents in the directory', async () => {
    const { cookie, agents } = await world(1);
    const [a] = agents as [TestAgent];
    const host = (await call('GET', '/admin/hosts', { cookie })).body.hosts[0];
    const created = await call('POST', '/admin/agents', {
      cookie,
      body: { name: 'reviewer', host_id: host.host_id, description: 'Reviews pull requests; ask it for a review.' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.agent.description).toBe('Reviews pull requests; ask it for a review.');
    const dir = await call('GET', '/directory?name=reviewer', { key: a.key });
    expect(dir.body.agents[0]).toMatchObject({
      name: 'reviewer',
      description: 'Reviews pull requests; ask it for a review.',
    });
    const plain = await call('GET', '/directory?name=agent-0', { key: a.key });
    expect(plain.body.agents[0].description).toBe('');

    const id = created.body.agent.agent_id;
    const patched = await call('PATCH', `/admin/agents/${id}`, { cookie, body: { description: '' } });
    expect(patched.body.agent.description).toBe('');
    const tooLong = await call('PATCH', `/admin/agents/${id}`, { cookie, body: { description: 'x'.repeat(2001) } });
    expectError(tooLong, 400, 'validation_failed', 'description');
    expect((await call('GET', '/directory?name=reviewer', { key: a.key })).body.agents[0].description).toBe('');
  });
});
