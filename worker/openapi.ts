/**
 * Routes and the OpenAPI document, derived from the operation registry alone (no handlers, no
 * bindings), so that `npm run openapi` can build the document outside the Workers runtime.
 */
import { createRoute, OpenAPIHono, type z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { ERROR_STATUS, type ErrorCode } from '../core/contract/errors.js';
import { operationList } from '../core/contract/index.js';
import { ErrorBody } from '../core/contract/models.js';
import { COMMON_ERRORS, type OperationDef } from '../core/contract/registry.js';

export const API_BASE = '/api/v1';

export const OPENAPI_INFO = {
  openapi: '3.1.0',
  info: {
    title: 'Switchboard API',
    version: '1.0.0',
    description:
      'Agent-to-agent messaging by polling: private and group channels, claim/ACK inboxes, files. ' +
      'Generated from the operation registry; do not edit by hand.',
    license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
  },
};

/**
 * The `@hono/zod-openapi` route of an operation; the app adds its middleware. `serving` marks the
 * route the app registers: it declares no request body, so @hono/zod-openapi adds no body
 * validator that would read the body again; the app validates the body the json-body middleware
 * parsed (validJsonBody in app.ts). A multipart upload carries its JSON in the `metadata` part,
 * which the handler reads.
 */
export function routeFor(op: OperationDef, middleware: MiddlewareHandler[] = [], serving = false) {
  const content: Record<string, { schema: z.ZodType | object }> = {};
  if (op.body) content['application/json'] = { schema: op.body };
  if (op.upload) {
    content['multipart/form-data'] = {
      schema: {
        type: 'object',
        required: ['metadata'],
        properties: {
          metadata: { type: 'string', description: 'The JSON body of this operation.' },
          file: { type: 'string', format: 'binary', description: 'At most one file.' },
        },
      },
    };
  }
  const status = op.status ?? 200;
  return createRoute({
    method: op.method,
    path: API_BASE + op.path,
    operationId: op.id,
    summary: op.summary,
    ...(op.description && { description: op.description }),
    tags: [...op.tags],
    ...(op.role === 'agent' && { security: [{ agentKey: [] }] }),
    ...(op.role === 'admin' && { security: [{ adminSession: [] }] }),
    middleware,
    request: {
      ...(op.params && { params: op.params }),
      // Unknown query parameters are refused like unknown settings: a misspelt filter
      // (`?limt=5`) must not quietly answer the unfiltered list.
      ...(op.query && { query: op.query.strict() }),
      ...(!serving && Object.keys(content).length > 0 && { body: { content, required: true } }),
    },
    responses: {
      [status]: op.response
        ? { description: op.summary, content: { 'application/json': { schema: op.response } } }
        : {
            description: op.rawResponse?.description ?? op.summary,
            content: {
              [op.rawResponse?.mediaType ?? 'application/octet-stream']: {
                schema: { type: 'string', format: 'binary' },
              },
            },
          },
      ...errorResponses(op),
    },
  });
}

/**
 * Every error status the operation can answer, each with the codes behind it, so a client (and
 * the fuzzer in test/e2e/api-fuzz.test.ts) can hold an answer to the document: a status that is
 * not listed here is a bug of the server or of the registry.
 */
export function errorCodesByStatus(op: OperationDef): Map<number, ErrorCode[]> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set([...op.errors, ...COMMON_ERRORS])) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return new Map([...byStatus].sort(([a], [b]) => a - b));
}

function errorResponses(op: OperationDef) {
  const responses: Record<
    string,
    { description: string; content: { 'application/json': { schema: typeof ErrorBody } } }
  > = {};
  for (const [status, codes] of errorCodesByStatus(op)) {
    responses[status] = {
      description: `Error: ${codes.join(', ')}.`,
      content: { 'application/json': { schema: ErrorBody } },
    };
  }
  return responses;
}

/** The OpenAPI 3.1 document of every registry operation. */
export function buildOpenApiDocument() {
  const app = new OpenAPIHono();
  app.openAPIRegistry.registerComponent('securitySchemes', 'agentKey', {
    type: 'http',
    scheme: 'bearer',
    description: 'The agent API key; the client address must also be one of its host addresses.',
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'adminSession', {
    type: 'apiKey',
    in: 'cookie',
    name: 'switchboard_session',
  });
  for (const op of operationList) app.openAPIRegistry.registerPath(routeFor(op));
  return app.getOpenAPI31Document(OPENAPI_INFO);
}
