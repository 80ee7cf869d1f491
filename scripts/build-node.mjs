// Bundles the Node side (the `switchboard` CLI, the MCP server and the self-host launcher) into
// ESM (dist/node/switchboard.mjs plus chunks); npm dependencies stay external and are loaded from
// node_modules. Code splitting keeps `serve` (Miniflare) and the MCP SDK out of the start-up path
// of ordinary commands, which agents run on every poll.
import { build } from 'esbuild';

await build({
  entryPoints: { switchboard: 'cli/main.ts' },
  outdir: 'dist/node',
  outExtension: { '.js': '.mjs' },
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  packages: 'external',
  sourcemap: true,
  banner: { js: '#!/usr/bin/env node' },
  logLevel: 'warning',
});
