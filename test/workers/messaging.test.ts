/** Black-box tests of every messaging route through the worker (SELF.fetch), with the real objects. */
import { describe, expect, it } from 'vitest';
import { dmChannelId } from '../../core/domain/ids.js';
import { call } from './helpers.js';
import { ack, claim, inbox, send, sendOne, setLimits, shiftChannelClock, world } from './messaging-helpers.js';

function expectError(res: { status: number; body: any }, status: number, code: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.error.code).toBe(code);
}

describe('POST /messages/direct', () => {
  it('answers one result per distinct target, in order, and one bad target blocks none', async () => {
    const { cookie, agents } = await world(4);
    const [a, b, c, d] = agents as [any, any, any, any];
    await call('PATCH', `/admin/agents/${d.id}`, { cookie, body: { enabled: false } });

    // A target that is not an agent ID at all refuses the whole request before anything is sent.
    expectError(await send(a, [b.id, 'not-an-id'], 'hello'), 400, 'validation_failed');
    const res = await send(a, [b.id, c.id, a.id, 'agt_nobody', d.id, b.id], 'hello');
    expect(res.status).toBe(200);
    expect(res.body.request_id).toMatch(/^req_/);
    const results = res.body.results;
    expect(results.map((r: any) => [r.target_agent_id, r.status, r.error?.code])).toEqual([
      [b.id, 'sent', undefined],
      [c.id, 'sent', undefined],
      [a.id, 'rejected', 'self_send_forbidden'],
      ['agt_nobody', 'rejected', 'unknown_agent'],
      [d.id, 'rejected', 'agent_disabled'],
    ]);
    // Each target: its own message in its own pair channel, the same ID from both sides.
    expect(results[0].channel_id).toBe(await dmChannelId(b.id, a.id));
    expect(results[1].channel_id).toBe(await dmChannelId(c.id, a.id));
    expect(results[0].message_id).not.toBe(results[1].message_id);
    const reply = await sendOne(b, a, 'hi back');
    expect(reply.channel_id).toBe(results[0].channel_id);

    // B cannot see A and C's conversation.
    expectError(await call('GET', `/channels/${results[1].channel_id}/messages`, { key: b.key }), 404, 'not_found');
  });

  it('deduplicates per target against the sender’s latest message there', async () => {
    const { agents } = await world(3);
    const [a, b, c] = agents as [any, any, any];
    const first = await send(a, [b], 'same');
    const both = await send(a, [b, c], 'same');
    expect(both.body.results.map((r: any) => r.status)).toEqual(['duplicate', 'sent']);
    expect(both.body.results[0].message_id).toBe(first.body.results[0].message_id);
    await sendOne(b, a, 'same'); // the other side's message does not change A's comparison
    expect((await send(a, [b], 'same')).body.results[0].status).toBe('duplicate');
    expect((await (await inbox(b)).body).unread).toBe(1);
  });

  it('counts code points against max_body_code_points and never truncates', async () => {
    const { cookie, agents } = await world(2);
    const [a, b] = agents as [any, any];
    await setLimits(cookie, { max_body_code_points: 5 });
    const fiveEmoji = '😀😀😀😀😀'; // 10 UTF-16 units, 5 code points
    expect((await send(a, [b], fiveEmoji)).body.results[0].status).toBe('sent');
    const tooLong = await send(a, [b], 'e\u0301e\u0301e'); // 5 code points: 3 letters + 2 combining
    expect(tooLong.body.results[0].status).toBe('sent');
    const six = await send(a, [b], `${fiveEmoji}!`);
    expectError(six, 400, 'text_too_long');
    expect(six.body.error.limit).toBe(5);
    expect(six.body.error.field).toBe('body');
    const [claimed] = (await claim(b, { limit: 5 })).body.claims;
    expect(claimed.message.body).toBe(fiveEmoji);
  });

  it('refuses empty, malformed and over-addressed requests whole, storing nothing', async () => {
    const { cookie, agents } = await world(4);
    const [a, b, c, d] = agents as [any, any, any, any];
    expectError(await send(a, [b], ''), 400, 'empty_message');
    const raw = (text: string | Uint8Array) =>
      call('POST', '/messages/direct', {
        key: a.key,
        rawBody: text,
        headers: { 'content-type': 'application/json' },
      });
    expectError(await raw(`{"to_agent_ids":["${b.id}"],"body":"x\\ud800y"}`), 400, 'invalid_unicode');
    const invalidUtf8 = new Uint8Array([
      ...new TextEncoder().encode(`{"to_agent_ids":["${b.id}"],"body":"`),
      0xc3,
      0x28,
      0x22,
      0x7d,
    ]);
    expectError(await raw(invalidUtf8), 400, 'invalid_unicode');
    expectError(
      await call('POST', '/messages/direct', { key: a.key, body: { to_agent_ids: [], body: 'x' } }),
      400,
      'validation_failed',
    );
    expectError(
      await call('POST', '/messages/direct', { key: a.key, body: { to_agent_ids: [b.id] } }),
      400,
      'validation_failed',
    );

    await setLimits(cookie, { max_recipients: 2 });
    const over = await send(a, [b, c, d], 'x');
    expectError(over, 400, 'too_many_recipients');
    expect(over.body.error.limit).toBe(2);
    // Repeats collapse before the count.
    expect((await send(a, [b, c, b, c], 'fits')).body.results).toHaveLength(2);

    const bInbox = await inbox(b);
    expect(bInbox.body.unread).toBe(1); // only "fits"
    expect((await send(a, [d], ' ')).body.results[0].status).toBe('sent'); // whitespace is content
  });

  it('accepts the multipart form with a metadata part, with or without a file part', async () => {
    const { agents } = await world(2);
    const [a, b] = agents as [any, any];
    const multipart = (parts: { name: string; filename?: string; content: string }[]) => {
      const boundary = 'sbx-boundary-42';
      const body = `${parts
        .map(
          (p) =>
            `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"${p.filename ? `; filename="${p.filename}"` : ''}\r\n\r\n${p.content}\r\n`,
        )
        .join('')}--${boundary}--\r\n`;
      return call('POST', '/messages/direct', {
        key: a.key,
        rawBody: body,
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      });
    };
    const metadata = JSON.stringify({ to_agent_ids: [b.id], body: 'via multipart' });
    const ok = await multipart([{ name: 'metadata', content: metadata }]);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.results[0].status).toBe('sent');

    const withFile = await multipart([
      { name: 'metadata', content: JSON.stringify({ to_agent_ids: [b.id], body: 'with file' }) },
      { name: 'file', filename: 'a.txt', content: 'abc' },
    ]);
    // The file itself is the files issue's (test/workers/files.test.ts); here: the form is accepted.
    expect(withFile.status, JSON.stringify(withFile.body)).toBe(200);
    expect(withFile.body.results[0].status).toBe('sent');
    expectError(await multipart([{ name: 'metadata', content: '{"to_agent_ids":[]}' }]), 400, 'validation_failed');
    expectError(await multipart([{ name: 'other', content: 'x' }]), 400, 'validation_failed');
    const noBoundary = await call('POST', '/messages/direct', {
      key: a.key,
      rawBody: metadata,
      headers: { 'content-type': 'multipart/form-data' },
    });
    expectError(noBoundary, 400, 'validation_failed');
    expect((await inbox(b)).body.unread).toBe(2);
  });
});

describe('inbox, claim and ACK', () => {
  it('checks without side effects, claims oldest first, and ACKs once', async () => {
    const { agents } = await world(2);
    const [a, b] = agents as [any, any];
    const m1 = await sendOne(a, b, 'one');
    const m2 = await sendOne(a, b, 'two');

    const before = await inbox(b);
    expect(before.body).toMatchObject({ unread: 2, claimable: 2, leased: 0 });
    expect(before.body.channels).toEqual([
      expect.objectContaining({ channel_id: m1.channel_id, kind: 'private', unread: 2, claimable: 2, leased: 0 }),
    ]);
    expect((await inbox(b)).body).toEqual(before.body); // checking changes nothing
    expect((await inbox(a)).body).toMatchObject({ unread: 0, channels: [] }); // no delivery to the sender

    const first = await claim(b);
    expect(first.body.claims).toHaveLength(1);
    const [c1] = first.body.claims;
    expect(c1.message).toMatchObject({
      message_id: m1.message_id,
      body: 'one',
      sender_id: a.id,
      seq: 1,
      attachment: null,
    });
    expect(Date.parse(c1.claim_expires_at) - Date.now()).toBeGreaterThan(50_000);
    expect((await inbox(b)).body).toMatchObject({ unread: 2, claimable: 1, leased: 1 });

    const acked = await ack(b, [{ message_id: m1.message_id, claim_token: c1.claim_token }]);
    expect(acked.body.results).toEqual([{ message_id: m1.message_id, status: 'read' }]);
    const retry = await ack(b, [{ message_id: m1.message_id, claim_token: c1.claim_token }]);
    expect(retry.body.results).toEqual([{ message_id: m1.message_id, status: 'already_read' }]);
    expect((await inbox(b)).body).toMatchObject({ unread: 1, claimable: 1, leased: 0 });

    const newest = await claim(b, { order: 'newest', limit: 10 });
    expect(newest.body.claims.map((x: any) => x.message.message_id)).toEqual([m2.message_id]);
    expect((await claim(b, { limit: 10 })).body).toEqual({ claims: [] }); // empty answers at once
  });

  it('merges claims across channels in time order and honours kind and channel filters', async () => {
    const { agents } = await world(4);
    const [a, b, c, d] = agents as [any, any, any, any];
    // Channel clocks shifted apart, so the creation times are strictly ordered as sent.
    const at = async (from: any, offset: number, body: string) => {
      await shiftChannelClock(await dmChannelId(from.id, d.id), offset);
      return sendOne(from, d, body);
    };
    const fromA1 = await at(a, 0, 'a1');
    const fromB = await at(b, 10_000, 'b1');
    const fromA2 = await at(a, 20_000, 'a2');
    const fromC = await at(c, 30_000, 'c1');
    const all = [fromA1, fromB, fromA2, fromC].map((m) => m.message_id);

    expect((await inbox(d, `?channel_id=${fromB.channel_id}`)).body).toMatchObject({ unread: 1 });
    expect((await inbox(d, '?kind=group')).body).toMatchObject({ unread: 0, channels: [] });
    expect((await inbox(d, '?kind=private')).body.unread).toBe(4);
    expectError(await inbox(d, `?channel_id=${await dmChannelId(a.id, b.id)}`), 404, 'not_found');
    expectError(await claim(d, { channel_id: await dmChannelId(a.id, b.id) }), 404, 'not_found');

    const onlyB = await claim(d, { channel_id: fromB.channel_id, limit: 5 });
    expect(onlyB.body.claims.map((x: any) => x.message.message_id)).toEqual([fromB.message_id]);
    const newest = await claim(d, { limit: 2, order: 'newest' });
    expect(newest.body.claims.map((x: any) => x.message.message_id)).toEqual([all[3], all[2]]);
    const oldest = await claim(d, { limit: 3 });
    expect(oldest.body.claims.map((x: any) => x.message.message_id)).toEqual([all[0]]);
    expect((await claim(d, { limit: 5, kind: 'group' })).body.claims).toEqual([]);
    expect((await inbox(d)).body).toMatchObject({ unread: 4, claimable: 0, leased: 4 });
  });

  it('rejects expired and replaced tokens, and expiry never reopens a read message', async () => {
    const { agents } = await world(2);
    const [a, b] = agents as [any, any];
    const m = await sendOne(a, b, 'task');
    const [c1] = (await claim(b)).body.claims;
    await shiftChannelClock(m.channel_id, 61_000);
    expect((await inbox(b)).body).toMatchObject({ unread: 1, claimable: 1, leased: 0 });
    const expired = await ack(b, [{ message_id: m.message_id, claim_token: c1.claim_token }]);
    expect(expired.body.results[0]).toMatchObject({ status: 'rejected', error: { code: 'claim_expired' } });

    const [c2] = (await claim(b)).body.claims;
    const replaced = await ack(b, [{ message_id: m.message_id, claim_token: c1.claim_token }]);
    expect(replaced.body.results[0]).toMatchObject({ status: 'rejected', error: { code: 'claim_replaced' } });
    const forged = await ack(b, [{ message_id: m.message_id, claim_token: 'forged-token' }]);
    expect(forged.body.results[0]).toMatchObject({ status: 'rejected', error: { code: 'invalid_claim_token' } });
    expect((await ack(b, [{ message_id: m.message_id, claim_token: c2.claim_token }])).body.results[0].status).toBe(
      'read',
    );

    await shiftChannelClock(m.channel_id, 61_000 + 61_000);
    const late = await ack(b, [{ message_id: m.message_id, claim_token: c2.claim_token }]);
    expect(late.body.results[0]).toMatchObject({ status: 'rejected', error: { code: 'claim_expired' } });
    expect((await inbox(b)).body.unread).toBe(0);
    expect((await claim(b)).body.claims).toEqual([]);
  });

  it('fixes a claim’s expiry with the claim duration in force when it was claimed', async () => {
    const { cookie, agents } = await world(2);
    const [a, b] = agents as [any, any];
    await sendOne(a, b, 'one');
    await sendOne(a, b, 'two');
    await setLimits(cookie, { claim_seconds: 5 });
    const [short] = (await claim(b)).body.claims;
    await setLimits(cookie, { claim_seconds: 3600 });
    const [long] = (await claim(b)).body.claims;
    const span = (x: any) => Date.parse(x.claim_expires_at) - Date.now();
    expect(span(short)).toBeLessThanOrEqual(5_000);
    expect(span(long)).toBeGreaterThan(3_000_000);
  });

  it('ACKs batches across channels with per-item results in request order', async () => {
    const { cookie, agents } = await world(3);
    const [a, b, c] = agents as [any, any, any];
    await sendOne(a, c, 'from a');
    await sendOne(b, c, 'from b');
    const claims = (await claim(c, { limit: 10 })).body.claims;
    expect(claims).toHaveLength(2);
    const res = await ack(c, [
      { message_id: 'msg_garbage', claim_token: 'x' },
      { message_id: claims[1].message.message_id, claim_token: claims[1].claim_token },
      { message_id: claims[0].message.message_id, claim_token: 'wrong' },
      { message_id: claims[0].message.message_id, claim_token: claims[0].claim_token },
    ]);
    expect(res.body.results.map((r: any) => [r.message_id, r.status, r.error?.code])).toEqual([
      ['msg_garbage', 'rejected', 'not_found'],
      [claims[1].message.message_id, 'read', undefined],
      [claims[0].message.message_id, 'rejected', 'invalid_claim_token'],
      [claims[0].message.message_id, 'read', undefined],
    ]);
    // Someone else's message: not found, whatever the token.
    const other = await ack(a, [{ message_id: claims[1].message.message_id, claim_token: claims[1].claim_token }]);
    expect(other.body.results[0]).toMatchObject({ status: 'rejected', error: { code: 'not_found' } });

    await setLimits(cookie, { max_claim_batch: 1 });
    const tooMany = await ack(c, [
      { message_id: claims[0].message.message_id, claim_token: 'x' },
      { message_id: claims[1].message.message_id, claim_token: 'y' },
    ]);
    expectError(tooMany, 400, 'validation_failed');
    expect(tooMany.body.error.limit).toBe(1);
  });

  it('answers message_purged for a claimed message deleted by retention', async () => {
    const { cookie, agents } = await world(2);
    const [a, b] = agents as [any, any];
    await setLimits(cookie, { max_messages_per_channel: 2 });
    const m1 = await sendOne(a, b, 'one');
    const [c1] = (await claim(b)).body.claims;
    await sendOne(a, b, 'two');
    await sendOne(b, a, 'three'); // evicts "one", leased or not
    const res = await ack(b, [{ message_id: m1.message_id, claim_token: c1.claim_token }]);
    expect(res.body.results[0]).toMatchObject({ status: 'rejected', error: { code: 'message_purged' } });
    expect((await inbox(b)).body).toMatchObject({ unread: 1 });
    // The evidence went with it: "one" can be sent again.
    expect((await send(a, [b], 'one')).body.results[0].status).toBe('sent');
  });
});

describe('channels and history', () => {
  it('lists the caller’s channels, newest activity first', async () => {
    const { agents } = await world(3);
    const [a, b, c] = agents as [any, any, any];
    const ab = await sendOne(a, b, 'to b');
    await shiftChannelClock(await dmChannelId(a.id, c.id), 10_000); // strictly later, whatever the timer
    const ca = await sendOne(c, a, 'to a');
    const res = await call('GET', '/channels', { key: a.key });
    expect(res.status).toBe(200);
    expect(res.body.channels).toEqual([
      { channel_id: ca.channel_id, kind: 'private', peer_agent_id: c.id, last_message_at: expect.any(String) },
      { channel_id: ab.channel_id, kind: 'private', peer_agent_id: b.id, last_message_at: expect.any(String) },
    ]);
    expect((await call('GET', '/channels?kind=group', { key: a.key })).body.channels).toEqual([]);
    expect((await call('GET', '/channels', { key: b.key })).body.channels.map((x: any) => x.peer_agent_id)).toEqual([
      a.id,
    ]);
  });

  it('pages history by seq for participants only, without claiming or reading', async () => {
    const { agents } = await world(3);
    const [a, b, c] = agents as [any, any, any];
    const sent = [];
    for (let i = 1; i <= 5; i++) sent.push(await sendOne(i % 2 ? a : b, i % 2 ? b : a, `m${i}`));
    const channel = sent[0]!.channel_id;
    const page1 = await call('GET', `/channels/${channel}/messages?limit=2`, { key: b.key });
    expect(page1.status).toBe(200);
    expect(page1.body.messages.map((m: any) => m.body)).toEqual(['m1', 'm2']);
    const page2 = await call('GET', `/channels/${channel}/messages?limit=2&cursor=${page1.body.next_cursor}`, {
      key: b.key,
    });
    expect(page2.body.messages.map((m: any) => m.seq)).toEqual([3, 4]);
    const desc = await call('GET', `/channels/${channel}/messages?order=desc&limit=10`, { key: a.key });
    expect(desc.body.messages.map((m: any) => m.seq)).toEqual([5, 4, 3, 2, 1]);
    expect(desc.body.next_cursor).toBeNull();
    expect(desc.body.messages[0]).toMatchObject({ channel_id: channel, sender_id: a.id, attachment: null });

    expectError(await call('GET', `/channels/${channel}/messages`, { key: c.key }), 404, 'not_found');
    expectError(
      await call('GET', `/channels/${await dmChannelId(b.id, c.id)}/messages`, { key: b.key }),
      404,
      'not_found',
    );
    expectError(
      await call('GET', `/channels/${channel}/messages?cursor=garbage`, { key: a.key }),
      400,
      'validation_failed',
    );
    expectError(await call('GET', '/channels/not-a-channel/messages', { key: a.key }), 400, 'validation_failed');
    expect((await inbox(b)).body).toMatchObject({ unread: 3, claimable: 3, leased: 0 });
  });
});
