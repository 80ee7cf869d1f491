import { defineConfig } from 'vitest/config';

// Plain Node: the CLI and MCP generators, config and client pieces, without a server.
export default defineConfig({
  test: {
    include: ['test/node/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
  },
});
