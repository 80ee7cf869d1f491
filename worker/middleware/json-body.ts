import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { ApiError } from '../../core/contract/errors.js';
import type { OperationDef } from '../../core/contract/registry.js';
import { maxJsonRequestBytes } from '../../core/lib/limits.js';
import { currentSettings } from '../../core/lib/settings-cache.js';
import type { AppEnv } from '../handlers/types.js';
import { parseJsonStrict, readBounded } from '../lib/json-body.js';

/**
 * Reads and parses the operation's JSON body (undefined for a multipart upload, whose JSON is a
 * part the handler reads), or throws the structured refusal: wrong media type, over the cap,
 * invalid UTF-8, lone surrogates, invalid JSON.
 */
export async function readJsonBody(c: Context<AppEnv>, op: OperationDef): Promise<unknown> {
  const type = c.req.header('content-type') ?? '';
  if (op.upload && type.toLowerCase().startsWith('multipart/form-data')) return undefined;
  if (!/^application\/([\w.-]+\+)?json\s*(;|$)/i.test(type)) {
    throw new ApiError('unsupported_media_type', 'Send the body as application/json.');
  }
  const settings = await currentSettings(c.env);
  const cap = maxJsonRequestBytes(settings.limits);
  const declared = Number(c.req.header('content-length') ?? Number.NaN);
  if (declared > cap) {
    throw new ApiError('payload_too_large', `The request body is larger than ${cap} bytes.`, { limit: cap });
  }
  const bytes = await readBounded(c.req.raw.body, cap);
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
