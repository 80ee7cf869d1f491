import { defineConfig } from 'vitest/config';
import '../../scripts/offline-env.mjs';

// The real agent clients (test/clients/package.json, installed by install.mjs once per lockfile)
// against one real server and one scripted model. Sessions that share no state run in parallel.
export default defineConfig({
  test: {
    include: ['test/clients/**/*.test.ts'],
    globalSetup: ['test/clients/install.mjs'],
    environment: 'node',
    pool: 'forks',
    maxConcurrency: 4,
    testTimeout: 240_000,
    hookTimeout: 240_000,
    teardownTimeout: 30_000,
  },
});
