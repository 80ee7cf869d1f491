/**
 * `switchboard backup` and `switchboard restore` (api-v1.md, "Running it as a service").
 *
 * A backup is a gzip'd tar of a snapshot of the data directory: `switchboard-backup.json` (the
 * format, the release that wrote it, and every file with its size and SHA-256), `key-pepper` and
 * `state/` (the Durable Objects' SQLite files and the R2 bucket: its metadata database and blobs).
 *
 * The snapshot is taken with workerd stopped, so no SQLite file is being written: by the running
 * launcher when a server runs on the directory (it holds new requests at the front, waits for the
 * running ones, stops workerd, snapshots, starts workerd again and lets the held requests through:
 * serve.ts), else by this command itself. Databases are copied; blobs, which workerd never changes
 * once written (it writes a temporary file and renames it, and deletes by unlinking), are
 * hard-linked, so the pause does not grow with the attachments. The archive is packed from the
 * snapshot afterwards, while the server serves again. Why this and not a copy of live files:
 * docs/operations.md.
 *
 * Restore extracts into a temporary folder next to the target, checks every file against the
 * manifest and renames the folder into place: a bad or truncated archive leaves nothing behind.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  createReadStream,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import * as tar from 'tar';
import { VERSION } from '../core/version.js';
import { type DataDirLayout, dataDirLayout, type LauncherInfo, PARTIAL_BLOB, PEPPER_PATTERN } from './data-dir.js';

/** A refusal with a message for the operator; nothing was changed. */
export class BackupError extends Error {}

const MANIFEST = 'switchboard-backup.json';
const FORMAT = 'switchboard-backup';
const FORMAT_VERSION = 1;
const SNAPSHOT_PREFIX = 'backup-';
/** How long the launcher waits for running requests before it gives up on a snapshot. */
export const HOLD_WAIT_MS = 30_000;

interface ManifestFile {
  path: string;
  size: number;
  sha256: string;
}

interface Manifest {
  format: typeof FORMAT;
  format_version: number;
  version: string;
  created_at: string;
  online: boolean;
  files: ManifestFile[];
}

function copyTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true, mode: 0o700 });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory()) copyTree(source, target);
    else if (entry.isFile() && !PARTIAL_BLOB.test(entry.name)) {
      if (basename(from) === 'blobs') {
        try {
          linkSync(source, target);
          continue;
        } catch {
          // Another file system or one without hard links: copy.
        }
      }
      copyFileSync(source, target);
    }
  }
}

/**
 * Copies the key pepper and `state/` into a fresh `run/backup-*` folder; the caller makes sure
 * nothing writes to `state/` meanwhile (workerd is stopped or was never started).
 */
export function snapshotDataDir(layout: DataDirLayout): string {
  const dir = join(layout.runDir, `${SNAPSHOT_PREFIX}${randomBytes(8).toString('hex')}`);
  mkdirSync(layout.runDir, { recursive: true, mode: 0o700 });
  mkdirSync(dir, { mode: 0o700 });
  try {
    copyFileSync(layout.pepperFile, join(dir, 'key-pepper'));
    copyTree(layout.state, join(dir, 'state'));
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return dir;
}

/** Removes snapshots a killed backup left (at start, when none can be in use). */
export function sweepSnapshots(layout: DataDirLayout): void {
  let names: string[];
  try {
    names = readdirSync(layout.runDir);
  } catch {
    return;
  }
  for (const name of names) {
    if (name.startsWith(SNAPSHOT_PREFIX)) rmSync(join(layout.runDir, name), { recursive: true, force: true });
  }
}

function filesBelow(root: string, dir = root): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesBelow(root, path));
    else out.push(relative(root, path).split(sep).join('/'));
  }
  return out.sort();
}

async function describe(root: string, path: string): Promise<ManifestFile> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(join(root, path))) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { path, size, sha256: hash.digest('hex') };
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Asks the launcher running on the directory for a snapshot; null when none runs. */
async function onlineSnapshot(layout: DataDirLayout): Promise<string | null> {
  let info: LauncherInfo;
  try {
    info = JSON.parse(readFileSync(layout.launcherFile, 'utf8')) as LauncherInfo;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new BackupError(`Cannot read ${layout.launcherFile}: ${(error as Error).message}`);
  }
  // A launcher killed outright leaves its file behind.
  if (!pidAlive(info.pid)) return null;
  if (!info.control_url || !info.control_secret) {
    throw new BackupError(
      `The server running on ${layout.root} (pid ${info.pid}) has no control socket (an older release): stop it to back up.`,
    );
  }
  let response: Response;
  try {
    response = await fetch(`${info.control_url}/snapshot`, {
      method: 'POST',
      headers: { authorization: `Bearer ${info.control_secret}` },
      signal: AbortSignal.timeout(HOLD_WAIT_MS + 120_000),
    });
  } catch (error) {
    throw new BackupError(
      `The server running on ${layout.root} (pid ${info.pid}) does not answer on its control socket: ${(error as Error).message}`,
    );
  }
  const body = (await response.json().catch(() => ({}))) as { dir?: string; message?: string };
  if (response.status !== 200 || typeof body.dir !== 'string') {
    throw new BackupError(`The server could not take a snapshot: ${body.message ?? `status ${response.status}`}.`);
  }
  const dir = resolve(body.dir);
  if (dirname(dir) !== resolve(layout.runDir) || !basename(dir).startsWith(SNAPSHOT_PREFIX)) {
    throw new BackupError(`The server answered an unexpected snapshot folder ${dir}.`);
  }
  return dir;
}

export interface BackupResult {
  backup: string;
  online: boolean;
  files: number;
  bytes: number;
}

export async function backup(dataDir: string, out: string): Promise<BackupResult> {
  const layout = dataDirLayout(resolve(dataDir));
  if (!existsSync(layout.pepperFile) || !existsSync(layout.state)) {
    throw new BackupError(`${dataDir} is not a Switchboard data directory (no key-pepper and state/).`);
  }
  const target = resolve(out);
  if (!existsSync(dirname(target))) throw new BackupError(`The folder of ${out} does not exist.`);
  if (existsSync(target) && statSync(target).isDirectory()) throw new BackupError(`${out} is a directory.`);

  const online = await onlineSnapshot(layout);
  const snapshot = online ?? snapshotDataDir(layout);
  const partial = `${target}.partial-${randomBytes(6).toString('hex')}`;
  try {
    const files: ManifestFile[] = [];
    for (const path of filesBelow(snapshot)) files.push(await describe(snapshot, path));
    const manifest: Manifest = {
      format: FORMAT,
      format_version: FORMAT_VERSION,
      version: VERSION,
      created_at: new Date().toISOString(),
      online: online !== null,
      files,
    };
    writeFileSync(join(snapshot, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
    await tar.create(
      { gzip: true, file: partial, cwd: snapshot, portable: true, mode: 0o600 } as tar.TarOptionsWithAliasesAsyncFile,
      [MANIFEST, ...files.map((f) => f.path)],
    );
    chmodSync(partial, 0o600);
    // Only a finished archive takes the name (and replaces an older backup of that name).
    renameSync(partial, target);
    return {
      backup: target,
      online: online !== null,
      files: files.length,
      bytes: files.reduce((sum, f) => sum + f.size, 0),
    };
  } finally {
    rmSync(partial, { force: true });
    rmSync(snapshot, { recursive: true, force: true });
  }
}

function allowedEntry(path: string): boolean {
  const clean = path.replace(/\/+$/, '');
  if (clean === '' || clean.startsWith('/') || clean.split('/').some((part) => part === '..' || part === ''))
    return false;
  return clean === MANIFEST || clean === 'key-pepper' || clean === 'state' || clean.startsWith('state/');
}

function readManifest(dir: string, from: string): Manifest {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8')) as Manifest;
  } catch {
    throw new BackupError(`${from} is not a Switchboard backup (no readable ${MANIFEST}).`);
  }
  if (manifest?.format !== FORMAT || !Array.isArray(manifest.files)) {
    throw new BackupError(`${from} is not a Switchboard backup (${MANIFEST} is not one).`);
  }
  if (manifest.format_version !== FORMAT_VERSION) {
    throw new BackupError(
      `${from} is a backup of format ${manifest.format_version}, which this release (${VERSION}) does not read.`,
    );
  }
  return manifest;
}

export interface RestoreResult {
  restored: string;
  files: number;
  backup_version: string;
  created_at: string;
}

export async function restore(from: string, dataDir: string): Promise<RestoreResult> {
  const target = resolve(dataDir);
  if (existsSync(target)) {
    if (!statSync(target).isDirectory() || readdirSync(target).length > 0) {
      throw new BackupError(`${dataDir} is not empty: restore fills an empty or new directory.`);
    }
  }
  if (!existsSync(from) || !statSync(from).isFile()) throw new BackupError(`${from} is not a file.`);
  mkdirSync(dirname(target), { recursive: true });
  const work = join(dirname(target), `.${basename(target)}.restore-${randomBytes(6).toString('hex')}`);
  mkdirSync(work, { mode: 0o700 });
  try {
    let unexpected: string | undefined;
    try {
      await tar.extract({
        file: from,
        cwd: work,
        strict: true,
        preserveOwner: false,
        filter: (path, entry) => {
          const type = 'type' in entry ? entry.type : 'File';
          if ((type !== 'File' && type !== 'Directory') || !allowedEntry(path)) {
            unexpected ??= path;
            return false;
          }
          return true;
        },
      });
    } catch (error) {
      throw new BackupError(`${from} is not a readable Switchboard backup: ${(error as Error).message}`);
    }
    if (unexpected !== undefined) throw new BackupError(`${from} holds an entry a backup never has: ${unexpected}`);
    const manifest = readManifest(work, from);
    const present = filesBelow(work).filter((path) => path !== MANIFEST);
    const listed = manifest.files.map((f) => f.path).sort();
    if (present.join('\n') !== listed.join('\n')) {
      const missing = listed.filter((p) => !present.includes(p));
      throw new BackupError(
        `${from} is incomplete or damaged: ${missing.length > 0 ? `missing ${missing[0]}` : 'it holds unlisted files'}.`,
      );
    }
    for (const file of manifest.files) {
      const actual = await describe(work, file.path);
      if (actual.size !== file.size || actual.sha256 !== file.sha256) {
        throw new BackupError(`${from} is damaged: ${file.path} does not match its checksum.`);
      }
    }
    const layout = dataDirLayout(work);
    if (!existsSync(layout.pepperFile) || !PEPPER_PATTERN.test(readFileSync(layout.pepperFile, 'utf8').trim())) {
      throw new BackupError(`${from} is not a Switchboard backup (no valid key-pepper).`);
    }
    mkdirSync(layout.state, { recursive: true, mode: 0o700 });
    chmodSync(layout.pepperFile, 0o600);
    rmSync(join(work, MANIFEST));
    mkdirSync(layout.runDir, { mode: 0o700 });
    if (existsSync(target)) rmdirSync(target);
    renameSync(work, target);
    return {
      restored: target,
      files: manifest.files.length,
      backup_version: manifest.version,
      created_at: manifest.created_at,
    };
  } catch (error) {
    rmSync(work, { recursive: true, force: true });
    throw error;
  }
}
