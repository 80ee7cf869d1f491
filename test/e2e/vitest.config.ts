import { defineConfig } from 'vitest/config';
import '../../scripts/offline-env.mjs';

// The real launcher in child processes: every test file starts its own server(s) on a free port
// with its own data directory, so files may run in parallel. Two at a time even on a 2-core box:
// most of a file's time is spent waiting on its servers and child processes, not on the CPU
// (vitest's default there would be one).
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.test.ts'],
    environment: 'node',
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    teardownTimeout: 30_000,
    // expect.poll waits on a real server and browser sharing two cores with another test file: its
    // default of 1 s gives up under that load on what a person would simply wait for (a reload).
    expect: { poll: { timeout: 10_000 } },
  },
});
