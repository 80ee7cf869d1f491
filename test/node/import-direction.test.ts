/**
 * Imports run one way (ARCHITECTURE.md, "Layout"): a shared core that imports nothing of the
 * others; the HTTP worker and the Durable Objects both on the core and not on each other (the
 * worker's entry point exports the object classes, since wrangler binds them from there, and
 * reaches them only through typed stubs); the client library under the CLI and the MCP server;
 * the launcher on its own. Read with TypeScript's own import scanner, so type imports, dynamic
 * imports and re-exports all count.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT, SOURCE_DIRS, sources } from './source-files.js';

/** Which top-level folders each folder may import from (its own is always allowed). */
const MAY_IMPORT: Record<string, readonly string[]> = {
  core: [],
  'durable-objects': ['core', 'migrations'],
  worker: ['core', 'mcp'],
  client: ['core'],
  mcp: ['core', 'client'],
  cli: ['core', 'client', 'mcp', 'server'],
  server: ['core', 'scripts'],
  'admin-ui': ['core'],
  migrations: [],
  scripts: ['core', 'worker', 'server', 'admin-ui'],
};

/** The one sanctioned crossing: the entry point re-exports the Durable Object classes it binds. */
const EXCEPTIONS = [{ from: 'worker/index.ts', to: 'durable-objects' }];

/** Files a package.json import (the version) or a generated declaration may name. */
const ALWAYS = new Set(['package.json', 'worker-configuration.d.ts']);

function topFolder(path: string): string {
  return path.startsWith('admin-ui/') ? 'admin-ui' : path.split('/')[0]!;
}

function relativeImports(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(join(ROOT, file), 'utf8'), true, true);
  return [...info.importedFiles, ...info.referencedFiles]
    .map((ref) => ref.fileName)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => normalize(join(dirname(file), spec)));
}

describe('import direction', () => {
  const files = SOURCE_DIRS.flatMap(sources);
  const edges = files.flatMap((from) => relativeImports(from).map((to) => ({ from, to })));

  it('scans every folder and sees the known crossings', () => {
    expect(files).toContain('core/contract/registry.ts');
    expect(files).toContain('server/serve.ts');
    expect(edges).toContainEqual({ from: 'worker/index.ts', to: 'durable-objects/channel/channel-do.js' });
    expect(edges.some((e) => e.from.startsWith('mcp/') && e.to.startsWith('client/'))).toBe(true);
  });

  it('has no import against the direction', () => {
    const wrong = edges.filter(({ from, to }) => {
      const source = topFolder(from);
      const target = topFolder(to);
      if (source === target || ALWAYS.has(to)) return false;
      if (EXCEPTIONS.some((e) => e.from === from && target === e.to)) return false;
      return !(MAY_IMPORT[source] ?? []).includes(target);
    });
    expect(wrong).toEqual([]);
  });

  it("keeps the channel's job modules under its shell and its wiring", () => {
    // One module per job (ARCHITECTURE.md): each sits on shared-sql.ts and the modules it is
    // handed; none reaches up to the wiring (store.ts) or the Durable Object (channel-do.ts).
    const dir = 'durable-objects/channel/';
    const jobs = ['sending', 'inbox', 'history', 'admin-view', 'retention', 'outbox', 'shared-sql'].map(
      (name) => `${dir}${name}.ts`,
    );
    for (const job of jobs) expect(files).toContain(job);
    const upward = edges.filter(
      ({ from, to }) => jobs.includes(from) && [`${dir}store.js`, `${dir}channel-do.js`].includes(to),
    );
    expect(upward).toEqual([]);
    // shared-sql.ts is what the jobs share: it imports none of them.
    const fromShared = edges.filter(({ from, to }) => from === `${dir}shared-sql.ts` && to.startsWith(dir));
    expect(fromShared.map((e) => e.to)).toEqual([`${dir}schema.js`]);
  });

  it('keeps the core free of runtime frameworks other than its schema library', () => {
    const frameworks = files
      .filter((file) => file.startsWith('core/'))
      .flatMap((file) =>
        ts
          .preProcessFile(readFileSync(join(ROOT, file), 'utf8'), true, true)
          .importedFiles.map((ref) => ({ file, spec: ref.fileName })),
      )
      .filter(({ spec }) => /^(hono|drizzle-orm|commander|miniflare|lit|@modelcontextprotocol)(\/|$)/.test(spec));
    expect(frameworks).toEqual([]);
  });
});
