/**
 * Requests the worker makes to itself: each tool call of `/mcp` (worker/mcp.ts) is one request to
 * the app, made after the `/mcp` request itself passed the front's secret, the key and the host
 * address. Such a request is known by its object (no header a client could send marks it), and
 * carries what the outer request established: its agent, its request ID and client address, and
 * the upload admission it holds.
 *
 * What the outer request already did is not done again for each call: no second request ID (the
 * call's error bodies carry the `/mcp` request's, the ID its client sees), no second count in the
 * request metrics (the client made one request), no second front-secret or key check. What depends
 * on the call itself still runs: routing, the schemas, channel access, the body and its limits.
 */
import { createMiddleware } from 'hono/factory';
import type { AuthedAgent } from '../core/domain/principals.js';
import type { AppEnv } from './handlers/types.js';
import type { Admission } from './uploads/admission.js';

export interface InProcessCall {
  /** The agent the outer request authenticated. */
  agent: AuthedAgent;
  /** The outer request's ID and canonical client address (requestContext). */
  requestId: string;
  clientIp: string;
  /** The outer request's upload admission, for the first upload that asks (then null). */
  takeAdmission(): Admission | null;
}

const calls = new WeakMap<Request, InProcessCall>();

export function markInProcess(request: Request, call: InProcessCall): void {
  calls.set(request, call);
}

/** First of every request: an in-process call is told apart before its Request is replaced. */
export const inProcessCalls = createMiddleware<AppEnv>(async (c, next) => {
  const call = calls.get(c.req.raw);
  if (call) c.set('inProcess', call);
  await next();
});
