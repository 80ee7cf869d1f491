import { ApiError } from '../../core/contract/errors.js';
import { type BodyReader, bodyReader } from './body-reader.js';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * No request body of the contract nests deeper than a few levels; the walk below and zod after
 * it would otherwise recurse once per level (5,000 levels overflowed the stack: a 500).
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Path of the first string (key or value) in `value` that is not well-formed UTF-16, if any.
 * Iterative, and refuses (`validation_failed`) nesting deeper than MAX_JSON_DEPTH.
 */
export function findIllFormedString(value: unknown): string | null {
  // Depth-first in document order: children are pushed in reverse.
  const stack: { value: unknown; path: string; depth: number; badKey?: boolean }[] = [{ value, path: '', depth: 0 }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { value: node, path, depth } = item;
    if (item.badKey) return path;
    if (typeof node === 'string') {
      if (!node.isWellFormed()) return path || '(body)';
      continue;
    }
    if (node === null || typeof node !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) {
      throw new ApiError('validation_failed', `JSON nested deeper than ${MAX_JSON_DEPTH} levels.`, {
        field: path || undefined,
        limit: MAX_JSON_DEPTH,
      });
    }
    const entries: [string, unknown][] = Array.isArray(node)
      ? node.map((child, i) => [String(i), child])
      : Object.entries(node);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i] as [string, unknown];
      const childPath = path ? `${path}.${key}` : key;
      stack.push({ value: child, path: childPath, depth: depth + 1, badKey: !key.isWellFormed() });
    }
  }
  return null;
}

/**
 * How much of a body nobody used is read and dropped before the answer goes out, and for how
 * long. workerd closes (or resets, without answering) a client connection whose request body the
 * worker left unread, so every body is read to its end (worker/middleware/drain-body.ts); beyond
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
  direct(): BodyReader;
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
      read: () => (cancelled ? Promise.resolve({ done: true, value: undefined }) : read()),
      cancel: async () => {
        cancelled = true;
      },
    }),
    async leftover() {
      // A read of the relay may still be waiting on the runtime stream: let it land first.
      await pulling.catch(() => {});
      return reader;
    },
  };
}

/** Reads at most `maxBytes` of a body stream; refuses (413) the moment it grows past that. */
export async function readBounded(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<Uint8Array> {
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      // The rest of the body is drained in one place, before the answer (worker/middleware/
      // drain-body.ts): released, not cancelled, so that the runtime's own stream can be read on.
      reader.releaseLock();
      throw new ApiError('payload_too_large', `The request body is larger than ${maxBytes} bytes.`, {
        limit: maxBytes,
      });
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

/**
 * Decodes and parses a JSON request body strictly: invalid UTF-8 bytes and lone surrogates
 * (`"\ud800"`) are `invalid_unicode`, never replaced; malformed JSON is `validation_failed`.
 */
export function parseJsonStrict(bytes: Uint8Array): { text: string; value: unknown } {
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    throw new ApiError('invalid_unicode', 'The request body is not valid UTF-8.');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ApiError('validation_failed', `Malformed JSON: ${(error as Error).message}`, {
      reason: 'malformed_json',
    });
  }
  const bad = findIllFormedString(value);
  if (bad !== null) {
    throw new ApiError('invalid_unicode', 'A string contains a lone UTF-16 surrogate.', { field: bad });
  }
  return { text, value };
}
