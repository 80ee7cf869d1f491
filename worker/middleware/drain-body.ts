import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../handlers/types.js';
import { type BodyReader, bodyReader } from '../lib/body-reader.js';
import { DRAIN_MAX_BYTES, drainAfterAnswer, drainBody, relayBody } from '../lib/json-body.js';

/**
 * How long the answer waits for the rest of a body before it goes out first. A body that is
 * simply in flight ends well within this; one that is still arriving after it is a slow or stalled
 * client (e.g. a trickling upload refused with upload_stalled), which must get its answer now, not
 * after DRAIN_MAX_MS: the rest is then read after the answer (answerWhileDraining).
 */
const DRAIN_PATIENCE_MS = 2_000;

/**
 * Every request body is read to its end before the answer leaves, whatever the route, the status
 * or the handler did with it (read all, read part, cancelled, ignored). workerd closes a keep-alive
 * connection after an answer that left the request body unread, and may even reset it without
 * answering when much is left; a reused connection then fails the next request of some other
 * client. This is the one place that prevents it, so no handler has to remember. Bounded: a body
 * larger than DRAIN_MAX_BYTES (declared or seen), or not over within DRAIN_PATIENCE_MS, gets its answer
 * while the rest is read after it (drainAfterAnswer); that connection then closes (the self-host
 * front closes the client's connection cleanly, server/front.ts).
 */
export const drainUnreadBody = createMiddleware<AppEnv>(async (c, next) => {
  const source = c.req.raw.body;
  if (!source) {
    await next();
    return;
  }
  // No handler reads a GET body, and a Request with that method cannot be given a new one. A JSON
  // body of the API is only ever read by the json-body middleware, which reads it to its end or
  // releases its reader (readBounded), never cancels it: the runtime stream itself is then drained
  // below, and the relay (a stream and a Request copy per request) is kept for the bodies that
  // other code reads (uploads, /mcp).
  const method = c.req.method;
  const relay = method === 'GET' || method === 'HEAD' || jsonApiBody(c) ? null : relayBody(source);
  if (relay) {
    c.req.raw = new Request(c.req.raw, { body: relay.body });
    c.set('bodyRelay', relay);
  }
  try {
    await next();
  } finally {
    const reader = relay ? await relay.leftover() : source.locked ? null : bodyReader(source);
    const declared = Number(c.req.header('content-length') ?? Number.NaN);
    if (reader && (declared > DRAIN_MAX_BYTES || !(await drainBody(reader, DRAIN_MAX_BYTES, DRAIN_PATIENCE_MS)))) {
      await answerWhileDraining(c, reader);
    }
  }
});

/** A JSON body on an API path: read by nothing but the json-body middleware. */
function jsonApiBody(c: Context<AppEnv>): boolean {
  return c.req.path.startsWith('/api/') && JSON_TYPE.test(c.req.header('content-type') ?? '');
}

const JSON_TYPE = /^application\/([\w.-]+\+)?json\s*(;|$)/i;

/** Answers larger than this are not held (a file download has its length and streams as is). */
const HOLD_MAX_BYTES = 1_000_000;

/**
 * workerd resets a connection whose answer is complete while the request body is still unread,
 * and the reset can destroy the answer before it reaches the client. So the answer goes out with
 * its length known (FixedLengthStream), every byte of it written, but its stream is only closed
 * once the rest of the request body has been read (drainAfterAnswer, bounded in time): the client
 * has the whole answer long before the connection goes.
 */
async function answerWhileDraining(c: Context<AppEnv>, reader: BodyReader) {
  const answer = c.res;
  const read = await readAtMost(answer, HOLD_MAX_BYTES);
  let held: Promise<void>;
  if (read.whole) {
    const stream = new FixedLengthStream(read.whole.byteLength);
    const writer = stream.writable.getWriter();
    const bytes = read.whole;
    held = (async () => {
      await writer.write(bytes);
      await drainAfterAnswer(reader);
      await writer.close();
    })().catch(() => {});
    c.res = new Response(stream.readable, answer);
  } else {
    if (read.rest) c.res = new Response(read.rest, answer);
    held = drainAfterAnswer(reader);
  }
  try {
    c.executionCtx.waitUntil(held);
  } catch {
    // No execution context (a test calling the app directly): the reading still goes on.
  }
}

/**
 * The whole body of `answer` when it is at most `max` bytes. Otherwise nothing is held: `rest` is
 * the same body again (what was read, then the remainder), or absent when nothing was read.
 */
async function readAtMost(
  answer: Response,
  max: number,
): Promise<{ whole?: Uint8Array; rest?: ReadableStream<Uint8Array> }> {
  const declared = answer.headers.get('content-length');
  if (declared !== null && Number(declared) > max) return {};
  if (!answer.body) return { whole: new Uint8Array(0) };
  const source = answer.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await source.read();
    if (done) break;
    chunks.push(value);
    total += value.byteLength;
    if (total > max) {
      const rest = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const chunk = chunks.shift();
          if (chunk) return controller.enqueue(chunk);
          const next = await source.read();
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        },
        cancel: (reason) => source.cancel(reason),
      });
      return { rest };
    }
  }
  const whole = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    whole.set(chunk, at);
    at += chunk.byteLength;
  }
  return { whole };
}
