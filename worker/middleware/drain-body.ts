import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../handlers/types.js';
import { DRAIN_MAX_BYTES, drainAfterAnswer, drainBody, relayBody } from '../lib/json-body.js';

/**
 * Every request body is read to its end before the answer leaves, whatever the route, the status
 * or the handler did with it (read all, read part, cancelled, ignored). workerd closes a keep-alive
 * connection after an answer that left the request body unread, and may even reset it without
 * answering when much is left; a reused connection then fails the next request of some other
 * client. This is the one place that prevents it, so no handler has to remember. Bounded: a body
 * larger than DRAIN_MAX_BYTES (declared or seen), or slower than DRAIN_MAX_MS, gets its answer
 * while the rest is read after it (drainAfterAnswer); that connection then closes (the self-host
 * front closes the client's connection cleanly, cli/serve/front.ts).
 */
export const drainUnreadBody = createMiddleware<AppEnv>(async (c, next) => {
  const source = c.req.raw.body;
  if (!source) {
    await next();
    return;
  }
  // No handler reads a GET body, and a Request with that method cannot be given a new one.
  const method = c.req.method;
  const relay = method === 'GET' || method === 'HEAD' ? null : relayBody(source);
  if (relay) c.req.raw = new Request(c.req.raw, { body: relay.body });
  try {
    await next();
  } finally {
    const reader = relay ? await relay.leftover() : source.locked ? null : source.getReader();
    const declared = Number(c.req.header('content-length') ?? Number.NaN);
    if (reader && (declared > DRAIN_MAX_BYTES || !(await drainBody(reader)))) {
      await answerWhileDraining(c, reader);
    }
  }
});

/** Answers this small or larger are sent as they are (workerd may then lose them, see below). */
const HOLD_MAX_BYTES = 1_000_000;

/**
 * workerd resets a connection whose answer is complete while the request body is still unread,
 * and the reset can destroy the answer before it reaches the client. So the answer goes out with
 * its length known (FixedLengthStream), every byte of it written, but its stream is only closed
 * once the rest of the request body has been read (drainAfterAnswer, bounded in time): the client
 * has the whole answer long before the connection goes.
 */
async function answerWhileDraining(c: Context<AppEnv>, reader: ReadableStreamDefaultReader<Uint8Array>) {
  const answer = c.res;
  const declaredLength = Number(answer.headers.get('content-length') ?? 0);
  let held: Promise<void>;
  if (declaredLength > HOLD_MAX_BYTES) {
    held = drainAfterAnswer(reader);
  } else {
    const bytes = new Uint8Array(await answer.arrayBuffer());
    const stream = new FixedLengthStream(bytes.byteLength);
    const writer = stream.writable.getWriter();
    held = (async () => {
      await writer.write(bytes);
      await drainAfterAnswer(reader);
      await writer.close();
    })().catch(() => {});
    c.res = new Response(stream.readable, answer);
  }
  try {
    c.executionCtx.waitUntil(held);
  } catch {
    // No execution context (a test calling the app directly): the reading still goes on.
  }
}
