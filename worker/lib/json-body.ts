import { ApiError } from '../contract/errors.js';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Path of the first string (key or value) in `value` that is not well-formed UTF-16, if any. */
export function findIllFormedString(value: unknown, path = ''): string | null {
  if (typeof value === 'string') return value.isWellFormed() ? null : path || '(body)';
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findIllFormedString(value[i], path ? `${path}.${i}` : String(i));
      if (hit !== null) return hit;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      const childPath = path ? `${path}.${key}` : key;
      if (!key.isWellFormed()) return childPath;
      const hit = findIllFormedString(child, childPath);
      if (hit !== null) return hit;
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
