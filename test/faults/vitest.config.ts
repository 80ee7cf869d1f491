import { defineConfig } from 'vitest/config';
import '../../scripts/offline-env.mjs';

// The fault run against the real launcher (build first). `npm test` runs the bounded form;
// `npm run test:faults` runs it with `--mode full` (more rounds), and FAULT_ROUNDS,
// FAULT_ROUND_MS, FAULT_AGENTS and FAULT_SEED override either.
export default defineConfig(({ mode }) => ({
  test: {
    include: ['test/faults/**/*.test.ts'],
    environment: 'node',
    pool: 'forks',
    testTimeout: 1_800_000,
    hookTimeout: 60_000,
    env: { FAULT_MODE: mode === 'full' ? 'full' : 'bounded' },
  },
}));
