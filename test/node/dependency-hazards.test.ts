/**
 * The dependency hazards stay gone: no source reads zod's internals (`_zod`) or writes Hono's
 * undocumented body cache, and nothing imports @asteasolutions/zod-to-openapi directly (a second
 * copy would read an empty metadata registry: test/node/help-text.test.ts shows what is lost),
 * and no Durable Object uses drizzle's relational queries (`db.query.<table>`): the objects open
 * drizzle without the schema (durable-objects/shared/database.ts), so those would be undefined.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT as root, SOURCE_DIRS, sources } from './source-files.js';

describe('dependency hazards', () => {
  const files = SOURCE_DIRS.flatMap(sources);

  it('scans the sources', () => {
    expect(files).toContain('client/fields.ts');
    expect(files).toContain('worker/body/json.ts');
  });

  it.each([
    ['zod internals', /\._zod\b/],
    ["Hono's body cache", /\bbodyCache\b/],
    ['a direct zod-to-openapi import', /from ['"]@asteasolutions\/zod-to-openapi['"]/],
    ["drizzle's relational queries", /\b(?:db|tx|this\.db)\.query\b/],
  ])('no source uses %s', (_what, pattern) => {
    const offenders = files.filter((file) => pattern.test(readFileSync(join(root, file), 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('package.json does not pin zod-to-openapi beside @hono/zod-openapi', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(Object.keys({ ...pkg.dependencies, ...pkg.devDependencies })).not.toContain(
      '@asteasolutions/zod-to-openapi',
    );
  });
});
