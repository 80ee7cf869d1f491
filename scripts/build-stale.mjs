// `npm start` runs this before the launcher: it rebuilds only the parts of dist/ whose sources
// changed since they were built, so a start on a built tree (what `npm install` leaves, since
// `prepare` builds) launches at once instead of spending 17-27 s rebuilding everything.
//
// A part is stale when one of its outputs is missing or any of its inputs (source trees, the
// build script, the installed dependencies) has a modification time later than its oldest output.
// Modification times, not content hashes: `git checkout`/`pull` and editors write the files they
// change, so their times move forward, and no stamp file has to be kept in step with
// `npm run build`. The input sets are deliberately broad (a whole tree rather than the exact
// import graph): an unneeded rebuild costs seconds, a missed one serves old code.
//
// Usage: node scripts/build-stale.mjs [--check]   (--check prints what is stale, builds nothing;
// exit status 1 when something is)
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import './offline-env.mjs';

const ROOT = resolve(import.meta.dirname, '..');
/** Never inputs: build outputs and caches that live inside source trees. */
const SKIP = new Set(['node_modules', 'generated', '.wrangler', 'dist']);
/** Every part depends on the installed packages: npm rewrites this file on each install. */
const SHARED = ['package-lock.json', 'node_modules/.package-lock.json', 'tsconfig.json', 'scripts/offline-env.mjs'];

export const PARTS = [
  {
    name: 'ui',
    script: 'build:ui',
    inputs: ['admin-ui', 'core/contract', 'scripts/build-ui.mjs'],
    outputs: ['dist/admin/index.html'],
  },
  {
    name: 'worker',
    script: 'build:worker',
    inputs: [
      'core',
      'worker',
      'durable-objects',
      'migrations',
      'types',
      'wrangler.toml',
      'scripts/build-worker.mjs',
      'server/derive-worker-options.mjs',
    ],
    outputs: ['dist/worker/index.js', 'dist/worker/miniflare-options.json'],
  },
  {
    name: 'node',
    script: 'build:node',
    inputs: ['cli', 'client', 'server', 'mcp', 'core', 'worker', 'durable-objects', 'types', 'scripts/build-node.mjs'],
    outputs: ['dist/node/switchboard.mjs'],
  },
];

/** The newest modification time under `path` (a file or a tree), and which file has it. */
function newest(path) {
  let best = { mtimeMs: 0, file: '' };
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return best; // An optional input that does not exist (e.g. no node_modules yet).
  }
  if (!stat.isDirectory()) return { mtimeMs: stat.mtimeMs, file: path };
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const found = newest(join(path, entry.name));
    if (found.mtimeMs > best.mtimeMs) best = found;
  }
  return best;
}

/** Why `part` must be rebuilt, or null when its outputs are up to date. */
export function staleness(part, root = ROOT) {
  let oldestOutput = Number.POSITIVE_INFINITY;
  for (const output of part.outputs) {
    try {
      oldestOutput = Math.min(oldestOutput, statSync(join(root, output)).mtimeMs);
    } catch {
      return `${output} is missing`;
    }
  }
  for (const input of [...part.inputs, ...SHARED]) {
    const found = newest(join(root, input));
    if (found.mtimeMs > oldestOutput) return `${relative(root, found.file)} changed`;
  }
  return null;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const part of PARTS) {
    const reason = staleness(part);
    if (!reason) continue;
    stale++;
    process.stderr.write(`switchboard: ${check ? 'stale' : 'rebuilding'} ${part.name} (${reason})\n`);
    if (!check) {
      execFileSync('npm', ['run', '--silent', part.script], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
    }
  }
  if (check && stale > 0) process.exitCode = 1;
}
