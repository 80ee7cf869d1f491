/**
 * Reads a send request made as multipart/form-data: a `metadata` part (the operation's JSON body,
 * decoded as strictly as a JSON request) and at most one `file` part, streamed to a staged R2
 * object while its size is enforced and its SHA-256 computed. The file is admitted by the
 * retention object first (concurrency, temporary bytes, the uploader's share of both, cleanup
 * health) under a lease that this request renews while it lives; the body must keep a minimum
 * rate (stall.ts), so a trickling client cannot hold its lease for long. Whatever goes wrong
 * (malformed body, second file, oversized file, stalled or vanished client, metadata invalid),
 * the staged object is deleted and the lease released before the error is answered, and if this
 * request dies outright the lease expires and the retention object sweeps it.
 */
import type { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { ApiError } from '../../core/contract/errors.js';
import type { StagedFile } from '../../core/domain/principals.js';
import { MIN_UPLOAD_BYTES_PER_SECOND, maxJsonRequestBytes } from '../../core/lib/limits.js';
import { currentSettings } from '../../core/lib/settings-cache.js';
import { retention } from '../../core/stubs.js';
import type { AppEnv } from '../handlers/types.js';
import { bodyReader } from '../lib/body-reader.js';
import { parseJsonStrict } from '../lib/json-body.js';
import { DEFAULT_MULTIPART_LIMITS, MultipartParser, multipartBoundary, type PartHeaders } from './multipart.js';
import { StagingWriter } from './staging.js';
import { readGuarded, StallGuard } from './stall.js';

/** The longest file name accepted (UTF-16 code units); it is metadata, never a path or a key. */
export const MAX_FILENAME_LENGTH = 1024;
const DEFAULT_MEDIA_TYPE = 'application/octet-stream';
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const MEDIA_TYPE = new RegExp(`^${TOKEN}/${TOKEN}(\\s*;\\s*${TOKEN}=(${TOKEN}|"([^"\\\\\\r\\n]|\\\\.)*"))*$`);

export interface UploadRequest<T> {
  body: T;
  file: StagedFile | null;
  /** Ends the upload: the staged object is deleted. Call once every copy is committed (or failed). */
  release(): Promise<void>;
}

export function isMultipart(c: Context<AppEnv>): boolean {
  return /^multipart\/form-data\s*(;|$)/i.test(c.req.header('content-type') ?? '');
}

/** The media type a file part declared, or the default; a malformed one is refused, never guessed. */
export function mediaTypeOf(declared: string | null): string {
  if (declared === null || declared === '') return DEFAULT_MEDIA_TYPE;
  if (declared.length > 255 || !MEDIA_TYPE.test(declared)) {
    throw new ApiError('validation_failed', 'The file part has a malformed Content-Type.', { field: 'file' });
  }
  return declared;
}

function filenameOf(headers: PartHeaders): string {
  const name = headers.filename ?? '';
  if (name.length > MAX_FILENAME_LENGTH) {
    throw new ApiError('validation_failed', `The file name is longer than ${MAX_FILENAME_LENGTH} characters.`, {
      field: 'file',
      limit: MAX_FILENAME_LENGTH,
    });
  }
  return name;
}

/** Upper bound of a valid body beyond the file: metadata, part headers, boundaries, preamble, epilogue. */
function envelopeBytes(maxMetadata: number): number {
  return maxMetadata + 2 * DEFAULT_MULTIPART_LIMITS.maxHeaderBytes + 2 * 16 * 1024 + 4 * 1024;
}

/** The lease of one admitted file: renewed on a timer while the request lives, released once. */
class Admission {
  private timer: ReturnType<typeof setInterval> | null = null;
  private released: Promise<void> | null = null;
  private settle: () => void = () => {};
  /** Resolves once the lease was released (or its release failed and the sweep takes over). */
  readonly settled = new Promise<void>((resolve) => {
    this.settle = resolve;
  });
  lost = false;

  constructor(
    private readonly env: AppEnv['Bindings'],
    readonly leaseId: string,
    readonly key: string,
    leaseMs: number,
  ) {
    this.timer = setInterval(
      () => {
        retention(env)
          .renewUpload(leaseId)
          .then((alive) => {
            if (!alive) this.lost = true;
          })
          .catch(() => {
            // A missed renewal is retried on the next tick; the lease outlives two of them.
          });
      },
      Math.floor(leaseMs / 3),
    );
  }

  release(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.released ??= retention(this.env)
      .releaseUpload(this.leaseId)
      .catch(() => {
        // The lease expires by itself and the retention object sweeps the staged object.
      })
      .finally(() => this.settle());
    return this.released;
  }
}

/**
 * Parses the multipart request. `checkMetadata` runs as soon as the metadata part is complete,
 * so a request with a bad body or bad targets fails before a large file is transferred when the
 * metadata comes first (as the CLI and MCP tools send it).
 */
export async function readUploadRequest<S extends z.ZodType>(
  c: Context<AppEnv>,
  schema: S,
  checkMetadata: (body: z.infer<S>) => void = () => {},
): Promise<UploadRequest<z.infer<S>>> {
  const boundary = multipartBoundary(c.req.header('content-type'));
  if (boundary === null) throw new ApiError('unsupported_media_type', 'Send multipart/form-data.');
  const uploader = c.get('agent')?.agent_id;
  if (uploader === undefined) throw new Error('readUploadRequest serves authenticated agents only');
  const { limits } = await currentSettings(c.env);
  const maxMetadata = maxJsonRequestBytes(limits);
  const maxFile = limits.max_file_bytes;
  const declared = Number(c.req.header('content-length') ?? Number.NaN);
  if (declared > maxFile + envelopeBytes(maxMetadata)) {
    throw new ApiError('file_too_large', `The file is larger than ${maxFile} bytes.`, {
      field: 'file',
      limit: maxFile,
    });
  }
  const reserveBytes = Number.isFinite(declared) && declared >= 0 ? Math.min(declared, maxFile) : maxFile;

  const parser = new MultipartParser(boundary);
  const stream = c.req.raw.body;
  if (!stream) throw new ApiError('validation_failed', 'The multipart body is empty.');
  // Read past the relay's stream into one reused buffer (lib/body-reader.ts): every event below
  // is handled (copied, or written on and awaited) before the next read.
  const reader = c.get('bodyRelay')?.direct() ?? bodyReader(stream);
  // The whole body, metadata included, is held to the minimum rate: a slow connection costs the
  // server a request either way, and from the file part on it also holds an admission slot.
  const guard = new StallGuard(
    limits.upload_stall_seconds * 1000,
    limits.upload_stall_seconds * MIN_UPLOAD_BYTES_PER_SECOND,
  );

  let current: 'metadata' | 'file' | null = null;
  let metadataChunks: Uint8Array[] | null = null;
  let metadataBytes = 0;
  let body: z.infer<S> | undefined;
  let sawMetadata = false;
  let admission: Admission | null = null;
  let writer: StagingWriter | null = null;
  let fileHeaders: { filename: string; media_type: string } | null = null;
  let file: StagedFile | null = null;

  const fail = async (error: unknown): Promise<never> => {
    await reader.cancel().catch(() => {});
    if (writer) await writer.abort();
    if (admission) await admission.release();
    throw error;
  };

  const finishMetadata = () => {
    const bytes = new Uint8Array(metadataBytes);
    let at = 0;
    for (const chunk of metadataChunks ?? []) {
      bytes.set(chunk, at);
      at += chunk.length;
    }
    const { value } = parseJsonStrict(bytes);
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.map(String).join('.') || 'metadata';
      throw new ApiError('validation_failed', `metadata: ${issue?.message ?? 'invalid'}`, { field });
    }
    body = parsed.data as z.infer<S>;
    checkMetadata(body);
  };

  const startFile = async (headers: PartHeaders) => {
    fileHeaders = { filename: filenameOf(headers), media_type: mediaTypeOf(headers.contentType) };
    const lease = await retention(c.env).acquireUpload({
      agentId: uploader,
      reserveBytes,
      maxConcurrent: limits.max_concurrent_uploads,
      maxTempBytes: limits.max_upload_temp_bytes,
    });
    admission = new Admission(c.env, lease.leaseId, lease.key, lease.leaseMs);
    const held = admission;
    // Should the runtime cancel this request mid-upload (client gone), the release may still finish.
    try {
      c.executionCtx.waitUntil(held.settled);
    } catch {
      // No execution context outside a request: nothing to extend.
    }
    writer = new StagingWriter(c.env.FILES, lease.key, maxFile, {
      onMultipartStarted: async (uploadId) => {
        if (!(await retention(c.env).noteMultipart(held.leaseId, uploadId))) {
          throw new ApiError('unavailable', 'The upload took too long and was cancelled; send it again.');
        }
      },
    });
  };

  try {
    for (;;) {
      const { done, value } = await readGuarded(reader, guard);
      if (done) break;
      for (const event of parser.push(value)) {
        if (event.type === 'part') {
          const { name } = event.headers;
          if (name === 'metadata') {
            if (sawMetadata)
              throw new ApiError('validation_failed', 'Send one "metadata" part.', { field: 'metadata' });
            sawMetadata = true;
            current = 'metadata';
            metadataChunks = [];
          } else if (name === 'file') {
            if (fileHeaders !== null) {
              throw new ApiError('validation_failed', 'A message carries at most one file.', { field: 'file' });
            }
            current = 'file';
            await startFile(event.headers);
          } else {
            throw new ApiError('validation_failed', `Unexpected part "${name}": send "metadata" and "file".`, {
              field: name,
            });
          }
        } else if (event.type === 'data') {
          if (current === 'metadata') {
            metadataBytes += event.bytes.length;
            if (metadataBytes > maxMetadata) {
              throw new ApiError('payload_too_large', `The metadata part is larger than ${maxMetadata} bytes.`, {
                field: 'metadata',
                limit: maxMetadata,
              });
            }
            metadataChunks!.push(event.bytes.slice());
          } else if (current === 'file') {
            if ((admission as Admission | null)?.lost) {
              throw new ApiError('unavailable', 'The upload took too long and was cancelled; send it again.');
            }
            await writer!.write(event.bytes);
          }
        } else if (event.type === 'end-part') {
          if (current === 'metadata') finishMetadata();
          else if (current === 'file') {
            const staged = await writer!.finish();
            file = { key: writer!.key, ...fileHeaders!, ...staged };
          }
          current = null;
        }
      }
    }
    parser.end();
    if (!sawMetadata || body === undefined) {
      throw new ApiError('validation_failed', 'Send a "metadata" part with the JSON body.', { field: 'metadata' });
    }
  } catch (error) {
    return fail(error);
  }
  const held = admission as Admission | null;
  return {
    body: body as z.infer<S>,
    file,
    release: () => (held ? held.release() : Promise.resolve()),
  };
}
