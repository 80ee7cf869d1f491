/**
 * The HTTP surface, generated from the operation registry: each operation becomes one
 * `@hono/zod-openapi` route with its role's middleware, its validators and its handler.
 * Validation errors go through one `defaultHook`, domain errors through one `onError`.
 */
import { OpenAPIHono, type z } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { routePath } from 'hono/route';
import {
  ApiError,
  ERROR_REASONS,
  type ErrorCode,
  type ErrorDetails,
  type ErrorReason,
  reviveApiError,
} from '../core/contract/errors.js';
import { operationList } from '../core/contract/index.js';
import type { ErrorBody } from '../core/contract/models.js';
import type { OperationDef } from '../core/contract/registry.js';
import { isOAuthProbe, NO_OAUTH_MESSAGE } from '../core/domain/console-pages.js';
import { currentSettings } from '../core/lib/settings-cache.js';
import { BodyAborted, drainUnreadBody, jsonBody } from './body/index.js';
import { handlers } from './handlers/index.js';
import type { AppEnv, Handler } from './handlers/types.js';
import { inProcessCalls } from './in-process.js';
import { mountRemoteMcp } from './mcp.js';
import { countEvents, countRefusal } from './metrics.js';
import { auditTrail, isAudited } from './middleware/audit.js';
import { requireAdmin, requireAgentFor } from './middleware/auth.js';
import { frontGuard, requestContext } from './middleware/request-context.js';
import { sameOriginWrites } from './middleware/same-origin.js';
import { API_BASE, buildOpenApiDocument, routeFor } from './openapi.js';
import { mountOperations, requestMetrics, uncounted } from './operations.js';

/**
 * The first issue as structured details: the field path, zod's issue kind as the stable reason
 * (or our own, carried in a custom issue's params), the limit and what it counts, so a client can
 * phrase the refusal in its own language; `message` keeps zod's English for everyone else.
 */
export function validationDetails(error: z.ZodError): { message: string; details: ErrorDetails } {
  const issue = error.issues[0];
  if (!issue) return { message: 'Invalid request.', details: { reason: 'custom' } };
  const path = issue.path.map(String).join('.');
  const details: ErrorDetails = { reason: issue.code };
  if (path) details.field = path;
  const params: Record<string, string | number> = {};
  if (issue.code === 'too_big' || issue.code === 'too_small') {
    const bound = issue.code === 'too_big' ? issue.maximum : issue.minimum;
    if (typeof bound === 'number') details.limit = bound;
    params.origin = issue.origin;
    if (issue.inclusive === false) params.exclusive = 1;
  } else if (issue.code === 'invalid_format') {
    params.format = issue.format;
  } else if (issue.code === 'invalid_type') {
    params.expected = issue.expected;
  } else if (issue.code === 'unrecognized_keys') {
    params.keys = issue.keys.join(',');
  } else if (issue.code === 'custom') {
    const own = (issue.params as { reason?: unknown } | undefined)?.reason;
    if (typeof own === 'string' && (ERROR_REASONS as readonly string[]).includes(own)) {
      details.reason = own as ErrorReason;
    }
  }
  if (Object.keys(params).length > 0) details.params = params;
  return { message: path ? `${path}: ${issue.message}` : issue.message, details };
}

function invalidInput(error: z.ZodError): ApiError {
  const { message, details } = validationDetails(error);
  return new ApiError('validation_failed', message, details);
}

/**
 * The operation's body, validated by its schema: the value the json-body middleware parsed (the
 * served routes declare no body, so no route validator reads it), or `{}` for a multipart upload,
 * whose JSON is its `metadata` part, read by the handler.
 */
async function validJsonBody(op: OperationDef, c: Context<AppEnv>): Promise<unknown> {
  const refused = c.get('jsonBodyError');
  if (refused !== undefined) throw refused;
  const value = c.get('jsonBody');
  if (value === undefined || !op.body) return {};
  const result = await op.body.safeParseAsync(value);
  if (!result.success) throw invalidInput(result.error);
  return result.data;
}

async function errorResponse(c: Context<AppEnv>, error: ApiError): Promise<Response> {
  countRefusal(error.code);
  let revision = 0;
  try {
    revision = (await currentSettings(c.env)).revision;
  } catch {
    // An error answer must not fail because the registry is unreachable.
  }
  const { field, target, limit, retryAfterMs, reason, params, rows } = error.details;
  const body: z.infer<typeof ErrorBody> = {
    request_id: c.get('requestId') ?? 'req_unknown',
    error: {
      code: error.code,
      message: error.text,
      ...(field !== undefined && { field }),
      ...(target !== undefined && { target }),
      ...(limit !== undefined && { limit }),
      settings_revision: revision,
      ...(retryAfterMs !== undefined && { retry_after_ms: retryAfterMs }),
      ...(reason !== undefined && { reason }),
      ...(params !== undefined && { params }),
      ...(rows !== undefined && { rows }),
    },
  };
  if (retryAfterMs !== undefined) c.header('Retry-After', String(Math.max(1, Math.ceil(retryAfterMs / 1000))));
  return c.json(body, error.status as 400);
}

const HTTP_STATUS_CODES: Partial<Record<number, ErrorCode>> = {
  400: 'validation_failed',
  401: 'unauthenticated',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
};

export function toApiError(raw: unknown): ApiError {
  const error = reviveApiError(raw);
  if (error instanceof ApiError) return error;
  if (error instanceof HTTPException) {
    const code = HTTP_STATUS_CODES[error.status] ?? 'validation_failed';
    return new ApiError(code, error.message || 'Invalid request.');
  }
  console.error('unexpected error', error instanceof Error ? error.stack : error);
  return new ApiError('internal_error', 'Internal error.');
}

/**
 * The client went away mid-body: logged as such (a warning with its own code, not an unexpected
 * error), and answered with a bare 400 that nobody reads.
 */
function bodyAborted(c: Context<AppEnv>): Response {
  console.warn(`client_aborted ${c.req.method} ${routePath(c)} ${c.get('requestId') ?? ''}: ${ABORTED}`);
  return c.body(null, 400);
}

const ABORTED = 'the client closed the connection before its request body was over';

function middlewareFor(op: OperationDef) {
  const middleware: MiddlewareHandler<AppEnv>[] = [];
  // Every state change, with a body or not (key regenerate/revoke, deletes, logout), and first,
  // so a forged request is refused before it costs a session lookup.
  if (op.method !== 'get') middleware.push(sameOriginWrites);
  if (op.role === 'agent') middleware.push(requireAgentFor(op));
  if (op.role === 'admin') middleware.push(requireAdmin);
  // After authentication (a request without a session is no administrator's action), before the
  // body is read, so a refused body is audited too.
  if (isAudited(op)) middleware.push(auditTrail(op));
  if (op.body) middleware.push(jsonBody(op));
  return middleware;
}

export function createApp(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw invalidInput(result.error);
    },
  });

  // drainUnreadBody first (after telling in-process calls apart, before it replaces the Request):
  // it must also cover what frontGuard, the 404s and onError answer.
  app.use('*', inProcessCalls, drainUnreadBody, requestMetrics, requestContext, frontGuard);
  app.onError((error, c) => (error instanceof BodyAborted ? bodyAborted(c) : errorResponse(c, toApiError(error))));
  const noRoute = (c: Context<AppEnv>) => {
    const allowed = methodsOf(c.req.path);
    if (allowed.length === 0) {
      if (isOAuthProbe(c.req.path)) {
        return errorResponse(c, new ApiError('not_found', NO_OAUTH_MESSAGE, { reason: 'no_oauth' }));
      }
      return errorResponse(c, new ApiError('not_found', `No route for ${c.req.method} ${c.req.path}.`));
    }
    c.header('Allow', allowed.join(', '));
    return errorResponse(
      c,
      new ApiError('method_not_allowed', `${c.req.method} is not allowed here; use ${allowed.join(' or ')}.`),
    );
  };
  app.notFound(noRoute);

  for (const op of operationList) {
    const handler = handlers[op.id as keyof typeof handlers] as unknown as Handler<OperationDef>;
    const status = op.status ?? 200;
    // The registry is data, so routes are registered in bulk; the per-operation types live in
    // HandlerMap, which the type checker holds every handler to.
    app.openapi(routeFor(op, middlewareFor(op) as MiddlewareHandler[], true), (async (c: Context<AppEnv>) => {
      const valid = c.req as unknown as { valid(target: string): unknown };
      const input: { params: unknown; query: unknown; body: unknown } = {
        params: op.params ? valid.valid('param') : undefined,
        query: op.query ? valid.valid('query') : undefined,
        body: undefined,
      };
      // What the audit trail may name: only what the schemas accepted, as far as they accepted it.
      c.set('validInput', input);
      input.body = op.body ? await validJsonBody(op, c) : undefined;
      const output = await handler({
        input,
        env: c.env,
        requestId: c.get('requestId'),
        clientIp: c.get('clientIp'),
        agent: c.get('agent'),
        admin: c.get('admin'),
        c,
      } as never);
      if (output instanceof Response) return output;
      if (!uncounted(c)) countEvents(op.id, output);
      return c.json(output as object, status);
    }) as never);
  }

  let document: ReturnType<typeof buildOpenApiDocument> | undefined;
  const serveDocument = (c: Context<AppEnv>) => {
    document ??= buildOpenApiDocument();
    return c.json(document);
  };
  app.get('/openapi.json', serveDocument);
  app.get(`${API_BASE}/openapi.json`, serveDocument);
  mountOperations(app);
  // Remote MCP over Streamable HTTP (worker/mcp.ts); not part of the operation registry.
  mountRemoteMcp(app);
  app.all(`${API_BASE}/*`, noRoute);
  return app;
}

/** Each operation's path as a pattern of its segments, with the methods it answers. */
const ROUTE_METHODS = (() => {
  const byPath = new Map<string, { pattern: RegExp; methods: Set<string> }>();
  for (const op of operationList) {
    const path = API_BASE + op.path;
    let entry = byPath.get(path);
    if (!entry) {
      const pattern = new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`);
      entry = { pattern, methods: new Set() };
      byPath.set(path, entry);
    }
    entry.methods.add(op.method.toUpperCase());
    if (op.method === 'get') entry.methods.add('HEAD');
  }
  byPath.set('/openapi.json', { pattern: /^\/openapi\.json$/, methods: new Set(['GET', 'HEAD']) });
  byPath.set(`${API_BASE}/openapi.json`, {
    pattern: new RegExp(`^${API_BASE}/openapi\\.json$`),
    methods: new Set(['GET', 'HEAD']),
  });
  return [...byPath.values()];
})();

/** The methods a path answers to (a 405 names them in Allow), or none for an unknown path. */
function methodsOf(path: string): string[] {
  const methods = new Set<string>();
  for (const route of ROUTE_METHODS) if (route.pattern.test(path)) for (const m of route.methods) methods.add(m);
  return [...methods].sort();
}
