/**
 * Local files at the edge of the client: a path given to `--file`/`file_path` is read here and
 * uploaded as bytes (the server never sees the path); a download is written to the explicit
 * destination through a temp file, so a failed transfer never leaves a half-written file there.
 * How a path is opened is a `FileAccess`: the CLI trusts the path a human typed (`userFiles`);
 * the MCP server confines it to the directories its user allowed (`mcp/file-access.ts`).
 */
import { createHash, randomBytes } from 'node:crypto';
import { openAsBlob, renameSync, statSync, unlinkSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { basename, dirname, extname, resolve } from 'node:path';
import { DownloadResult, filenameFromDisposition } from './download-result.js';
import { describeFsError, fileError, LocalError } from './errors.js';

// Kept importable from here; they live in a file without `node:` imports so that the worker's
// remote MCP server (mcp/remote.ts) can share them.
export { DownloadResult, filenameFromDisposition };

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

/**
 * How each surface names the file inputs in its messages: the CLI's flags, or the MCP tool
 * fields (mcp/file-access.ts), so an agent is never told about a flag it cannot pass.
 */
export interface FileInputNames {
  file: string;
  out: string;
  overwrite: string;
}
export const CLI_FILE_NAMES: FileInputNames = { file: '--file', out: '--out', overwrite: '--force' };

export interface LocalUpload {
  blob: Blob;
  filename: string;
}

/** Opens a local file for upload; a missing or unreadable file is a local error, sent nowhere. */
export async function openUpload(path: string, names: FileInputNames = CLI_FILE_NAMES): Promise<LocalUpload> {
  let isFile = false;
  try {
    isFile = statSync(path).isFile();
  } catch (error) {
    throw fileError(`cannot read ${names.file} ${describeFsError(error, path)}`);
  }
  if (!isFile) throw fileError(`cannot read ${names.file} ${path}: not a regular file`);
  try {
    // A lazily read Blob: the file is streamed into the request, not loaded into memory first.
    const blob = await openAsBlob(path, { type: mediaTypeFor(path) });
    return { blob, filename: basename(path) };
  } catch (error) {
    throw fileError(`cannot read ${names.file} ${describeFsError(error, path)}`);
  }
}

/** Checked before the request is sent, so a bad destination costs no transfer. */
export function checkDestination(outPath: string, overwrite: boolean, names: FileInputNames = CLI_FILE_NAMES): string {
  const absolute = resolve(outPath);
  let directory: ReturnType<typeof statSync> | undefined;
  try {
    directory = statSync(dirname(absolute));
  } catch (error) {
    throw fileError(`cannot write ${names.out} ${describeFsError(error, dirname(absolute))}`);
  }
  if (!directory.isDirectory()) throw fileError(`cannot write ${names.out} ${dirname(absolute)}: not a directory`);
  let existing: ReturnType<typeof statSync> | undefined;
  try {
    existing = statSync(absolute);
  } catch {
    existing = undefined;
  }
  if (existing?.isDirectory()) throw fileError(`cannot write ${names.out} ${absolute}: is a directory`);
  if (existing && !overwrite) throw fileError(`${absolute} already exists (use ${names.overwrite} to replace it)`);
  return absolute;
}

/** Creates the temp file exclusively ('wx' never follows a symlink planted at its name). */
function createTemp(temp: string): Promise<FileHandle> {
  return open(temp, 'wx');
}

/**
 * The local file operations of one call. Every method may throw a LocalError, which reaches the
 * caller unchanged (an MCP tool error with its code, or a CLI exit code).
 */
export interface FileAccess {
  /** Opens a local file for upload; nothing is sent when it throws. */
  openUpload(path: string): Promise<LocalUpload>;
  /** Checks a download destination before the request is sent; returns the path to write. */
  checkDestination(outPath: string, overwrite: boolean): string;
  /** Creates and opens the download's temp file next to the destination. */
  createTemp(temp: string): Promise<FileHandle>;
  /** The last check, all bytes written, before the temp file takes the destination's name. */
  beforeRename?(temp: string, handle: FileHandle, target: string, overwrite: boolean): Promise<void>;
}

/** The CLI's access: a human typed the path, so it is used as given (like `cp`). */
export const userFiles: FileAccess = {
  openUpload: (path) => openUpload(path),
  checkDestination: (outPath, overwrite) => checkDestination(outPath, overwrite),
  createTemp,
};

export async function saveDownload(
  response: Response,
  outPath: string,
  overwrite: boolean,
  access: FileAccess = userFiles,
): Promise<DownloadResult> {
  const target = access.checkDestination(outPath, overwrite);
  const temp = `${target}.${randomBytes(6).toString('hex')}.part`;
  const hash = createHash('sha256');
  let size = 0;
  let handle: FileHandle | undefined;
  let created = false;
  try {
    if (!response.body) throw new Error('the answer has no body');
    handle = await access.createTemp(temp);
    created = true;
    // Written through the handle itself (not a path), so the checks of `access` hold for these bytes.
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      hash.update(chunk);
      size += chunk.length;
      for (let offset = 0; offset < chunk.length; ) {
        offset += (await handle.write(chunk, offset, chunk.length - offset)).bytesWritten;
      }
    }
    const declared = response.headers.get('content-length');
    if (declared !== null && Number(declared) !== size) {
      throw new Error(`the transfer ended after ${size} of ${declared} bytes`);
    }
    await access.beforeRename?.(temp, handle, target, overwrite);
    await handle.close();
    handle = undefined;
    renameSync(temp, target);
  } catch (error) {
    await handle?.close().catch(() => undefined);
    // Only a temp file this call created is removed: an EEXIST from createTemp is someone else's.
    if (created) {
      try {
        unlinkSync(temp);
      } catch {
        // Already gone.
      }
    }
    if (error instanceof LocalError) throw error;
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
