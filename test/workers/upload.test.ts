/**
 * The streaming upload path on its own (worker/uploads): a multipart request through
 * readUploadRequest into a staged R2 object, with admission by the retention object. The send
 * routes use the same reader; test/workers/files.test.ts covers them end to end.
 */

import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { z } from '@hono/zod-openapi';
import { Hono, type MiddlewareHandler } from 'hono';
import { beforeEach, describe, expect, it } from 'vitest';
import { ApiError, reviveApiError } from '../../core/contract/errors.js';
import type { StagedFile } from '../../core/domain/principals.js';
import { uploadShare } from '../../core/lib/limits.js';
import { forgetCachedSettings } from '../../core/lib/settings-cache.js';
import { admissionRefusal } from '../../durable-objects/retention/admission.js';
import { StallGuard } from '../../worker/body/stall.js';
import { readUploadRequest } from '../../worker/body/upload.js';
import type { AppEnv } from '../../worker/handlers/types.js';
import { PART_BYTES } from '../../worker/uploads/staging.js';
import { type FormPart, formPart, multipartBody } from './multipart-body.js';
import { env } from './test-env.js';

const enc = new TextEncoder();
const B = 'test-boundary-7f3a';
const retention = () => env.RETENTION.get(env.RETENTION.idFromName('retention'));

/** The uploader, as requireAgent would set it: the X-Agent header names it (default agt_a). */
const asAgent: MiddlewareHandler<AppEnv> = async (c, next) => {
  const agent_id = c.req.header('x-agent') ?? 'agt_a';
  c.set('agent', { agent_id, name: agent_id, display_name: agent_id, host_id: 'hst_test' });
  await next();
};

const app = new Hono<AppEnv>();
app.use(asAgent);
app.post('/up', async (c) => {
  const upload = await readUploadRequest(c, z.object({ body: z.string() }), (b) => {
    if (b.body === 'refuse-early') throw new ApiError('text_too_long', 'early', { field: 'body' });
  });
  let stored: string | null = null;
  if (upload.file) stored = await (await env.FILES.get(upload.file.key))!.text();
  if (c.req.query('keep') !== '1') await upload.release();
  return c.json({ body: upload.body, file: upload.file, stored });
});
app.onError((raw, c) => {
  const error = reviveApiError(raw);
  if (error instanceof ApiError) return c.json({ code: error.code, ...error.details }, error.status as 400);
  return c.json({ code: 'unexpected', message: String(raw) }, 500);
});

async function post(
  body: BodyInit,
  query = '',
  headers: Record<string, string> = {},
): Promise<{ status: number; json: any }> {
  const ctx = createExecutionContext();
  const response = await app.fetch(
    new Request(`https://x/up${query}`, {
      method: 'POST',
      body,
      headers: { 'content-type': `multipart/form-data; boundary=${B}`, ...headers },
    }),
    env,
    ctx,
  );
  const json = await response.json();
  // A kept upload holds its lease (renewed by the request) until the test ends: nothing to wait for.
  if (!query.includes('keep=1')) await waitOnExecutionContext(ctx);
  return { status: response.status, json };
}

function multipart(parts: FormPart[]): Uint8Array {
  return multipartBody(B, parts.map(formPart));
}

/** A body without Content-Length (chunked), delivered in pieces. */
function chunked(bytes: Uint8Array, piece = 64 * 1024, failAfter?: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (failAfter !== undefined && at >= failAfter) {
        controller.error(new Error('client went away'));
        return;
      }
      if (at >= bytes.length) {
        controller.close();
        return;
      }
      controller.enqueue(bytes.slice(at, at + piece));
      at += piece;
    },
  });
}

async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return [...digest].map((b) => b.toString(16).padStart(2, '0')).join('');
}

async function allKeys(): Promise<string[]> {
  const listed = await env.FILES.list();
  return listed.objects.map((o) => o.key);
}

async function setLimits(patch: Record<string, number>): Promise<void> {
  await env.REGISTRY.get(env.REGISTRY.idFromName('registry')).updateSettings(patch);
  forgetCachedSettings();
}

beforeEach(async () => {
  // Every test starts with an empty bucket, so "nothing left behind" is measured from zero.
  const listed = await env.FILES.list();
  if (listed.objects.length > 0) await env.FILES.delete(listed.objects.map((o) => o.key));
});

const metadata = (body = 'hello'): FormPart => ({ name: 'metadata', data: JSON.stringify({ body }) });

describe('multipart uploads', () => {
  it('stages the file under an opaque key, hashes it, keeps the name as metadata, deletes it on release', async () => {
    const bytes = enc.encode('file contents \u0000 with bytes');
    const res = await post(
      multipart([metadata(), { name: 'file', filename: '../../etc/passwd', type: 'text/plain', data: bytes }]),
    );
    expect(res.status).toBe(200);
    const file = res.json.file as StagedFile;
    expect(file.filename).toBe('../../etc/passwd');
    expect(file.key).toMatch(/^tmp\/[A-Za-z0-9_-]{32}$/);
    expect(file.media_type).toBe('text/plain');
    expect(file.size).toBe(bytes.length);
    expect(file.sha256).toBe(await sha256(bytes));
    expect(res.json.stored).toBe('file contents \u0000 with bytes');
    expect(await allKeys()).toEqual([]);
    expect(await retention().leaseCount()).toBe(0);
  });

  it('accepts the file before the metadata, defaults the media type, and allows an empty file', async () => {
    const res = await post(multipart([{ name: 'file', filename: 'empty', data: '' }, metadata('')]));
    expect(res.status).toBe(200);
    expect(res.json.body).toEqual({ body: '' });
    expect(res.json.file.size).toBe(0);
    expect(res.json.file.media_type).toBe('application/octet-stream');
    expect(res.json.file.sha256).toBe(await sha256(new Uint8Array(0)));
  });

  it('answers text-only multipart without admission or staging', async () => {
    const res = await post(multipart([metadata('just text')]));
    expect(res.status).toBe(200);
    expect(res.json.file).toBeNull();
  });

  it('refuses a second file, and the first one is not kept', async () => {
    const res = await post(
      chunked(
        multipart([
          metadata(),
          { name: 'file', filename: 'a', data: 'aaa' },
          { name: 'file', filename: 'b', data: 'bbb' },
        ]),
        7,
      ),
    );
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'validation_failed', field: 'file' });
    expect(await allKeys()).toEqual([]);
    expect(await retention().leaseCount()).toBe(0);
  });

  it('refuses unknown parts, missing or invalid metadata, and malformed media types', async () => {
    expect((await post(multipart([metadata(), { name: 'other', data: 'x' }]))).json).toMatchObject({
      code: 'validation_failed',
      field: 'other',
    });
    expect((await post(multipart([{ name: 'file', filename: 'a', data: 'x' }]))).json).toMatchObject({
      code: 'validation_failed',
      field: 'metadata',
    });
    expect((await post(multipart([{ name: 'metadata', data: '{"body": 5}' }]))).json).toMatchObject({
      code: 'validation_failed',
      field: 'body',
    });
    expect((await post(multipart([{ name: 'metadata', data: '{"body":"\\ud800"}' }]))).json).toMatchObject({
      code: 'invalid_unicode',
    });
    expect(
      (await post(multipart([metadata(), { name: 'file', filename: 'a', type: 'text/<html>', data: 'x' }]))).json,
    ).toMatchObject({ code: 'validation_failed', field: 'file' });
    expect(await allKeys()).toEqual([]);
  });

  it('runs the metadata check before the file is staged', async () => {
    const res = await post(multipart([metadata('refuse-early'), { name: 'file', filename: 'a', data: 'x' }]));
    expect(res.json.code).toBe('text_too_long');
    expect(await allKeys()).toEqual([]);
  });

  it('stages files larger than one part as an R2 multipart upload', async () => {
    const bytes = new Uint8Array(PART_BYTES * 2 + 12_345);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31) & 0xff;
    const ctxApp = new Hono<AppEnv>();
    ctxApp.use(asAgent);
    ctxApp.post('/up', async (c) => {
      const upload = await readUploadRequest(c, z.object({ body: z.string() }));
      const object = await env.FILES.get(upload.file!.key);
      const stored = new Uint8Array(await object!.arrayBuffer());
      await upload.release();
      return c.json({ file: upload.file, storedHash: await sha256(stored) });
    });
    const ctx = createExecutionContext();
    const response = await ctxApp.fetch(
      new Request('https://x/up', {
        method: 'POST',
        body: chunked(multipart([metadata(), { name: 'file', filename: 'big.bin', data: bytes }]), 1_000_003),
        headers: { 'content-type': `multipart/form-data; boundary=${B}` },
      }),
      env,
      ctx,
    );
    const json: any = await response.json();
    await waitOnExecutionContext(ctx);
    expect(response.status).toBe(200);
    expect(json.file.size).toBe(bytes.length);
    expect(json.file.sha256).toBe(await sha256(bytes));
    expect(json.storedHash).toBe(json.file.sha256);
    expect(await allKeys()).toEqual([]);
  });
});

describe('size limit', () => {
  it('stops a chunked upload at the first byte over max_file_bytes and keeps nothing', async () => {
    await setLimits({ max_file_bytes: 1_000 });
    const res = await post(
      chunked(multipart([metadata(), { name: 'file', filename: 'x', data: new Uint8Array(5_000) }]), 300),
    );
    expect(res.status).toBe(413);
    expect(res.json).toMatchObject({ code: 'file_too_large', limit: 1_000, field: 'file' });
    expect(await allKeys()).toEqual([]);
    expect(await retention().leaseCount()).toBe(0);
  });

  it('refuses a multipart-staged upload over the limit and aborts it', async () => {
    await setLimits({ max_file_bytes: PART_BYTES + 10 });
    const res = await post(
      chunked(multipart([metadata(), { name: 'file', filename: 'x', data: new Uint8Array(PART_BYTES * 2) }]), 1 << 20),
    );
    expect(res.json).toMatchObject({ code: 'file_too_large', limit: PART_BYTES + 10 });
    expect(await allKeys()).toEqual([]);
  });

  it('accepts a file of exactly max_file_bytes', async () => {
    await setLimits({ max_file_bytes: 1_000 });
    const res = await post(multipart([metadata(), { name: 'file', filename: 'x', data: new Uint8Array(1_000) }]));
    expect(res.status).toBe(200);
    expect(res.json.file.size).toBe(1_000);
  });

  it('refuses at once when Content-Length alone proves the file too large', async () => {
    await setLimits({ max_file_bytes: 1_000 });
    const big = multipart([metadata(), { name: 'file', filename: 'x', data: new Uint8Array(2_000_000) }]);
    const res = await post(big);
    expect(res.json).toMatchObject({ code: 'file_too_large', limit: 1_000 });
    expect(await retention().leaseCount()).toBe(0);
  });

  it('deletes what was staged when the client goes away mid-upload', async () => {
    const body = multipart([metadata(), { name: 'file', filename: 'x', data: new Uint8Array(PART_BYTES + 100_000) }]);
    const res = await post(chunked(body, 1 << 20, PART_BYTES + 50_000));
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(await allKeys()).toEqual([]);
    expect(await retention().leaseCount()).toBe(0);
  });
});

describe('admission', () => {
  it('limits concurrent uploads and temporary bytes with upload_admission_denied and a retry hint', async () => {
    await setLimits({ max_concurrent_uploads: 1, max_upload_temp_bytes: 10_000, max_file_bytes: 5_000 });
    const held = await post(multipart([metadata(), { name: 'file', filename: 'a', data: 'aaa' }]), '?keep=1');
    expect(held.status).toBe(200);
    const refused = await post(multipart([metadata(), { name: 'file', filename: 'b', data: 'bbb' }]), '', {
      'x-agent': 'agt_b',
    });
    expect(refused.status).toBe(429);
    expect(refused.json).toMatchObject({ code: 'upload_admission_denied', limit: 1 });
    expect(refused.json.retryAfterMs).toBeGreaterThan(0);
    // Text-only messages never need admission.
    expect((await post(multipart([metadata('text')]))).status).toBe(200);

    await setLimits({ max_concurrent_uploads: 5 });
    // A chunked upload reserves max_file_bytes (5,000): 2 × 5,000 would pass 10,000 with the held one.
    const second = await post(chunked(multipart([metadata(), { name: 'file', filename: 'c', data: 'c' }])), '?keep=1', {
      'x-agent': 'agt_b',
    });
    expect(second.status).toBe(200);
    const third = await post(chunked(multipart([metadata(), { name: 'file', filename: 'd', data: 'd' }])), '', {
      'x-agent': 'agt_c',
    });
    expect(third.json).toMatchObject({ code: 'upload_admission_denied', limit: 10_000 });
  });

  it('sweeps the staged object of an upload whose request died (lease expiry)', async () => {
    // The request is gone: nobody renews the lease and nobody releases it.
    const lease = await retention().acquireUpload({
      agentId: 'agt_a',
      reserveBytes: 10,
      maxConcurrent: 5,
      maxTempBytes: 1_000,
    });
    await env.FILES.put(lease.key, 'orphan');
    // An unfinished multipart upload under the same key: the sweep aborts it too.
    const multipart = await env.FILES.createMultipartUpload(lease.key);
    await multipart.uploadPart(1, new Uint8Array(PART_BYTES));
    expect(await retention().noteMultipart(lease.leaseId, multipart.uploadId)).toBe(true);
    await retention().setClockOffset(lease.leaseMs - 1_000);
    await retention().runAlarmNow();
    expect(await allKeys()).toEqual([lease.key]);
    await retention().setClockOffset(lease.leaseMs + 1);
    await retention().runAlarmNow();
    expect(await allKeys()).toEqual([]);
    expect(await retention().leaseCount()).toBe(0);
    expect(await retention().renewUpload(lease.leaseId)).toBe(false);
    await expect(multipart.uploadPart(2, new Uint8Array(10))).rejects.toThrow();
  });

  it('sweeps stray staged objects that no lease owns', async () => {
    await post(multipart([metadata(), { name: 'file', filename: 'a', data: 'x' }]));
    await env.FILES.put('tmp/stray-from-a-lost-lease', 'bytes');
    await retention().setClockOffset(2 * 60 * 60_000);
    await retention().runAlarmNow();
    expect(await allKeys()).toEqual([]);
  });

  it('refuses attachments with cleanup_unavailable while deletions fail, and recovers', async () => {
    const gate = retention();
    await gate.setDeletionFailure('R2 is down');
    await post(multipart([metadata(), { name: 'file', filename: 'a', data: 'x' }]));
    let status = await gate.cleanupStatus();
    expect(status).toMatchObject({ state: 'running', pending_jobs: 1, failed_jobs: 0 });
    expect(status.last_error).toContain('R2 is down');
    // Each retry fails; after five attempts the job counts as failed and blocks new files.
    let offset = 0;
    for (let i = 0; i < 5; i++) {
      offset += 10 * 60_000;
      await gate.setClockOffset(offset);
      status = await gate.runAlarmNow();
    }
    expect(status).toMatchObject({ state: 'failed', pending_jobs: 1, failed_jobs: 1 });
    expect(await allKeys()).toHaveLength(1);
    const refused = await post(multipart([metadata(), { name: 'file', filename: 'b', data: 'y' }]));
    expect(refused.status).toBe(503);
    expect(refused.json).toMatchObject({ code: 'cleanup_unavailable' });
    expect((await post(multipart([metadata('text only')]))).status).toBe(200);

    await gate.setDeletionFailure(null);
    await gate.setClockOffset(offset + 10 * 60_000);
    status = await gate.runAlarmNow();
    expect(status).toMatchObject({ state: 'idle', pending_jobs: 0, failed_jobs: 0 });
    expect(await allKeys()).toEqual([]);
    expect((await post(multipart([metadata(), { name: 'file', filename: 'c', data: 'z' }]))).status).toBe(200);
  });
});

describe('fair share: one agent cannot take the admission from the others', () => {
  const eight = { reserveBytes: 100, maxConcurrent: 8, maxTempBytes: 1_000 };
  const none = { uploads: 0, bytes: 0 };

  it('gives each agent a quarter of the uploads and of the temporary bytes, its first upload always', () => {
    expect(uploadShare({ max_concurrent_uploads: 8, max_upload_temp_bytes: 1_000 })).toEqual({
      uploads: 2,
      bytes: 250,
    });
    for (const n of [1, 2, 3]) {
      expect(uploadShare({ max_concurrent_uploads: n, max_upload_temp_bytes: 1 }).uploads).toBe(1);
    }
    // Two in progress: a third of the same agent is refused although the server has room.
    expect(admissionRefusal(eight, { uploads: 2, bytes: 200 }, { uploads: 2, bytes: 200 })).toMatchObject({
      limit: 2,
    });
    // Another agent is admitted meanwhile.
    expect(admissionRefusal(eight, { uploads: 2, bytes: 200 }, none)).toBeNull();
    // An agent's first upload may reserve more than its byte share (any admissible file can be sent)…
    expect(admissionRefusal({ ...eight, reserveBytes: 600 }, none, none)).toBeNull();
    // …but its second must fit within the share together with the first.
    expect(
      admissionRefusal({ ...eight, reserveBytes: 100 }, { uploads: 1, bytes: 600 }, { uploads: 1, bytes: 600 }),
    ).toMatchObject({ limit: 250 });
    expect(
      admissionRefusal({ ...eight, reserveBytes: 100 }, { uploads: 1, bytes: 100 }, { uploads: 1, bytes: 100 }),
    ).toBeNull();
    // The global limits still hold for everyone.
    expect(admissionRefusal(eight, { uploads: 8, bytes: 800 }, none)).toMatchObject({ limit: 8 });
    expect(admissionRefusal({ ...eight, reserveBytes: 300 }, { uploads: 4, bytes: 800 }, none)).toMatchObject({
      limit: 1_000,
    });
  });

  it('holds leases per agent in the retention object, and a released lease frees the share', async () => {
    const gate = retention();
    const acquire = (agentId: string) =>
      gate.acquireUpload({ agentId, reserveBytes: 10, maxConcurrent: 8, maxTempBytes: 1_000_000 });
    // The refusal as a value: an RPC promise awaited by expect().rejects is also reported unhandled.
    const refusal = (agentId: string) =>
      acquire(agentId).then(
        () => 'admitted',
        (error: unknown) => String(error),
      );
    const first = await acquire('agt_hog');
    await acquire('agt_hog');
    expect(await refusal('agt_hog')).toMatch(/upload_admission_denied.*one agent may have 2/);
    // Six other agents still get in, up to the global limit.
    for (let i = 0; i < 6; i++) await acquire(`agt_other${i}`);
    expect(await refusal('agt_late')).toMatch(/upload_admission_denied.*max_concurrent_uploads/);
    await gate.releaseUpload(first.leaseId);
    await gate.releaseUpload((await acquire('agt_hog')).leaseId);
    expect(await gate.leaseCount()).toBe(7);
  });

  it('refuses an agent over its share over HTTP while another agent uploads', async () => {
    await setLimits({ max_concurrent_uploads: 8 });
    const file = (name: string) => multipart([metadata(), { name: 'file', filename: name, data: name }]);
    expect((await post(file('a1'), '?keep=1', { 'x-agent': 'agt_hog' })).status).toBe(200);
    expect((await post(file('a2'), '?keep=1', { 'x-agent': 'agt_hog' })).status).toBe(200);
    const refused = await post(file('a3'), '', { 'x-agent': 'agt_hog' });
    expect(refused.status).toBe(429);
    expect(refused.json).toMatchObject({ code: 'upload_admission_denied', limit: 2 });
    expect(refused.json.retryAfterMs).toBeGreaterThan(0);
    expect((await post(file('b'), '', { 'x-agent': 'agt_other' })).status).toBe(200);
    // The refused upload left nothing behind; the two held ones are still staged.
    expect(await retention().leaseCount()).toBe(2);
    expect(await allKeys()).toHaveLength(2);
  });
});

describe('stalled uploads', () => {
  /** The start of a body: metadata, then the file part's headers; the file's bytes follow. */
  const head = enc.encode(
    `--${B}\r\nContent-Disposition: form-data; name="metadata"\r\n\r\n{"body":"slow"}\r\n` +
      `--${B}\r\nContent-Disposition: form-data; name="file"; filename="slow.bin"\r\n\r\n`,
  );
  const tail = enc.encode(`\r\n--${B}--\r\n`);

  /** `head`, then `first`, then `piece` bytes every `everyMs` (forever, or `count` times then the end). */
  function slowBody(options: { first?: number; piece: number; everyMs: number; count?: number }) {
    let sent = -1;
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent === -1) {
          sent = 0;
          controller.enqueue(head);
          if (options.first) controller.enqueue(new Uint8Array(options.first).fill(0x61));
          return;
        }
        if (options.count !== undefined && sent === options.count) {
          controller.enqueue(tail);
          controller.close();
          return;
        }
        await scheduler.wait(options.everyMs);
        if (options.piece > 0) controller.enqueue(new Uint8Array(options.piece).fill(0x62));
        sent++;
      },
    });
  }

  it('judges each full window of waiting and never the last, open one', () => {
    const guard = new StallGuard(1_000, 1_000);
    expect(guard.record(400, 600)).toBe(true);
    expect(guard.remaining()).toBe(600);
    expect(guard.record(600, 400)).toBe(true); // 1,000 bytes in the first window
    expect(guard.remaining()).toBe(1_000);
    expect(guard.record(999, 0)).toBe(true); // still open
    expect(guard.record(1, 999)).toBe(false); // the second window closed 1 byte short
    expect(guard.refusal()).toMatchObject({ code: 'upload_stalled', details: { limit: 1_000 } });
  });

  it('cancels a trickling upload with upload_stalled and keeps nothing: no lease, no staged object', async () => {
    await setLimits({ upload_stall_seconds: 1 });
    // One byte every 100 ms: 10 bytes a second against the 1,000 required.
    const res = await post(slowBody({ piece: 1, everyMs: 100 }));
    expect(res.status).toBe(408);
    expect(res.json).toMatchObject({ code: 'upload_stalled', limit: 1_000 });
    expect(await retention().leaseCount()).toBe(0);
    expect(await allKeys()).toEqual([]);
  });

  it('cancels an upload that goes silent, also after an R2 multipart part was staged', async () => {
    await setLimits({ upload_stall_seconds: 1 });
    const res = await post(slowBody({ first: PART_BYTES + 1_000, piece: 0, everyMs: 60_000 }));
    expect(res.status).toBe(408);
    expect(res.json).toMatchObject({ code: 'upload_stalled' });
    expect(await retention().leaseCount()).toBe(0);
    expect(await allKeys()).toEqual([]);
  });

  it('holds the metadata part to the same rate, before any admission', async () => {
    await setLimits({ upload_stall_seconds: 1 });
    const partial = enc.encode(`--${B}\r\nContent-Disposition: form-data; name="metadata"\r\n\r\n{"bo`);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(partial);
      },
    });
    const res = await post(body);
    expect(res.status).toBe(408);
    expect(res.json).toMatchObject({ code: 'upload_stalled' });
    expect(await retention().leaseCount()).toBe(0);
  });

  it('lets a slow but steady upload through', async () => {
    await setLimits({ upload_stall_seconds: 1 });
    // 2,000 bytes every 200 ms: ten times the minimum rate, over several windows.
    const res = await post(slowBody({ piece: 2_000, everyMs: 200, count: 12 }));
    expect(res.status).toBe(200);
    expect(res.json.file.size).toBe(24_000);
    expect(await retention().leaseCount()).toBe(0);
  });
});
