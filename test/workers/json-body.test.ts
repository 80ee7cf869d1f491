/**
 * A JSON body is read and parsed once by the json-body middleware and validated by the
 * operation's schema in the app (no route body validator, no write to Hono's body cache): the
 * handler gets the schema's output, path and query are checked before the body as before, and a
 * refused body stores nothing.
 */
import { describe, expect, it } from 'vitest';
import { adminCookie, call, createHost } from './helpers.js';

describe('JSON bodies validated by the operation schema', () => {
  it('hands the handler the schema output, not the raw JSON (name is trimmed by the schema)', async () => {
    const cookie = await adminCookie();
    const res = await call('POST', '/admin/hosts', { cookie, body: { name: '  padded  ', addresses: ['10.0.0.9'] } });
    expect(res.status).toBe(201);
    expect(res.body.host.name).toBe('padded');
  });

  it('accepts a structured +json media type with parameters, as before', async () => {
    const cookie = await adminCookie();
    const res = await call('POST', '/admin/hosts', {
      cookie,
      body: { name: 'vendor-json', addresses: ['10.0.0.8'] },
      headers: { 'content-type': 'application/vnd.switchboard+json; charset=utf-8' },
    });
    expect(res.status).toBe(201);
  });

  it('checks the path before the body, and a refused body changes nothing', async () => {
    const cookie = await adminCookie();
    const badPath = await call('PATCH', '/admin/hosts/not-a-host-id', { cookie, body: {} });
    expect(badPath.status).toBe(400);
    expect(badPath.body.error).toMatchObject({ code: 'validation_failed', field: 'host_id' });

    const host = await createHost(cookie, ['10.0.0.7'], 'unchanged');
    const empty = await call('PATCH', `/admin/hosts/${host.host_id}`, { cookie, body: {} });
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe('validation_failed');
    expect(empty.body.error.message).toMatch(/name at least one field/);
    const wrongType = await call('PATCH', `/admin/hosts/${host.host_id}`, { cookie, body: { name: 7 } });
    expect(wrongType.body.error).toMatchObject({ code: 'validation_failed', field: 'name' });
    const hosts = (await call('GET', '/admin/hosts', { cookie })).body.hosts;
    expect(hosts.find((h: { host_id: string }) => h.host_id === host.host_id).name).toBe('unchanged');
  });
});
