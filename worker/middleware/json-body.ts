import { createMiddleware } from 'hono/factory';
import { ApiError } from '../../core/contract/errors.js';
import type { OperationDef } from '../../core/contract/registry.js';
import { maxJsonRequestBytes } from '../../core/lib/limits.js';
import { currentSettings } from '../../core/lib/settings-cache.js';
import type { AppEnv } from '../handlers/types.js';
import { parseJsonStrict, readBounded } from '../lib/json-body.js';

/**
 * Reads a JSON body under a size cap and decodes it strictly, so invalid UTF-8 and lone
 * surrogates are refused instead of silently replaced, and hands the parsed value on as the
 * `jsonBody` variable: the app validates it with the operation's schema (validJsonBody in
 * app.ts), after the path and query, as a route validator would. The body is read from the wire
 * and parsed once, and nothing relies on Hono's undocumented body cache.
 */
export function jsonBody(op: OperationDef) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const type = c.req.header('content-type') ?? '';
    if (op.upload && type.toLowerCase().startsWith('multipart/form-data')) {
      await next();
      return;
    }
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
    c.set('jsonBody', parseJsonStrict(bytes).value);
    await next();
  });
}
