import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

export const ROOT = join(import.meta.dirname, '../..');

/** The repository's own source folders (everything that ships or builds; not tests). */
export const SOURCE_DIRS = [
  'core',
  'worker',
  'durable-objects',
  'client',
  'cli',
  'mcp',
  'server',
  'admin-ui/src',
  'migrations',
  'scripts',
];

/** Source files under `dir`, relative to the repository root (generated and .d.ts files left out). */
export function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(ts|mts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
    .filter((path) => !path.includes('/generated/') && !path.includes('/meta/'));
}
