/**
 * Installs the real clients of the client suite (test/clients) once per lockfile and platform,
 * outside the clone: `$SWITCHBOARD_CLIENTS_CACHE`, else `$XDG_CACHE_HOME/switchboard-clients`,
 * else `~/.cache/switchboard-clients`, in a folder named by the hash of package-lock.json. A fresh
 * clone, a second worktree or a CI run on a warm box finds them there and installs nothing; a
 * changed lockfile gets a folder of its own (older folders stay until removed by hand).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const dir = import.meta.dirname;

/** The folder whose node_modules holds the clients of this lockfile. */
export function installDir(env = process.env) {
  const root =
    env.SWITCHBOARD_CLIENTS_CACHE || join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'switchboard-clients');
  const hash = createHash('sha256')
    .update(readFileSync(join(dir, 'package-lock.json')))
    .digest('hex')
    .slice(0, 16);
  return join(root, `${process.platform}-${process.arch}-${hash}`);
}

export function install() {
  const target = installDir();
  // The folder appears only by the rename below, complete: its existence is the stamp.
  if (existsSync(join(target, 'node_modules'))) return false;
  mkdirSync(join(target, '..'), { recursive: true });
  const temp = mkdtempSync(`${target}.partial-`);
  try {
    for (const file of ['package.json', 'package-lock.json']) copyFileSync(join(dir, file), join(temp, file));
    // `npm install` from the lockfile, not `npm ci`: a dependency of pi lists platform packages that
    // were never published, which `npm ci` refuses as a lockfile out of sync; --no-save keeps the lock as is.
    execFileSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: temp,
      stdio: 'inherit',
    });
    try {
      renameSync(temp, target);
    } catch (error) {
      // Another run installed the same lockfile meanwhile: keep its folder.
      if (!existsSync(join(target, 'node_modules'))) throw error;
    }
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
  return true;
}

/** vitest globalSetup. */
export default function setup() {
  install();
}

if (process.argv[1] === import.meta.filename) install();
