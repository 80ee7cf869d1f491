/**
 * Bodies nobody read: the relay that stands between the runtime's request body and the handlers,
 * and the middleware that reads every body to its end (bounded) before its answer leaves.
 */
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../handlers/types.js';
import { JSON_TYPE } from './json.js';
import { type BodyReader, bodyReader, joinChunks, type ReusingBodyReader } from './reader.js';

/**
 * How much of a body nobody used is read and dropped before the answer goes out, and for how
 * long. workerd closes (or resets, without answering) a client connection whose request body the
 * worker left unread, so every body is read to its end (drainUnreadBody below); beyond
 * these bounds the answer goes out anyway, on a connection that then closes.
 */
export const DRAIN_MAX_BYTES = 64_000_000;
export const DRAIN_MAX_MS = 30_000;

/**
 * Reads `reader` and drops the bytes. True once the body has ended (or failed: the client is
 * gone); false when `maxBytes` or `maxMs` ran out first, with the stream left as it is.
 */
export async function drainBody(
  reader: BodyReader,
  maxBytes = DRAIN_MAX_BYTES,
  maxMs = DRAIN_MAX_MS,
): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<'expired'>((resolve) => {
    timer = setTimeout(() => resolve('expired'), maxMs);
  });
  let seen = 0;
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), expired]);
      if (next === 'expired') return false;
      if (next.done) return true;
      seen += next.value.byteLength;
      if (seen > maxBytes) return false;
    }
  } catch {
    // The client went away mid-body: nothing is left to read, and no one is left to answer.
    return true;
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

/**
 * Keeps reading a body that outgrew the drain bounds while its answer goes out: workerd resets a
 * connection on which the worker stopped reading (the answer is then lost), but sends the answer
 * while the body is still being read. The self-host front closes that connection once the answer
 * is through; here, the reading stops after DRAIN_MAX_MS at the latest.
 */
export async function drainAfterAnswer(reader: BodyReader): Promise<void> {
  if (!(await drainBody(reader, Number.POSITIVE_INFINITY, DRAIN_MAX_MS))) await reader.cancel().catch(() => {});
}

/** What relayBody answers: the body for handlers, and what they left for the drain. */
export interface BodyRelay {
  /** The body as a stream, for handlers that read it as one. */
  body: ReadableStream<Uint8Array>;
  /**
   * The same bytes without the stream in between: reads fill one reused buffer (body-reader.ts),
   * so a large upload allocates nothing per chunk. A handler reads `body` or this, never both.
   * Its cancel, like the stream's, stops the relay and never the runtime stream.
   */
  direct(): ReusingBodyReader;
  /** The runtime stream's reader, once any read under way has landed: what the handler left. */
  leftover(): Promise<BodyReader>;
}

/**
 * Stands between the runtime's request body and the handlers: they read (or cancel, or ignore)
 * `body` or `direct()` as usual, while `leftover()` gives what they left, because only this relay
 * holds the runtime stream's reader. A handler's cancel stops the relay, never the runtime stream.
 */
export function relayBody(source: ReadableStream<Uint8Array>): BodyRelay {
  const reader = bodyReader(source);
  let pulling: Promise<unknown> = Promise.resolve();
  let cancelled = false;
  const read = () => {
    const next = reader.read();
    pulling = next;
    return next;
  };
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        return read().then(
          ({ done, value }) => {
            // After a cancel the chunk is simply dropped, as draining would drop it.
            if (cancelled) return;
            if (done) controller.close();
            // A stream's chunks are its reader's to keep: a view of the reused buffer is copied.
            else controller.enqueue(reader.reusesBuffer ? value.slice() : value);
          },
          (error: unknown) => {
            if (!cancelled) controller.error(error);
          },
        );
      },
      cancel() {
        cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return {
    body,
    direct: () => ({
      reusesBuffer: reader.reusesBuffer,
      read: () => (cancelled ? Promise.resolve({ done: true, value: undefined }) : read()),
      cancel: async () => {
        cancelled = true;
      },
      // The relay keeps the runtime stream's reader for leftover(): there is nothing to let go.
      releaseLock: () => {},
    }),
    async leftover() {
      // A read of the relay may still be waiting on the runtime stream: let it land first.
      await pulling.catch(() => {});
      return reader;
    },
  };
}

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
  // body of the API is only ever read by the json-body middleware, and a `/mcp` body only by its
  // route (worker/mcp.ts), both bounded (readBounded): read to its end, or the reader released,
  // never cancelled. The runtime stream itself is then drained below, and the relay (a stream, a
  // read buffer and a Request copy per request) is kept for the bodies that other code reads
  // (uploads).
  const method = c.req.method;
  const relay =
    method === 'GET' || method === 'HEAD' || jsonApiBody(c) || c.req.path === MCP_BODY_PATH ? null : relayBody(source);
  if (relay) {
    c.req.raw = new Request(c.req.raw, { body: relay.body });
    c.set('bodyRelay', relay);
  }
  try {
    await next();
  } finally {
    const declared = Number(c.req.header('content-length') ?? Number.NaN);
    const reader = relay ? await relay.leftover() : source.locked ? null : bodyReader(source, declared);
    if (reader && (declared > DRAIN_MAX_BYTES || !(await drainBody(reader, DRAIN_MAX_BYTES, DRAIN_PATIENCE_MS)))) {
      await answerWhileDraining(c, reader);
    }
  }
});

/** The remote MCP route (worker/mcp.ts MCP_PATH), whose handler reads every body itself. */
const MCP_BODY_PATH = '/mcp';

/** A JSON body on an API path: read by nothing but the json-body middleware. */
function jsonApiBody(c: Context<AppEnv>): boolean {
  return c.req.path.startsWith('/api/') && JSON_TYPE.test(c.req.header('content-type') ?? '');
}

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
  return { whole: joinChunks(chunks, total) };
}
