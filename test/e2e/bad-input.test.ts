/**
 * Bad input through the real front and Miniflare: every refusal is the structured error of
 * api-v1.md with a matching X-Request-Id, nothing is written, and the server keeps serving
 * (also after a client hangs up mid-upload).
 */
import http from 'node:http';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminLogin, api, createAgent, createHost, errorCode, type Server, startServer } from './harness.js';

let server: Server;
let cookie: string;
let key: string;

beforeAll(async () => {
  server = await startServer();
  cookie = await adminLogin(server);
  key = (await createAgent(server, cookie, (await createHost(server, cookie, ['127.0.0.1'])).host_id)).key;
});

afterAll(async () => {
  await server?.stop();
});

async function hostNames(): Promise<string[]> {
  const res = await api(server, 'GET', '/admin/hosts?limit=200', { cookie });
  expect(res.status).toBe(200);
  return res.body.hosts.map((h: { name: string }) => h.name).sort();
}

/** A body sent in chunks with no Content-Length (Transfer-Encoding: chunked). */
function chunked(parts: (string | Buffer)[]): Readable {
  return Readable.from(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));
}

const JSON_HEADERS = { 'content-type': 'application/json' };
const bigJson = (bytes: number) =>
  JSON.stringify({ name: 'huge', addresses: ['192.0.2.1'], description: 'x'.repeat(bytes) });

describe('refused input changes nothing', () => {
  let before: string[];
  beforeAll(async () => {
    before = await hostNames();
  });

  const cases: [string, () => Promise<Awaited<ReturnType<typeof api>>>, number, string][] = [
    [
      'malformed JSON',
      () => api(server, 'POST', '/admin/hosts', { cookie, rawBody: '{"name": "x", ', headers: JSON_HEADERS }),
      400,
      'validation_failed',
    ],
    [
      'wrong types',
      () => api(server, 'POST', '/admin/hosts', { cookie, body: { name: 5, addresses: '127.0.0.1' } }),
      400,
      'validation_failed',
    ],
    [
      'an address that is a CIDR range',
      () => api(server, 'POST', '/admin/hosts', { cookie, body: { name: 'cidr', addresses: ['10.0.0.0/8'] } }),
      400,
      'validation_failed',
    ],
    [
      'invalid UTF-8 bytes',
      () =>
        api(server, 'POST', '/admin/hosts', {
          cookie,
          rawBody: Buffer.concat([
            Buffer.from('{"name":"bad'),
            Buffer.from([0xff, 0xfe]),
            Buffer.from('","addresses":[]}'),
          ]),
          headers: JSON_HEADERS,
        }),
      400,
      'invalid_unicode',
    ],
    [
      'a 5 MB JSON body',
      () => api(server, 'POST', '/admin/hosts', { cookie, rawBody: bigJson(5_000_000), headers: JSON_HEADERS }),
      413,
      'payload_too_large',
    ],
    [
      'a 5 MB chunked JSON body without Content-Length',
      () => {
        const text = bigJson(5_000_000);
        const parts: string[] = [];
        for (let i = 0; i < text.length; i += 65_536) parts.push(text.slice(i, i + 65_536));
        return api(server, 'POST', '/admin/hosts', { cookie, rawBody: chunked(parts), headers: JSON_HEADERS });
      },
      413,
      'payload_too_large',
    ],
    [
      'a chunked malformed JSON body',
      () =>
        api(server, 'POST', '/admin/hosts', {
          cookie,
          rawBody: chunked(['{"name":', '"chunked", "addresses": [', 'oops']),
          headers: JSON_HEADERS,
        }),
      400,
      'validation_failed',
    ],
    [
      'a body that is not JSON',
      () =>
        api(server, 'POST', '/admin/hosts', {
          cookie,
          rawBody: 'name=x',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        }),
      415,
      'unsupported_media_type',
    ],
    ['an unknown route', () => api(server, 'GET', '/no/such/route', { key }), 404, 'not_found'],
    [
      'an unknown route with a body',
      () => api(server, 'POST', '/no/such/route', { cookie, body: { name: 'x' } }),
      404,
      'not_found',
    ],
    [
      'an agent key on an administrator route',
      () => api(server, 'POST', '/admin/hosts', { key, body: { name: 'by-agent', addresses: ['192.0.2.2'] } }),
      401,
      'unauthenticated',
    ],
  ];

  for (const [name, send, status, code] of cases) {
    it(`${name}: ${status} ${code}`, async () => {
      const res = await send();
      expect(res.status, res.text).toBe(status);
      expect(errorCode(res)).toBe(code);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
    });
  }

  it('leaves the host list as it was', async () => {
    expect(await hostNames()).toEqual(before);
  });
});

describe('bodies stream through the front', () => {
  it('accepts a valid chunked JSON body without Content-Length', async () => {
    const res = await api(server, 'POST', '/admin/hosts', {
      cookie,
      rawBody: chunked(['{"name":"chunked-ok",', '"addresses":["192.0.2.77"]}']),
      headers: JSON_HEADERS,
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.host.addresses).toEqual(['192.0.2.77']);
  });

  it('survives a client that hangs up mid-upload', async () => {
    const url = new URL(server.url);
    await new Promise<void>((resolve) => {
      const request = http.request({
        hostname: url.hostname,
        port: url.port,
        method: 'POST',
        path: '/api/v1/admin/hosts',
        headers: { ...JSON_HEADERS, cookie, 'content-length': '10000000' },
      });
      request.on('error', () => resolve());
      request.write(`{"name":"aborted","description":"${'y'.repeat(200_000)}`, () => {
        setTimeout(() => {
          request.destroy();
          resolve();
        }, 50);
      });
    });
    const res = await api(server, 'GET', '/me', { key });
    expect(res.status).toBe(200);
    expect(await hostNames()).not.toContain('aborted');
  });
});

describe('the front refuses what it cannot forward', () => {
  it('a malformed Host header', async () => {
    const res = await api(server, 'GET', '/me', { key, headers: { host: 'evil.example/path' } });
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe('validation_failed');
  });

  it("Miniflare's /cdn-cgi/ endpoints", async () => {
    const res = await api(server, 'GET', '/cdn-cgi/mf/scheduled', { absolutePath: true });
    expect(res.status).toBe(404);
    expect(errorCode(res)).toBe('not_found');
  });
});
