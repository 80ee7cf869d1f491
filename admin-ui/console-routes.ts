/**
 * The console's routes, derived from the operation registry at build time: a Vite plugin that
 * serves `virtual:console-routes`, the method and path of every `/admin/` operation as a plain
 * object. The registry itself (zod schemas) stays out of the bundle; a route renamed in the
 * registry reaches the console with the next build, and its type (admin-ui/src/console-routes.d.ts)
 * comes from the same registry.
 */
import type { Plugin } from 'vite';
import { operationList } from '../core/contract/index.js';

const ID = 'virtual:console-routes';
const RESOLVED = `\0${ID}`;

export function consoleRoutesTable(): Record<string, readonly [string, string]> {
  return Object.fromEntries(
    operationList.filter((op) => op.path.startsWith('/admin/')).map((op) => [op.id, [op.method, op.path]] as const),
  );
}

export function consoleRoutes(): Plugin {
  return {
    name: 'switchboard-console-routes',
    resolveId: (id) => (id === ID ? RESOLVED : undefined),
    load: (id) => (id === RESOLVED ? `export default ${JSON.stringify(consoleRoutesTable())};` : undefined),
  };
}
