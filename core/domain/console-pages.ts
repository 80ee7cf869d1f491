/**
 * The console's pages: the paths its client-side router (admin-ui/src/lib/route.ts) shows. The
 * worker serves the console for exactly these (and the asset files); every other path is a 404
 * JSON answer, so a client probing `/.well-known/…` or `/register` never mistakes the console's
 * HTML for an answer.
 */
export const CONSOLE_PAGES = [
  'overview',
  'hosts',
  'agents',
  'channels',
  'groups',
  'cleanup',
  'settings',
  'admins',
  'audit',
] as const;

/** Pages that also take one path segment: a channel's messages, an agent's page. */
const PAGES_WITH_ITEM: ReadonlySet<string> = new Set(['channels', 'agents']);
const PAGES: ReadonlySet<string> = new Set<string>([...CONSOLE_PAGES, 'setup']);

export function isConsolePage(pathname: string): boolean {
  if (pathname === '/' || pathname === '/index.html') return true;
  const segments = pathname.slice(1).replace(/\/$/, '').split('/');
  const [first, second] = segments;
  if (first === undefined || !PAGES.has(first)) return false;
  if (segments.length === 1) return true;
  return segments.length === 2 && second !== '' && PAGES_WITH_ITEM.has(first);
}

/** The operations endpoints, served at the root (api-v1.md "Operations"). */
export const OPERATIONS_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * The paths the worker answers before any asset: wrangler.toml's `run_worker_first` lists the
 * same, and the self-host front sends them straight to the worker's own socket.
 */
export function isWorkerPath(pathname: string): boolean {
  return (
    pathname.startsWith('/api/') ||
    pathname === '/mcp' ||
    pathname === '/openapi.json' ||
    OPERATIONS_PATHS.has(pathname)
  );
}
