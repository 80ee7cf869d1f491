/**
 * The request of a send route, from JSON or from multipart/form-data (`metadata` part = the JSON
 * body, at most one `file` part). The multipart body is read under the JSON size cap and parsed
 * here so that the metadata gets the same strict UTF-8 and lone-surrogate checks as a JSON body.
 *
 * Attachments are the files issue: `attachmentOf` is the one place that turns a `file` part into a
 * staged attachment (streamed to temporary storage, hashed by the server); until then a file part
 * is refused with a clear error and nothing is stored.
 */

import type { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { ApiError } from '../../contract/errors.js';
import type { AttachmentRecord } from '../../domain/content.js';
import { parseJsonStrict, readBounded } from '../../lib/json-body.js';
import { maxJsonRequestBytes } from '../../lib/limits.js';
import { currentSettings } from '../../lib/settings-cache.js';
import type { AppEnv } from '../types.js';

export interface FormPart {
  name: string;
  filename: string | null;
  contentType: string | null;
  bytes: Uint8Array;
}

const encoder = new TextEncoder();
const latin1 = (bytes: Uint8Array) => String.fromCharCode(...bytes);

function indexOf(haystack: Uint8Array, needle: Uint8Array, from: number): number {
  outer: for (let i = from; i <= haystack.length - needle.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

function malformed(detail: string): ApiError {
  return new ApiError('validation_failed', `Malformed multipart body: ${detail}.`);
}

/** Splits a buffered multipart/form-data body (RFC 7578) into its parts, bytes untouched. */
export function parseMultipart(bytes: Uint8Array, contentType: string): FormPart[] {
  const boundary = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const name = boundary?.[1] ?? boundary?.[2];
  if (!name) throw malformed('no boundary');
  const delimiter = encoder.encode(`--${name}`);
  const parts: FormPart[] = [];
  let at = indexOf(bytes, delimiter, 0);
  if (at < 0) throw malformed('no opening boundary');
  for (;;) {
    at += delimiter.length;
    if (bytes[at] === 0x2d && bytes[at + 1] === 0x2d) return parts; // closing `--boundary--`
    if (bytes[at] !== 0x0d || bytes[at + 1] !== 0x0a) throw malformed('bad boundary line');
    const headerEnd = indexOf(bytes, encoder.encode('\r\n\r\n'), at + 2);
    if (headerEnd < 0) throw malformed('unterminated part headers');
    const headers = latin1(bytes.subarray(at + 2, headerEnd)).split('\r\n');
    const next = indexOf(bytes, encoder.encode(`\r\n--${name}`), headerEnd + 4);
    if (next < 0) throw malformed('no closing boundary');
    let partName: string | null = null;
    let filename: string | null = null;
    let partType: string | null = null;
    for (const line of headers) {
      const [key, ...rest] = line.split(':');
      const value = rest.join(':').trim();
      if (key?.trim().toLowerCase() === 'content-disposition') {
        partName = /;\s*name="([^"]*)"/i.exec(value)?.[1] ?? null;
        filename = /;\s*filename="([^"]*)"/i.exec(value)?.[1] ?? null;
      } else if (key?.trim().toLowerCase() === 'content-type') {
        partType = value;
      }
    }
    if (partName === null) throw malformed('a part has no name');
    parts.push({ name: partName, filename, contentType: partType, bytes: bytes.subarray(headerEnd + 4, next) });
    at = next + 2;
  }
}

/**
 * Turns the `file` part into a staged attachment. The files issue implements staging; until then
 * a message cannot carry a file, and saying so beats silently dropping the file.
 */
async function attachmentOf(_part: FormPart): Promise<AttachmentRecord> {
  throw new ApiError('validation_failed', 'File attachments are not available on this server yet; send text only.', {
    field: 'file',
  });
}

/**
 * The validated body of a send route and its attachment (null for text only). For JSON the route
 * has validated it already; for multipart the metadata part is checked here with `schema`.
 */
export async function readSendRequest<S extends z.ZodType>(
  c: Context<AppEnv>,
  schema: S,
  jsonBody: z.infer<S>,
): Promise<{ body: z.infer<S>; attachment: AttachmentRecord | null }> {
  const type = c.req.header('content-type') ?? '';
  if (!/^multipart\/form-data\s*(;|$)/i.test(type)) return { body: jsonBody, attachment: null };
  const { limits } = await currentSettings(c.env);
  const parts = parseMultipart(await readBounded(c.req.raw.body, maxJsonRequestBytes(limits)), type);
  const metadata = parts.filter((p) => p.name === 'metadata');
  const files = parts.filter((p) => p.name === 'file');
  const unknown = parts.find((p) => p.name !== 'metadata' && p.name !== 'file');
  if (unknown) throw new ApiError('validation_failed', `Unexpected part "${unknown.name}".`, { field: unknown.name });
  if (metadata.length !== 1) {
    throw new ApiError('validation_failed', 'Send exactly one "metadata" part with the JSON body.', {
      field: 'metadata',
    });
  }
  if (files.length > 1)
    throw new ApiError('validation_failed', 'A message carries at most one file.', { field: 'file' });
  const { value } = parseJsonStrict(metadata[0]!.bytes);
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.map(String).join('.') || undefined;
    throw new ApiError('validation_failed', `metadata: ${field ? `${field}: ` : ''}${issue?.message ?? 'invalid'}`, {
      field,
    });
  }
  return { body: parsed.data, attachment: files[0] ? await attachmentOf(files[0]) : null };
}
