/**
 * The HTTP client against a real local HTTP server (node:http): request shapes, credentials per
 * role, multipart uploads, downloads through a temp file, errors and unreachable servers.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig, updateProfile } from '../../client/config.js';
import { applySetCookies, parseSetCookie } from '../../client/cookies.js';
import { LocalError } from '../../client/errors.js';
import { filenameFromDisposition } from '../../client/files.js';
import { countRejected, invokeOperation } from '../../client/invoke.js';
import { fetchBytes, kitchenSink, pairs, secret } from './fixtures.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

let server: Server;
let base: string;
const seen: Seen[] = [];
let reply: (req: Seen, res: ServerResponse) => void = (_req, res) => res.end('{}');
const bytes = Buffer.from(Array.from({ length: 70_000 }, (_, i) => i % 251));

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      seen.push(entry);
      reply(entry, res);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));

const dir = () => mkdtempSync(join(tmpdir(), 'sb-client-'));
const envFor = (extra: Record<string, string> = {}) => ({
  SWITCHBOARD_CONFIG: join(dir(), 'config.json'),
  SWITCHBOARD_URL: base,
  SWITCHBOARD_API_KEY: 'sbk_agt_x.secret',
  ...extra,
});

describe('requests', () => {
  it('sends path params encoded, query, JSON body and the bearer key; counts rejected results', async () => {
    reply = (_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ request_id: 'req_1', results: [{ status: 'sent' }, { status: 'rejected' }] }));
    };
    const outcome = await invokeOperation(
      { op: kitchenSink, values: { thing_id: 'thg_a', page: '3', to_agent_ids: ['agt_1'], text: 'hé' } },
      { env: envFor() },
    );
    const request = seen.at(-1) as Seen;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/api/v1/things/thg_a?page=3');
    expect(request.headers.authorization).toBe('Bearer sbk_agt_x.secret');
    expect(request.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request.body.toString('utf8'))).toEqual({ to_agent_ids: ['agt_1'], text: 'hé' });
    expect(outcome).toMatchObject({ ok: true, items: 2, rejected: 1 });
  });

  it('validates locally with the operation schemas: nothing is sent for a bad value', async () => {
    const before = seen.length;
    await expect(
      invokeOperation(
        { op: kitchenSink, values: { thing_id: 'nope', to_agent_ids: ['a'], text: 'x' } },
        { env: envFor() },
      ),
    ).rejects.toThrow(/thing_id/);
    await expect(
      invokeOperation({ op: kitchenSink, values: { thing_id: 'thg_a', text: 'x' } }, { env: envFor() }),
    ).rejects.toMatchObject({ code: 'validation_failed', field: 'to_agent_ids', detail: 'is required' });
    expect(seen.length).toBe(before);
  });

  it('uploads --file as multipart: metadata JSON part + file part with the bytes', async () => {
    const folder = dir();
    writeFileSync(join(folder, 'report.csv'), bytes);
    reply = (_req, res) => res.end('{"request_id":"r","results":[]}');
    await invokeOperation(
      {
        op: kitchenSink,
        values: { thing_id: 'thg_a', to_agent_ids: ['agt_1'], text: '' },
        filePath: join(folder, 'report.csv'),
      },
      { env: envFor() },
    );
    const request = seen.at(-1) as Seen;
    const type = request.headers['content-type'] as string;
    expect(type).toMatch(/^multipart\/form-data; boundary=/);
    const form = await new Response(new Uint8Array(request.body), { headers: { 'content-type': type } }).formData();
    expect(JSON.parse(form.get('metadata') as string)).toEqual({ to_agent_ids: ['agt_1'], text: '' });
    const file = form.get('file') as File;
    expect(file.name).toBe('report.csv');
    expect(file.type).toBe('text/csv');
    expect(Buffer.from(await file.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('a missing --file is a local file error before anything is sent', async () => {
    const before = seen.length;
    const error = await invokeOperation(
      { op: kitchenSink, values: { thing_id: 'thg_a', to_agent_ids: ['a'], text: 'x' }, filePath: '/no/such/file.bin' },
      { env: envFor() },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LocalError);
    expect((error as LocalError).message).toMatch(/no such file or directory/);
    expect((error as LocalError).exitCode).toBe(2);
    expect(seen.length).toBe(before);
  });

  it('downloads through a temp file and reports size, sha256 and the RFC 6266 filename', async () => {
    reply = (_req, res) => {
      res.setHeader('content-type', 'application/pdf');
      res.setHeader('content-disposition', `attachment; filename="x.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf`);
      res.setHeader('content-length', String(bytes.length));
      res.end(bytes);
    };
    const folder = dir();
    const out = join(folder, 'copy.bin');
    const outcome = await invokeOperation(
      { op: fetchBytes, values: { blob_id: 'b1' }, outPath: out },
      { env: envFor() },
    );
    expect(outcome).toMatchObject({
      ok: true,
      data: {
        blob_id: 'b1',
        path: out,
        size: bytes.length,
        media_type: 'application/pdf',
        filename: 'résumé.pdf',
        sha256: createHash('sha256').update(bytes).digest('hex'),
      },
    });
    expect(readFileSync(out).equals(bytes)).toBe(true);
    expect(readdirSync(folder)).toEqual(['copy.bin']);
    // An existing destination is kept unless overwrite is asked for.
    await expect(
      invokeOperation({ op: fetchBytes, values: { blob_id: 'b1' }, outPath: out }, { env: envFor() }),
    ).rejects.toThrow(/already exists/);
    await invokeOperation(
      { op: fetchBytes, values: { blob_id: 'b1' }, outPath: out, overwrite: true },
      { env: envFor() },
    );
  });

  it('a truncated download leaves no file at the destination', async () => {
    reply = (_req, res) => {
      res.setHeader('content-length', String(bytes.length));
      res.write(bytes.subarray(0, 1000));
      setTimeout(() => res.destroy(), 20);
    };
    const folder = dir();
    const out = join(folder, 'partial.bin');
    await expect(
      invokeOperation({ op: fetchBytes, values: { blob_id: 'b1' }, outPath: out }, { env: envFor() }),
    ).rejects.toThrow(/download to .* failed/);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(folder)).toEqual([]);
  });

  it('returns the API error body for 4xx/5xx, and a synthesized one for a non-API answer', async () => {
    const body = { request_id: 'req_e', error: { code: 'not_found', message: 'No such thing.', settings_revision: 1 } };
    reply = (_req, res) => {
      res.statusCode = 404;
      res.end(JSON.stringify(body));
    };
    expect(
      await invokeOperation(
        { op: pairs, values: { acks: [{ message_id: 'm', claim_token: 't' }] } },
        { env: envFor() },
      ),
    ).toEqual({ ok: false, status: 404, error: body });
    reply = (_req, res) => {
      res.statusCode = 502;
      res.end('<html>bad gateway</html>');
    };
    const outcome = await invokeOperation(
      { op: pairs, values: { acks: [{ message_id: 'm', claim_token: 't' }] } },
      { env: envFor() },
    );
    expect(outcome).toMatchObject({ ok: false, status: 502, error: { error: { code: 'unavailable' } } });
  });

  it('keeps an administrator session cookie in the profile and forgets it on logout', async () => {
    const env = envFor({ SWITCHBOARD_API_KEY: '' });
    updateProfile(env.SWITCHBOARD_CONFIG, 'default', { url: base });
    reply = (_req, res) => {
      res.setHeader('set-cookie', 'switchboard_session=tok123; Path=/; HttpOnly; SameSite=Strict');
      res.end('{"ok":true}');
    };
    await invokeOperation({ op: secret, values: { username: 'admin', password: 'pw' } }, { env });
    expect(readConfig(env.SWITCHBOARD_CONFIG).profiles.default?.admin_cookie).toBe('switchboard_session=tok123');
    reply = (_req, res) => {
      res.setHeader('set-cookie', 'switchboard_session=; Max-Age=0; Path=/');
      res.end('{"ok":true}');
    };
    await invokeOperation({ op: secret, values: { username: 'admin', password: 'pw' } }, { env });
    expect(seen.at(-1)?.headers.cookie).toBe('switchboard_session=tok123');
    expect(readConfig(env.SWITCHBOARD_CONFIG).profiles.default?.admin_cookie).toBeUndefined();
  });

  it('an unreachable server is exit 5 with the reason, not a stack', async () => {
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((done) => closed.close(() => done()));
    const error = await invokeOperation(
      { op: pairs, values: { acks: [{ message_id: 'm', claim_token: 't' }] } },
      { env: envFor({ SWITCHBOARD_URL: `http://127.0.0.1:${port}` }) },
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'unreachable', exitCode: 5 });
    expect((error as Error).message).toMatch(/connection refused/);
  });

  it('a missing key is a configuration error before anything is sent', async () => {
    const before = seen.length;
    await expect(
      invokeOperation(
        { op: pairs, values: { acks: [{ message_id: 'm', claim_token: 't' }] } },
        { env: envFor({ SWITCHBOARD_API_KEY: '' }) },
      ),
    ).rejects.toMatchObject({ code: 'not_configured', message: expect.stringMatching(/no API key/) });
    expect(seen.length).toBe(before);
  });
});

describe('small parsers', () => {
  it('Set-Cookie handling', () => {
    expect(parseSetCookie('a=b; Path=/; HttpOnly')).toEqual({ name: 'a', value: 'b', removed: false });
    expect(parseSetCookie('a=; Max-Age=0')?.removed).toBe(true);
    expect(parseSetCookie('a=b; Expires=Thu, 01 Jan 1970 00:00:00 GMT')?.removed).toBe(true);
    expect(applySetCookies('a=1; b=2', ['b=3', 'a=; Max-Age=0', 'c=4'])).toBe('b=3; c=4');
    expect(applySetCookies('a=1', ['a=; Max-Age=0'])).toBeUndefined();
  });

  it('Content-Disposition filenames', () => {
    expect(filenameFromDisposition(`attachment; filename*=UTF-8''%E2%82%AC%20rates.txt`)).toBe('€ rates.txt');
    expect(filenameFromDisposition('attachment; filename="a \\"b\\".txt"')).toBe('a "b".txt');
    expect(filenameFromDisposition(null)).toBeNull();
    // Not UTF-8 after decoding: the plain name is the one left.
    expect(filenameFromDisposition(`attachment; filename="plain.txt"; filename*=UTF-8''%FF.txt`)).toBe('plain.txt');
    expect(filenameFromDisposition(`attachment; FILENAME*=utf-8'en'%C3%A9.txt; filename="e.txt"`)).toBe('é.txt');
    expect(filenameFromDisposition('attachment; filename="never closed')).toBeNull();
    expect(filenameFromDisposition('attachment')).toBeNull();
  });

  it('countRejected looks at per-item statuses only', () => {
    expect(countRejected({ results: [{ status: 'read' }, { status: 'rejected' }], other: [1, 2] })).toEqual({
      items: 2,
      rejected: 1,
    });
    expect(countRejected({ claims: [] })).toEqual({ items: 0, rejected: 0 });
  });
});
