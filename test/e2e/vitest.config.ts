import { defineConfig } from 'vitest/config';
import '../../scripts/offline-env.mjs';

// The real launcher in child processes: every test file starts its own server(s) on a free port
// with its own data directory, so files may run in parallel.
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.test.ts'],
    environment: 'node',
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    teardownTimeout: 30_000,
  },
});
