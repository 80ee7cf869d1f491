import { mkdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { cloudflareTest } from '@cloudflare/vitest-pool-workers';
import { defineConfig } from 'vitest/config';
import '../../scripts/offline-env.mjs';

// The real wrangler.toml, so tests run against the deployed bindings. Its [assets] directory
// must exist even when the console has not been built.
mkdirSync('dist/admin', { recursive: true });

export default defineConfig({
  plugins: [
    {
      // drizzle-kit migrations import their .sql files as text (wrangler's Text rule).
      name: 'sql-as-text',
      transform(code, id) {
        if (id.endsWith('.sql')) return { code: `export default ${JSON.stringify(code)};`, map: null };
        return undefined;
      },
    },
    cloudflareTest({
      main: './test/workers/test-worker.ts',
      wrangler: { configPath: './wrangler.toml' },
      miniflare: {
        bindings: {
          KEY_PEPPER: 'test-pepper-0123456789abcdef',
          SETUP_TOKEN: 'cloudflare-setup-token-42',
        },
      },
    }),
  ],
  test: {
    include: ['test/workers/**/*.test.ts'],
    setupFiles: ['test/workers/setup.ts'],
    testTimeout: 30_000,
    // Two files at a time even on two cores (vitest's default there is one): most of a file's
    // time is its per-test reset of storage, which leaves the other core idle (396 s -> 300 s).
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
