/**
 * The data directory:
 *   state/            Miniflare persistence: Durable Object SQLite files (do/), attachments (r2/)
 *   key-pepper        the secret key of every stored API key/session hash (mode 0600, made once)
 *   run/launcher.json {pid, public_url, internal_url, control_url, control_secret} of the running
 *                     launcher (control.ts)
 *   run/backup-*      a snapshot an online backup is packing (backup.ts)
 * Losing key-pepper invalidates every API key and session, so it is created exactly once and an
 * unreadable or damaged one stops the launcher instead of being replaced.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, type Dirent, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface DataDirLayout {
  root: string;
  state: string;
  pepperFile: string;
  runDir: string;
  launcherFile: string;
}

export function dataDirLayout(root: string): DataDirLayout {
  return {
    root,
    state: join(root, 'state'),
    pepperFile: join(root, 'key-pepper'),
    runDir: join(root, 'run'),
    launcherFile: join(root, 'run', 'launcher.json'),
  };
}

export function prepareDataDir(layout: DataDirLayout): void {
  mkdirSync(layout.root, { recursive: true, mode: 0o700 });
  mkdirSync(layout.state, { recursive: true, mode: 0o700 });
  mkdirSync(layout.runDir, { recursive: true, mode: 0o700 });
}

/** workerd writes a blob to `.kj-tmp.<random>.partial` and renames it when complete. */
export const PARTIAL_BLOB = /^\.kj-tmp\..*\.partial$/;

/**
 * Removes the partial blobs a killed workerd left in `state/r2` (an upload cut by SIGKILL): no
 * object names them, and nothing else would ever delete them. Run before Miniflare starts, so no
 * write is in progress. Returns how many went.
 */
export function sweepPartialBlobs(layout: DataDirLayout): number {
  let removed = 0;
  const visit = (dir: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.isFile() && PARTIAL_BLOB.test(entry.name)) {
        rmSync(path, { force: true });
        removed++;
      }
    }
  };
  visit(join(layout.state, 'r2'));
  return removed;
}

export const PEPPER_PATTERN = /^[A-Za-z0-9_-]{43,}$/;

/** Reads the key pepper, creating it on first start. */
export function loadOrCreatePepper(file: string): string {
  const fresh = randomBytes(32).toString('base64url');
  try {
    // `wx`: never overwrite; two launchers racing on a new data dir agree on one pepper.
    writeFileSync(file, `${fresh}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const pepper = readFileSync(file, 'utf8').trim();
  if (!PEPPER_PATTERN.test(pepper)) {
    throw new Error(`${file} is damaged. Restore it from a backup: without it no API key or session is valid.`);
  }
  // A copied or restored file may have lost its mode; the pepper is as sensitive as a password.
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  return pepper;
}

export function newFrontSecret(): string {
  return randomBytes(32).toString('base64url');
}

export interface LauncherInfo {
  pid: number;
  public_url: string;
  internal_url: string;
  /** The control socket (control.ts) and its per-boot secret. */
  control_url?: string;
  control_secret?: string;
}

export function writeLauncherInfo(layout: DataDirLayout, info: LauncherInfo): void {
  writeFileSync(layout.launcherFile, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
}

export function removeLauncherInfo(layout: DataDirLayout): void {
  rmSync(layout.launcherFile, { force: true });
}
