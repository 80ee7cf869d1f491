import { env, SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { adminCookie, BASE, call } from './helpers.js';

function expectError(res: { status: number; body: any; headers: Headers }, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.body.error.code).toBe(code);
  expect(res.body.request_id).toMatch(/^req_/);
  expect(res.headers.get('x-request-id')).toBe(res.body.request_id);
  expect(typeof res.body.error.message).toBe('string');
  expect(typeof res.body.error.settings_revision).toBe('number');
}

async function hostCount(cookie: string): Promise<number> {
  return (await call('GET', '/admin/hosts', { cookie })).body.hosts.length;
}

describe('structured errors, and nothing stored on bad input', () => {
  it('answers unknown routes with not_found, and other methods of a known route with method_not_allowed', async () => {
    expectError(await call('GET', '/nope'), 404, 'not_found');
    const wrongMethod = await call('PUT', '/me');
    expectError(wrongMethod, 405, 'method_not_allowed');
    expect(wrongMethod.headers.get('allow')).toBe('GET, HEAD');
  });

  it('names the field of a validation error', async () => {
    const cookie = await adminCookie();
    const res = await call('POST', '/admin/hosts', { cookie, body: { name: 'h', addresses: 'not-a-list' } });
    expectError(res, 400, 'validation_failed');
    expect(res.body.error.field).toBe('addresses');
    const badIp = await call('POST', '/admin/hosts', {
      cookie,
      body: { name: 'h', addresses: ['10.0.0.1', '10.0.0.0/8'] },
    });
    expectError(badIp, 400, 'validation_failed');
    expect(badIp.body.error.field).toBe('addresses.1');
    for (const address of ['host.example', '::1%eth0', '010.0.0.1', '1.2.3', '1::2::3']) {
      expectError(
        await call('POST', '/admin/hosts', { cookie, body: { name: 'h', addresses: [address] } }),
        400,
        'validation_failed',
      );
    }
    expect(await hostCount(cookie)).toBe(0);
  });

  it('gives each refusal a stable reason and the values to phrase it (REQ-53)', async () => {
    const cookie = await adminCookie();
    const post = (body: unknown) => call('POST', '/admin/hosts', { cookie, body });
    const tooLong = await post({ name: 'h'.repeat(500), addresses: ['10.0.0.1'] });
    expectError(tooLong, 400, 'validation_failed');
    expect(tooLong.body.error).toMatchObject({ field: 'name', reason: 'too_big', params: { origin: 'string' } });
    expect(tooLong.body.error.limit).toBeGreaterThan(0);
    const none = await post({ name: 'h', addresses: [] });
    expect(none.body.error).toMatchObject({
      field: 'addresses',
      reason: 'too_small',
      limit: 1,
      params: { origin: 'array' },
    });
    const badIp = await post({ name: 'h', addresses: ['10.0.0.1', '10.0.0.0/8'] });
    expect(badIp.body.error).toMatchObject({ field: 'addresses.1', reason: 'not_ip_address' });
    const wrongType = await post({ name: 'h', addresses: 'x' });
    expect(wrongType.body.error).toMatchObject({
      field: 'addresses',
      reason: 'invalid_type',
      params: { expected: 'array' },
    });
    const malformed = await call('POST', '/admin/hosts', {
      cookie,
      rawBody: '{',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.body.error).toMatchObject({ code: 'validation_failed', reason: 'malformed_json' });
    const created = await post({ name: 'taken', addresses: ['10.0.0.2'] });
    expect(created.status).toBe(201);
    const empty = await call('PATCH', `/admin/hosts/${created.body.host.host_id}`, { cookie, body: {} });
    expect(empty.body.error).toMatchObject({ code: 'validation_failed', reason: 'empty_patch' });
    const clash = await post({ name: 'taken', addresses: ['10.0.0.3'] });
    expectError(clash, 409, 'conflict');
    expect(clash.body.error).toMatchObject({ field: 'name', reason: 'host_name_taken' });
    const badName = await call('POST', '/admin/agents', {
      cookie,
      body: { name: '-bad name', host_id: created.body.host.host_id },
    });
    expect(badName.body.error).toMatchObject({ field: 'name', reason: 'invalid_format', params: { format: 'regex' } });
    expect(await hostCount(cookie)).toBe(1);
  });

  it('refuses malformed JSON, wrong content types and invalid Unicode without writing', async () => {
    const cookie = await adminCookie();
    const json = { 'content-type': 'application/json' };
    expectError(
      await call('POST', '/admin/hosts', { cookie, rawBody: '{"name": "h", ', headers: json }),
      400,
      'validation_failed',
    );
    expectError(
      await call('POST', '/admin/hosts', {
        cookie,
        rawBody: 'name=h',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
      415,
      'unsupported_media_type',
    );
    const lone = await call('POST', '/admin/hosts', {
      cookie,
      rawBody: '{"name":"\\ud800","addresses":["10.0.0.1"]}',
      headers: json,
    });
    expectError(lone, 400, 'invalid_unicode');
    expect(lone.body.error.field).toBe('name');
    const invalidUtf8 = new Uint8Array([
      ...new TextEncoder().encode('{"name":"'),
      0xff,
      0xfe,
      ...new TextEncoder().encode('","addresses":["10.0.0.1"]}'),
    ]);
    expectError(
      await call('POST', '/admin/hosts', { cookie, rawBody: invalidUtf8, headers: json }),
      400,
      'invalid_unicode',
    );
    expect(await hostCount(cookie)).toBe(0);
  });

  it('refuses huge bodies with payload_too_large, also without a Content-Length', async () => {
    const cookie = await adminCookie();
    const huge = JSON.stringify({ name: 'x'.repeat(5_000_000), addresses: ['10.0.0.1'] });
    const res = await call('POST', '/admin/hosts', {
      cookie,
      rawBody: huge,
      headers: { 'content-type': 'application/json' },
    });
    expectError(res, 413, 'payload_too_large');
    expect(res.body.error.limit).toBeGreaterThan(0);
    const chunks = new TextEncoder().encode(huge);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < chunks.length; at += 65_536) controller.enqueue(chunks.slice(at, at + 65_536));
        controller.close();
      },
    });
    const streamed = await SELF.fetch(`${BASE}/admin/hosts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie, 'cf-connecting-ip': '10.0.0.1' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(await hostCount(cookie)).toBe(0);
  });

  it('keeps the API key out of every answer but creation and regeneration', async () => {
    const cookie = await adminCookie();
    const host = (await call('POST', '/admin/hosts', { cookie, body: { name: 'h', addresses: ['10.0.0.1'] } })).body
      .host;
    const created = await call('POST', '/admin/agents', { cookie, body: { name: 'a', host_id: host.host_id } });
    const key = created.body.api_key as string;
    const secret = key.split('.')[1] as string;
    const answers = [
      await call('GET', '/admin/agents', { cookie }),
      await call('GET', `/admin/hosts`, { cookie }),
      await call('GET', '/directory', { key }),
      await call('GET', '/me', { key }),
      await call('PATCH', `/admin/agents/${created.body.agent.agent_id}`, { cookie, body: { display_name: 'A' } }),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(JSON.stringify(answer.body)).not.toContain(secret);
    }
    // Stored only as a keyed hash.
    const registry = env.REGISTRY.get(env.REGISTRY.idFromName('registry'));
    const agents = await registry.listAgents({}, undefined, 10);
    expect(JSON.stringify(agents)).not.toContain(secret);
  });
});
