import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../handlers/types.js';
import { DRAIN_MAX_BYTES, drainBody, relayBody } from '../lib/json-body.js';

/**
 * Every request body is read to its end before the answer leaves, whatever the route, the status
 * or the handler did with it (read all, read part, cancelled, ignored). workerd closes a keep-alive
 * connection after an answer that left the request body unread, and may even reset it without
 * answering when much is left; a reused connection then fails the next request of some other
 * client. This is the one place that prevents it, so no handler has to remember. Bounded: past
 * DRAIN_MAX_BYTES or DRAIN_MAX_MS the answer goes out anyway on a connection that closes (the
 * self-host front then closes the client's connection cleanly, cli/serve/front.ts).
 */
export const drainUnreadBody = createMiddleware<AppEnv>(async (c, next) => {
  const source = c.req.raw.body;
  if (!source) {
    await next();
    return;
  }
  const declared = Number(c.req.header('content-length') ?? Number.NaN);
  const method = c.req.method;
  if (method === 'GET' || method === 'HEAD') {
    // No handler reads a GET body, and a Request with that method cannot be given a new one.
    await next();
    if (!source.locked) {
      if (declared > DRAIN_MAX_BYTES) await source.cancel().catch(() => {});
      else await drainBody(source.getReader());
    }
    return;
  }
  const relay = relayBody(source);
  c.req.raw = new Request(c.req.raw, { body: relay.body });
  try {
    await next();
  } finally {
    await relay.drain(Number.isFinite(declared) ? declared : 0);
  }
});
