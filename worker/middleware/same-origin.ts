import { createMiddleware } from 'hono/factory';
import { ApiError } from '../../core/contract/errors.js';
import type { AppEnv } from '../handlers/types.js';

/**
 * Cross-site request forgery guard for state-changing requests: a browser always sends Origin on
 * a cross-site POST/PATCH/DELETE, so a foreign Origin is refused. Agents (no browser) send none.
 */
export const sameOriginWrites = createMiddleware<AppEnv>(async (c, next) => {
  const origin = c.req.header('origin');
  if (origin && origin !== 'null') {
    const self = new URL(c.req.url);
    const forwardedHost = c.req.header('host');
    let allowed = false;
    try {
      const theirs = new URL(origin);
      allowed = theirs.host === self.host || (forwardedHost !== undefined && theirs.host === forwardedHost);
    } catch {
      allowed = false;
    }
    if (!allowed) throw new ApiError('forbidden', 'Cross-origin requests may not change state.');
  } else if (origin === 'null') {
    throw new ApiError('forbidden', 'Cross-origin requests may not change state.');
  }
  await next();
});
