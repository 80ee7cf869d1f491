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

/**
 * Where MCP clients look for OAuth after /mcp answered 401: the protected-resource and
 * authorization-server metadata (RFC 9728, RFC 8414, OpenID discovery, each also with a path
 * suffix) and the usual registration, authorization and token endpoints. Switchboard does no OAuth;
 * these 404s say so, and why the client came, since a bridge such as mcp-remote shows the person
 * the body of the last refusal and never the 401's.
 */
const OAUTH_WELL_KNOWN = ['oauth-protected-resource', 'oauth-authorization-server', 'openid-configuration'];
const OAUTH_ENDPOINTS: ReadonlySet<string> = new Set(['/register', '/authorize', '/token', '/oauth/token']);

export function isOAuthProbe(pathname: string): boolean {
  if (OAUTH_ENDPOINTS.has(pathname)) return true;
  const rest = pathname.startsWith('/.well-known/') ? pathname.slice('/.well-known/'.length) : undefined;
  return rest !== undefined && OAUTH_WELL_KNOWN.some((name) => rest === name || rest.startsWith(`${name}/`));
}

export const NO_OAUTH_MESSAGE =
  'Switchboard does not use OAuth. An MCP client looks for it after /mcp refused its credentials ' +
  '(401 unauthenticated): send the agent\'s API key as the header "Authorization: Bearer sbk_…". ' +
  'If you did, that key is wrong, revoked or replaced, or its agent is disabled: ask an administrator for a new one.';
