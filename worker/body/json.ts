/**
 * JSON request bodies: read under the size cap, decoded strictly (invalid UTF-8 and lone
 * surrogates refused, never replaced), parsed once, nesting bounded; and the middleware that hands
 * the parsed value to the route's validator.
 */
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { ApiError } from '../../core/contract/errors.js';
import type { OperationDef } from '../../core/contract/registry.js';
import { maxJsonRequestBytes } from '../../core/lib/limits.js';
import { currentSettings } from '../../core/lib/settings-cache.js';
import type { AppEnv } from '../handlers/types.js';
import { readBounded } from './reader.js';

/** `application/json` or a `+json` type: the media types of the API's JSON bodies. */
export const JSON_TYPE = /^application\/([\w.-]+\+)?json\s*(;|$)/i;

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

/**
 * Reads and parses the operation's JSON body (undefined for a multipart upload, whose JSON is a
 * part the handler reads), or throws the structured refusal: wrong media type, over the cap,
 * invalid UTF-8, lone surrogates, invalid JSON.
 */
export async function readJsonBody(c: Context<AppEnv>, op: OperationDef): Promise<unknown> {
  const type = c.req.header('content-type') ?? '';
  if (op.upload && type.toLowerCase().startsWith('multipart/form-data')) return undefined;
  if (!JSON_TYPE.test(type)) {
    throw new ApiError('unsupported_media_type', 'Send the body as application/json.');
  }
  const settings = await currentSettings(c.env);
  const cap = maxJsonRequestBytes(settings.limits);
  const declared = Number(c.req.header('content-length') ?? Number.NaN);
  if (declared > cap) {
    throw new ApiError('payload_too_large', `The request body is larger than ${cap} bytes.`, { limit: cap });
  }
  const bytes = await readBounded(c.req.raw.body, cap, undefined, declared);
  return parseJsonStrict(bytes).value;
}

/**
 * Reads a JSON body under a size cap and decodes it strictly, so invalid UTF-8 and lone
 * surrogates are refused instead of silently replaced, and hands the parsed value on as the
 * `jsonBody` variable: the app validates it with the operation's schema (validJsonBody in
 * app.ts), after the path and query, as a route validator would. The body is read from the wire
 * and parsed once, and nothing relies on Hono's undocumented body cache. Routes whose
 * authentication checks IDs from the body (auth-extras.ts) read it there, keeping its refusal
 * for this point, so that an unauthenticated request is still answered `unauthenticated` first.
 */
export function jsonBody(op: OperationDef) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const early = c.get('earlyBody');
    try {
      if (early && 'error' in early) throw early.error;
      const value = early ? early.value : await readJsonBody(c, op);
      if (value !== undefined) c.set('jsonBody', value);
    } catch (error) {
      // Refused when the body is validated (validJsonBody in app.ts), after the path and the
      // query, as a route validator would: a bad path parameter is named before the media type.
      c.set('jsonBodyError', error);
    }
    await next();
  });
}
