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
import type { Limits } from '../../core/contract/models.js';
import type { StagedFile } from '../../core/domain/principals.js';
import { MIN_UPLOAD_BYTES_PER_SECOND, maxJsonRequestBytes } from '../../core/lib/limits.js';
import { currentSettings } from '../../core/lib/settings-cache.js';
import { retention } from '../../core/stubs.js';
import type { AppEnv } from '../handlers/types.js';
import { type Admission, admitUpload } from '../uploads/admission.js';
import { StagingWriter } from '../uploads/staging.js';
import { parseJsonStrict } from './json.js';
import {
  DEFAULT_MULTIPART_LIMITS,
  type MultipartEvent,
  MultipartParser,
  multipartBoundary,
  type PartHeaders,
} from './multipart.js';
import { bodyReader, joinChunks, type ReusingBodyReader } from './reader.js';
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

/** What the request's headers and the settings fix before a byte of the body is read. */
interface UploadPlan {
  boundary: string;
  uploader: string;
  limits: Limits;
  maxMetadata: number;
  /** What the admission reserves: the declared length, or the file limit when none is declared. */
  reserveBytes: number;
}

/** Refuses what the headers already show is wrong (no boundary, a declared length over the limits). */
async function planUpload(c: Context<AppEnv>): Promise<UploadPlan> {
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
  return { boundary, uploader, limits, maxMetadata, reserveBytes };
}

const leaseLost = () => new ApiError('unavailable', 'The upload took too long and was cancelled; send it again.');

/**
 * One multipart body as it is parsed: which part is open, the metadata gathered so far, the file's
 * admission and staging. Each parser event goes to one small step; `abort` undoes what was started.
 */
class UploadParse<S extends z.ZodType> {
  private current: 'metadata' | 'file' | null = null;
  private metadata: { chunks: Uint8Array[]; bytes: number } | null = null;
  private sawMetadata = false;
  body: z.infer<S> | undefined;
  admission: Admission | null = null;
  private writer: StagingWriter | null = null;
  private fileHeaders: { filename: string; media_type: string } | null = null;
  file: StagedFile | null = null;

  constructor(
    private readonly c: Context<AppEnv>,
    private readonly plan: UploadPlan,
    private readonly schema: S,
    private readonly checkMetadata: (body: z.infer<S>) => void,
    /** The parser's bytes are no view of a reused read buffer: the staging may keep them. */
    private readonly owned: boolean,
  ) {}

  async handle(event: MultipartEvent): Promise<void> {
    if (event.type === 'part') await this.openPart(event.headers);
    else if (event.type === 'data') await this.take(event.bytes);
    else if (event.type === 'end-part') await this.closePart();
  }

  /** The body is over: it must have carried the metadata. */
  finish(): z.infer<S> {
    if (!this.sawMetadata || this.body === undefined) {
      throw new ApiError('validation_failed', 'Send a "metadata" part with the JSON body.', { field: 'metadata' });
    }
    return this.body;
  }

  async abort(): Promise<void> {
    if (this.writer) await this.writer.abort();
    if (this.admission) await this.admission.release();
  }

  private async openPart(headers: PartHeaders): Promise<void> {
    const { name } = headers;
    if (name === 'metadata') {
      if (this.sawMetadata) throw new ApiError('validation_failed', 'Send one "metadata" part.', { field: 'metadata' });
      this.sawMetadata = true;
      this.current = 'metadata';
      this.metadata = { chunks: [], bytes: 0 };
    } else if (name === 'file') {
      if (this.fileHeaders !== null) {
        throw new ApiError('validation_failed', 'A message carries at most one file.', { field: 'file' });
      }
      this.current = 'file';
      await this.startFile(headers);
    } else {
      throw new ApiError('validation_failed', `Unexpected part "${name}": send "metadata" and "file".`, {
        field: name,
      });
    }
  }

  private async take(bytes: Uint8Array): Promise<void> {
    if (this.current === 'metadata') this.addMetadata(bytes);
    else if (this.current === 'file') {
      if (this.admission?.lost) throw leaseLost();
      await this.writer!.write(bytes, this.owned);
    }
  }

  private async closePart(): Promise<void> {
    if (this.current === 'metadata') this.finishMetadata();
    else if (this.current === 'file') {
      const staged = await this.writer!.finish();
      this.file = { key: this.writer!.key, ...this.fileHeaders!, ...staged };
    }
    this.current = null;
  }

  private addMetadata(bytes: Uint8Array): void {
    const metadata = this.metadata!;
    const max = this.plan.maxMetadata;
    metadata.bytes += bytes.length;
    if (metadata.bytes > max) {
      throw new ApiError('payload_too_large', `The metadata part is larger than ${max} bytes.`, {
        field: 'metadata',
        limit: max,
      });
    }
    // The parser's bytes alias the read buffer (reader.ts): kept as a copy.
    metadata.chunks.push(bytes.slice());
  }

  /** Parsed, validated and checked as soon as it is complete, before any file is transferred. */
  private finishMetadata(): void {
    const { chunks, bytes } = this.metadata!;
    const { value } = parseJsonStrict(joinChunks(chunks, bytes));
    const parsed = this.schema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.map(String).join('.') || 'metadata';
      throw new ApiError('validation_failed', `metadata: ${issue?.message ?? 'invalid'}`, { field });
    }
    this.body = parsed.data as z.infer<S>;
    this.checkMetadata(this.body);
  }

  /** Admits the file (or adopts the admission this request already holds) and opens its staging. */
  private async startFile(headers: PartHeaders): Promise<void> {
    const { c, plan } = this;
    this.fileHeaders = { filename: filenameOf(headers), media_type: mediaTypeOf(headers.contentType) };
    const held =
      c.get('inProcess')?.takeAdmission() ?? (await admitUpload(c, plan.uploader, plan.reserveBytes, plan.limits));
    this.admission = held;
    this.writer = new StagingWriter(c.env.FILES, held.key, plan.limits.max_file_bytes, {
      onMultipartStarted: async (uploadId) => {
        if (!(await retention(c.env).noteMultipart(held.leaseId, uploadId))) throw leaseLost();
      },
    });
  }
}

/** The body's reader: past the relay's stream, into one reused buffer (reader.ts). */
function uploadReader(c: Context<AppEnv>): ReusingBodyReader {
  const stream = c.req.raw.body;
  if (!stream) throw new ApiError('validation_failed', 'The multipart body is empty.');
  return c.get('bodyRelay')?.direct() ?? bodyReader(stream);
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
  const plan = await planUpload(c);
  const reader = uploadReader(c);
  const parser = new MultipartParser(plan.boundary);
  // A reader whose chunks are its caller's (the in-process send of a remote MCP call): the
  // parser's events are views of them, or copies of its own, and nothing writes them again.
  const upload = new UploadParse(c, plan, schema, checkMetadata, !reader.reusesBuffer);
  // The whole body, metadata included, is held to the minimum rate: a slow connection costs the
  // server a request either way, and from the file part on it also holds an admission slot.
  const guard = new StallGuard(
    plan.limits.upload_stall_seconds * 1000,
    plan.limits.upload_stall_seconds * MIN_UPLOAD_BYTES_PER_SECOND,
  );
  let body: z.infer<S>;
  try {
    // Every event is handled (copied, or written on and awaited) before the next read.
    for (let next = await readGuarded(reader, guard); !next.done; next = await readGuarded(reader, guard)) {
      for (const event of parser.push(next.value)) await upload.handle(event);
    }
    parser.end();
    body = upload.finish();
  } catch (error) {
    await reader.cancel().catch(() => {});
    await upload.abort();
    throw error;
  }
  const { admission } = upload;
  return {
    body,
    file: upload.file,
    release: () => (admission ? admission.release() : Promise.resolve()),
  };
}
