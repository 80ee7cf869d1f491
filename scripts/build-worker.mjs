// Bundles the worker exactly as `wrangler deploy` would (dist/worker/index.js), then keeps its
// comments to Latin-1 (below); the self-host launcher runs this bundle in Miniflare, so
// self-hosting and Cloudflare run the same code.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { OFFLINE_ENV } from './offline-env.mjs';

execFileSync('npx', ['wrangler', 'deploy', '--dry-run', '--outdir', 'dist/worker'], {
  stdio: 'inherit',
  // Warnings and errors only: the binding table is noise on every `npm start`.
  env: { WRANGLER_LOG: 'warn', ...process.env, ...OFFLINE_ENV },
});

// V8 keeps a module's source text for as long as the module lives, one byte a character only if
// every character is Latin-1: a single dash or arrow beyond U+00FF anywhere doubles the 2.3 MB
// bundle to 4.7 MB in workerd's memory. esbuild already escapes such characters in strings and
// identifiers, but comments keep them (ours and our dependencies'). So each UTF-16 unit above
// U+00FF in a comment line becomes "?": the code is untouched, and every line and column stays
// where the source map says it is.
const BUNDLE = 'dist/worker/index.js';
/** One UTF-16 unit beyond Latin-1 (each half of a surrogate pair too, so lengths stay). */
const WIDE = /[\u0100-\uffff]/;
const WIDE_ALL = new RegExp(WIDE.source, 'g');
let left = 0;
const lines = readFileSync(BUNDLE, 'utf8')
  .split('\n')
  .map((line) => {
    if (!WIDE.test(line)) return line;
    const text = line.trimStart();
    // A line comment, or a line of a block comment (up to the comment's end, if it ends here).
    if (!(text.startsWith('//') || text.startsWith('*') || text.startsWith('/*'))) {
      left += 1;
      return line;
    }
    const end = text.startsWith('//') ? -1 : line.indexOf('*/');
    if (end === -1) return line.replace(WIDE_ALL, '?');
    if (WIDE.test(line.slice(end))) left += 1;
    return line.slice(0, end).replace(WIDE_ALL, '?') + line.slice(end);
  });
writeFileSync(BUNDLE, lines.join('\n'));
if (left > 0) {
  process.stderr.write(
    `build-worker: ${left} line(s) of ${BUNDLE} keep characters beyond Latin-1 outside comments, ` +
      'so workerd holds the whole bundle at two bytes a character.\n',
  );
}
