/**
 * The request of a send route, from JSON or from multipart/form-data (`metadata` part = the JSON
 * body, at most one `file` part). Multipart requests go through the streaming upload reader
 * (worker/body/upload.ts): the metadata gets the same strict UTF-8 and lone-surrogate checks as
 * a JSON body, and the file is staged in R2 under an opaque key while its size is enforced and its
 * SHA-256 computed. The caller must `release()` once the messages are committed (or failed), which
 * deletes the staged object; each message has its own copy by then.
 */
import type { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { StagedFile } from '../../../core/domain/principals.js';
import { isMultipart, readUploadRequest } from '../../body/index.js';
import type { AppEnv } from '../types.js';

export interface SendRequest<T> {
  body: T;
  /** The staged upload, or null for a text-only message. */
  file: StagedFile | null;
  release(): Promise<void>;
}

/**
 * The validated body of a send route and its staged file. For JSON the route has validated the
 * body already; for multipart the metadata part is checked here with `schema`, then with
 * `checkMetadata` before any file byte is staged (when the metadata part comes first).
 */
export async function readSendRequest<S extends z.ZodType>(
  c: Context<AppEnv>,
  schema: S,
  jsonBody: z.infer<S>,
  checkMetadata?: (body: z.infer<S>) => void,
): Promise<SendRequest<z.infer<S>>> {
  if (!isMultipart(c)) return { body: jsonBody, file: null, release: async () => {} };
  return readUploadRequest(c, schema, checkMetadata);
}
