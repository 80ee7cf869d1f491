import { defineConfig } from 'vitest/config';
import { consoleRoutes } from '../../admin-ui/console-routes.js';

// The console's logic (pure modules of admin-ui/src/lib and friends) and its translations, in
// Node. The console itself is exercised in real Chromium by test/e2e/browser*.test.ts.
export default defineConfig({
  // admin-ui/src/api.ts imports the routes the console build derives from the registry.
  plugins: [consoleRoutes()],
  test: {
    include: ['test/ui/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    // The translation test runs lit-localize's extractor (a TypeScript program) before its checks.
    hookTimeout: 120_000,
  },
});
