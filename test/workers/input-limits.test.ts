import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../core/lib/limits.js';
import { MAX_JSON_DEPTH } from '../../worker/body/json.js';
import { call } from './helpers.js';
import { inbox, world } from './messaging-helpers.js';
import { multipartBody } from './multipart-body.js';

const nestedArray = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const nestedObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
const manyIds = (n: number) => Array.from({ length: n }, (_, i) => `agt_x${i}`);

describe('deeply nested JSON', () => {
  it('answers 400 validation_failed, never a 500, and stores nothing', async () => {
    const { cookie, agents } = await world(2);
    const [a, b] = agents as [{ id: string; key: string }, { id: string; key: string }];
    for (const depth of [MAX_JSON_DEPTH + 1, 5_000, 30_000]) {
      for (const raw of [
        nestedArray(depth),
        nestedObject(depth),
        `{"to_agent_ids":["${b.id}"],"body":"hi","extra":${nestedArray(depth)}}`,
      ]) {
        const res = await call('POST', '/messages/direct', {
          key: a.key,
          rawBody: raw,
          headers: { 'content-type': 'application/json' },
        });
        expect({ depth, status: res.status, code: res.body?.error?.code }).toEqual({
          depth,
          status: 400,
          code: 'validation_failed',
        });
      }
      const settings = await call('PATCH', '/admin/settings', {
        cookie,
        rawBody: nestedObject(depth),
        headers: { 'content-type': 'application/json' },
      });
      expect(settings.status).toBe(400);
      expect(settings.body.error.code).toBe('validation_failed');
    }
    expect((await inbox(b)).body.channels ?? []).toHaveLength(0);
  });

  it('refuses the same nesting inside a multipart send', async () => {
    const { agents } = await world(2);
    const [a, b] = agents as [{ id: string; key: string }, { id: string; key: string }];
    const boundary = 'deep-boundary';
    const res = await call('POST', '/messages/direct', {
      key: a.key,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      rawBody: multipartBody(boundary, [
        {
          headers: 'Content-Disposition: form-data; name="metadata"\r\nContent-Type: application/json',
          data: `{"to_agent_ids":["${b.id}"],"body":"hi","x":${nestedObject(10_000)}}`,
        },
        {
          headers: 'Content-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain',
          data: 'hello',
        },
      ]),
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
  });

  it('still accepts nesting up to the limit', async () => {
    const { agents } = await world(2);
    const [a, b] = agents as [{ id: string; key: string }, { id: string; key: string }];
    // The envelope object is one level, so the extra field may nest MAX_JSON_DEPTH - 1 deep.
    const res = await call('POST', '/messages/direct', {
      key: a.key,
      rawBody: `{"to_agent_ids":["${b.id}"],"body":"hi","extra":${nestedArray(MAX_JSON_DEPTH - 1)}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(200);
  });
});

describe('too many targets in one request', () => {
  it('answers too_many_recipients with the limit for 10,000 recipients, as JSON and as multipart', async () => {
    const { agents } = await world(1);
    const [a] = agents as [{ id: string; key: string }];
    for (const n of [DEFAULT_LIMITS.max_recipients + 1, 1_001, 10_000]) {
      const res = await call('POST', '/messages/direct', {
        key: a.key,
        body: { to_agent_ids: manyIds(n), body: 'hi' },
      });
      expect({ n, status: res.status, code: res.body.error?.code }).toEqual({
        n,
        status: 400,
        code: 'too_many_recipients',
      });
      expect(res.body.error.limit).toBe(DEFAULT_LIMITS.max_recipients);
      expect(res.body.error.field).toBe('to_agent_ids');
    }
    const boundary = 'many-boundary';
    const multipart = await call('POST', '/messages/direct', {
      key: a.key,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      rawBody: multipartBody(boundary, [
        {
          headers: 'Content-Disposition: form-data; name="metadata"\r\nContent-Type: application/json',
          data: JSON.stringify({ to_agent_ids: manyIds(10_000), body: 'hi' }),
        },
        {
          headers: 'Content-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain',
          data: 'hello',
        },
      ]),
    });
    expect(multipart.status).toBe(400);
    expect(multipart.body.error.code).toBe('too_many_recipients');
  });

  it('caps invitees per request like recipients: nothing is created or invited over the cap', async () => {
    const { agents } = await world(2);
    const [owner, other] = agents as [{ id: string; key: string }, { id: string; key: string }];
    for (const n of [DEFAULT_LIMITS.max_recipients + 1, 1_000, 10_000]) {
      const res = await call('POST', '/groups', { key: owner.key, body: { name: 'g', invitee_ids: manyIds(n) } });
      expect({ n, status: res.status, code: res.body.error?.code }).toEqual({
        n,
        status: 400,
        code: 'too_many_recipients',
      });
      expect(res.body.error.limit).toBe(DEFAULT_LIMITS.max_recipients);
      expect(res.body.error.field).toBe('invitee_ids');
    }
    const groups = await call('GET', '/groups', { key: owner.key });
    expect(groups.body.memberships).toHaveLength(0);

    // Repeats collapse before counting, and up to the cap is fine.
    const atCap = [...manyIds(DEFAULT_LIMITS.max_recipients - 1), other.id, other.id];
    const created = await call('POST', '/groups', { key: owner.key, body: { name: 'g', invitee_ids: atCap } });
    expect(created.status).toBe(201);
    expect(created.body.results).toHaveLength(DEFAULT_LIMITS.max_recipients);

    const groupId = created.body.group.group_id as string;
    const invite = await call('POST', `/groups/${groupId}/invitations`, {
      key: owner.key,
      body: { agent_ids: manyIds(1_000) },
    });
    expect(invite.status).toBe(400);
    expect(invite.body.error.code).toBe('too_many_recipients');
    expect(invite.body.error.field).toBe('agent_ids');
  });
});
