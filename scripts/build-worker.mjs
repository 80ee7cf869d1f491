// Bundles the worker exactly as `wrangler deploy` would (dist/worker/index.js); the self-host
// launcher runs this bundle in Miniflare, so self-hosting and Cloudflare run the same code.
import { execFileSync } from 'node:child_process';
import { OFFLINE_ENV } from './offline-env.mjs';

execFileSync('npx', ['wrangler', 'deploy', '--dry-run', '--outdir', 'dist/worker'], {
  stdio: 'inherit',
  // Warnings and errors only: the binding table is noise on every `npm start`.
  env: { WRANGLER_LOG: 'warn', ...process.env, ...OFFLINE_ENV },
});
