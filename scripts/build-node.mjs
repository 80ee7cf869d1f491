// Bundles the Node side (the `switchboard` CLI, the MCP server and the self-host launcher) into
// ESM (dist/node/switchboard.mjs plus chunks). Code splitting keeps `serve` (Miniflare) and the
// MCP SDK out of the start-up path of ordinary commands, which agents run on every poll.
// npm dependencies are bundled too: resolving and evaluating zod, hono and commander as hundreds
// of separate node_modules files cost about 0.15 s of CPU per command (npm run bench:cli), and one
// bundle also gives the MCP SDK and the registry the same zod. Miniflare stays external: it
// loads workerd and its own files from its package directory.
//
// `switchboard mcp` answers `initialize` and `tools/list` before it loads the SDK and the registry
// (mcp/stdio.ts): those answers are recorded here by asking the full server itself (mcp/listing.ts,
// bundled on its own into a temporary file and run), and built into the bundle as
// __SWITCHBOARD_MCP_LISTING__. A cold `switchboard inbox` (cli/quick-inbox.ts) gets the registry's
// method, path and role of that operation the same way, as __SWITCHBOARD_QUICK_INBOX__.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

// Chunk names carry content hashes: clear the old ones so dist/node holds exactly one build.
rmSync('dist/node', { recursive: true, force: true });

const shared = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  external: ['miniflare'],
  // V8 compiles every byte of an ES module before it runs, so a smaller bundle starts sooner:
  // minified (names kept, and source maps for stack traces), and without zod's ~50 message
  // locales, of which only English (which zod installs itself) is ever used.
  minify: true,
  keepNames: true,
  plugins: [
    {
      name: 'zod-english-only',
      setup(build) {
        build.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
          args.importer.includes(`${sep}zod${sep}`)
            ? { path: 'zod-locales', namespace: 'zod-english-only' }
            : undefined,
        );
        build.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, () => ({
          contents: "export { default as en } from 'zod/v4/locales/en.js';",
          resolveDir: process.cwd(),
        }));
      },
    },
  ],
  sourcemap: true,
  // Bundled CommonJS (commander, ajv) calls require() for Node built-ins.
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __sbCreateRequire } from 'node:module';\nconst require = __sbCreateRequire(import.meta.url);",
  },
  logLevel: 'warning',
};

const recorderDir = mkdtempSync(join(tmpdir(), 'switchboard-mcp-listing-'));
let listing;
let quickInbox;
try {
  const recorder = join(recorderDir, 'record.mjs');
  const { outputFiles } = await build({
    ...shared,
    stdin: {
      contents:
        "export { recordListing } from './mcp/listing.ts'; export { operations } from './core/contract/index.ts';",
      resolveDir: process.cwd(),
      loader: 'ts',
    },
    outfile: recorder,
    write: false,
    sourcemap: false,
  });
  writeFileSync(recorder, outputFiles[0].contents);
  const recorded = await import(pathToFileURL(recorder).href);
  listing = await recorded.recordListing();
  const { id, method, path, role } = recorded.operations.getInbox;
  quickInbox = { id, method, path, role };
} finally {
  rmSync(recorderDir, { recursive: true, force: true });
}

await build({
  ...shared,
  entryPoints: { switchboard: 'cli/main.ts' },
  outdir: 'dist/node',
  outExtension: { '.js': '.mjs' },
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  define: {
    __SWITCHBOARD_MCP_LISTING__: JSON.stringify(JSON.stringify(listing)),
    __SWITCHBOARD_QUICK_INBOX__: JSON.stringify(JSON.stringify(quickInbox)),
  },
});
