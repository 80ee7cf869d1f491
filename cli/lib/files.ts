/**
 * Local files at the edge of the client: a path given to `--file`/`file_path` is read here and
 * uploaded as bytes (the server never sees the path); a download is written to the explicit
 * destination through a temp file, so a failed transfer never leaves a half-written file there.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, openAsBlob, renameSync, statSync, unlinkSync } from 'node:fs';
import { basename, dirname, extname, resolve } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { z } from '@hono/zod-openapi';
import { describeFsError, fileError } from './errors.js';

/**
 * What a download prints (and the MCP download tool returns) next to the operation's path
 * parameters (e.g. `file_id`): where the bytes went and what they were.
 */
export const DownloadResult = z.object({
  path: z.string().describe('Absolute path the bytes were written to.'),
  size: z.number().int().nonnegative(),
  media_type: z.string(),
  filename: z.string().nullable().describe("The sender's file name, from Content-Disposition."),
  sha256: z.string().describe('SHA-256 of the bytes written, computed locally.'),
});
export type DownloadResult = z.infer<typeof DownloadResult>;

// The server stores what the client declares; a small table keeps common files readable in the
// console without guessing from content.
const MEDIA_TYPES: Record<string, string> = {
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.csv': 'text/csv',
  '.json': 'application/json',
  '.html': 'text/html',
  '.xml': 'application/xml',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.svg': 'image/svg+xml',
  '.zip': 'application/zip',
  '.gz': 'application/gzip',
  '.tar': 'application/x-tar',
};

export function mediaTypeFor(path: string): string {
  return MEDIA_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
}

export interface LocalUpload {
  blob: Blob;
  filename: string;
}

/** Opens a local file for upload; a missing or unreadable file is a local error, sent nowhere. */
export async function openUpload(path: string): Promise<LocalUpload> {
  let isFile = false;
  try {
    isFile = statSync(path).isFile();
  } catch (error) {
    throw fileError(`cannot read --file ${describeFsError(error, path)}`);
  }
  if (!isFile) throw fileError(`cannot read --file ${path}: not a regular file`);
  try {
    // A lazily read Blob: the file is streamed into the request, not loaded into memory first.
    const blob = await openAsBlob(path, { type: mediaTypeFor(path) });
    return { blob, filename: basename(path) };
  } catch (error) {
    throw fileError(`cannot read --file ${describeFsError(error, path)}`);
  }
}

/** Checked before the request is sent, so a bad destination costs no transfer. */
export function checkDestination(outPath: string, overwrite: boolean): string {
  const absolute = resolve(outPath);
  let directory: ReturnType<typeof statSync> | undefined;
  try {
    directory = statSync(dirname(absolute));
  } catch (error) {
    throw fileError(`cannot write --out ${describeFsError(error, dirname(absolute))}`);
  }
  if (!directory.isDirectory()) throw fileError(`cannot write --out ${dirname(absolute)}: not a directory`);
  let existing: ReturnType<typeof statSync> | undefined;
  try {
    existing = statSync(absolute);
  } catch {
    existing = undefined;
  }
  if (existing?.isDirectory()) throw fileError(`cannot write --out ${absolute}: is a directory`);
  if (existing && !overwrite) throw fileError(`${absolute} already exists (use --force / overwrite to replace it)`);
  return absolute;
}

/** RFC 6266: `filename*=UTF-8''…` wins over the plain `filename="…"`. */
export function filenameFromDisposition(header: string | null): string | null {
  if (!header) return null;
  const extended = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(header);
  if (extended?.[2]) {
    try {
      return decodeURIComponent(extended[2].trim());
    } catch {
      // A malformed encoding falls back to the plain parameter.
    }
  }
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]+))/i.exec(header);
  if (plain) return (plain[1] ?? plain[2] ?? '').replace(/\\(.)/g, '$1').trim() || null;
  return null;
}

export async function saveDownload(response: Response, outPath: string, overwrite: boolean): Promise<DownloadResult> {
  const target = checkDestination(outPath, overwrite);
  const temp = `${target}.${randomBytes(6).toString('hex')}.part`;
  const hash = createHash('sha256');
  let size = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  try {
    if (!response.body) throw new Error('the answer has no body');
    await pipeline(Readable.fromWeb(response.body as never), counter, createWriteStream(temp, { flags: 'wx' }));
    const declared = response.headers.get('content-length');
    if (declared !== null && Number(declared) !== size) {
      throw new Error(`the transfer ended after ${size} of ${declared} bytes`);
    }
    renameSync(temp, target);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // Nothing was written yet.
    }
    throw fileError(`download to ${target} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  return {
    path: target,
    size,
    media_type: response.headers.get('content-type') ?? 'application/octet-stream',
    filename: filenameFromDisposition(response.headers.get('content-disposition')),
    sha256: hash.digest('hex'),
  };
}
