// Build step (after build:worker): derives the worker's Miniflare options from wrangler.toml with
// wrangler's own reader and writes them to dist/worker/miniflare-options.json. The launcher loads
// that file, so wrangler.toml stays the single description of the bindings while wrangler (13 MB,
// ~1 s to import) stays a build-time tool and `switchboard serve` starts fast and offline.
import '../scripts/offline-env.mjs';
import { readFileSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { init, parse } from 'es-module-lexer';
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
// The bundle's modules, listed once here. Given `modules: true` and a script path, Miniflare finds
// them itself by parsing the whole 2 MB bundle with acorn on every start: about a second of the
// launcher's CPU on a slow machine, half of its start-up. es-module-lexer reads the static imports
// in milliseconds, at build time. Only the bundle and the SQL migrations it imports as text are
// expected; anything else fails the build rather than start a worker without its module.
await init;
const [imports] = parse(readFileSync(resolve(root, 'dist/worker/index.js'), 'utf8'));
const modules = [{ type: 'ESModule', path: 'index.js' }];
for (const { n: name } of imports) {
  if (!name || name.startsWith('cloudflare:') || name.startsWith('node:')) continue;
  if (!name.startsWith('./') || !name.endsWith('.sql')) {
    throw new Error(`dist/worker/index.js imports ${name}: add its module type to server/derive-worker-options.mjs`);
  }
  modules.push({ type: 'Text', path: name.slice(2) });
}
options.modules = modules;

writeFileSync(resolve(root, 'dist/worker/miniflare-options.json'), `${JSON.stringify(options, null, 2)}\n`);
