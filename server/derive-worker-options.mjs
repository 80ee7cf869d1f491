// Build step (after build:worker): derives the worker's Miniflare options from wrangler.toml with
// wrangler's own reader and writes them to dist/worker/miniflare-options.json. The launcher loads
// that file, so wrangler.toml stays the single description of the bindings while wrangler (13 MB,
// ~1 s to import) stays a build-time tool and `switchboard serve` starts fast and offline.
import '../scripts/offline-env.mjs';
import { writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { unstable_getMiniflareWorkerOptions } from 'wrangler';

const root = resolve(import.meta.dirname, '..');
const { workerOptions } = unstable_getMiniflareWorkerOptions(resolve(root, 'wrangler.toml'));

/** Unset options and empty binding lists say nothing; the file keeps what wrangler.toml declares. */
function isEmpty(value) {
  if (value === undefined || value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

const options = Object.fromEntries(Object.entries(workerOptions).filter(([, value]) => !isEmpty(value)));
if (options.assets?.directory) {
  // Stored relative to the package root: the launcher resolves it wherever the package lives.
  options.assets.directory = relative(root, options.assets.directory);
}
writeFileSync(resolve(root, 'dist/worker/miniflare-options.json'), `${JSON.stringify(options, null, 2)}\n`);
