/**
 * Installs the real clients of the client suite (test/clients), once per lockfile: a
 * hash of package-lock.json next to node_modules says the install is current, so a cached
 * node_modules (CI cache, a second run) costs nothing.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = import.meta.dirname;
const stamp = join(dir, 'node_modules', '.lock-sha256');

export function install() {
  const hash = createHash('sha256')
    .update(readFileSync(join(dir, 'package-lock.json')))
    .digest('hex');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === hash) return false;
  // `npm install` from the lockfile, not `npm ci`: a dependency of pi lists platform packages that
  // were never published, which `npm ci` refuses as a lockfile out of sync; --no-save keeps the lock as is.
  execFileSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: dir,
    stdio: 'inherit',
  });
  writeFileSync(stamp, `${hash}\n`);
  return true;
}

/** vitest globalSetup. */
export default function setup() {
  install();
}

if (process.argv[1] === import.meta.filename) install();
