// Bundles the Node side (the `switchboard` CLI, the MCP server and the self-host launcher) into
// one ESM file; npm dependencies stay external and are loaded from node_modules.
import { build } from 'esbuild';

await build({
  entryPoints: ['cli/main.ts'],
  outfile: 'dist/node/switchboard.mjs',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  packages: 'external',
  sourcemap: true,
  banner: { js: '#!/usr/bin/env node' },
  logLevel: 'warning',
});
