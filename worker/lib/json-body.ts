import { ApiError } from '../contract/errors.js';

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
 * workerd may drop an answer sent while the request body is still unread (seen with a Durable
 * Object call before the answer), so refused bodies are read to the end (bounded) before the
 * error goes out: the client then always gets its structured error.
 */
export const DRAIN_LIMIT = 64_000_000;

export async function drainBody(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  let seen = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    seen += value.byteLength;
    if (seen > DRAIN_LIMIT) {
      await reader.cancel();
      return;
    }
  }
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
      await drainBody(reader);
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
    throw new ApiError('validation_failed', `Malformed JSON: ${(error as Error).message}`);
  }
  const bad = findIllFormedString(value);
  if (bad !== null) {
    throw new ApiError('invalid_unicode', 'A string contains a lone UTF-16 surrogate.', { field: bad });
  }
  return { text, value };
}
