/**
 * The `/metrics` scrape token (api-v1.md "Operations"): metrics are off until an administrator
 * creates one, and a new token replaces the previous one.
 */
import { extendZodWithOpenApi, z } from '@hono/zod-openapi';
import { ADMIN_ERRORS, defineOperation } from '../registry.js';

extendZodWithOpenApi(z); // as in models.ts: this module imports no model

const tags = ['admin'];

export const MetricsTokenCreated = z
  .object({
    token: z.string().openapi({
      description: 'The scrape token, shown only now: send it as `Authorization: Bearer <token>` to GET /metrics.',
    }),
  })
  .openapi('MetricsTokenCreated');

export const createMetricsToken = defineOperation({
  id: 'createMetricsToken',
  method: 'post',
  path: '/admin/metrics-token',
  role: 'admin',
  summary: 'Turn metrics on with a new scrape token',
  description: 'Answers a new token for GET /metrics, shown once. Any previous token stops working at once.',
  tags,
  response: MetricsTokenCreated,
  errors: [...ADMIN_ERRORS],
  cli: { command: 'admin metrics-token create' },
  mcp: false,
});

export const deleteMetricsToken = defineOperation({
  id: 'deleteMetricsToken',
  method: 'delete',
  path: '/admin/metrics-token',
  role: 'admin',
  summary: 'Turn metrics off',
  description: 'Deletes the scrape token: GET /metrics answers 404 until a new token is created.',
  tags,
  response: z.object({ ok: z.literal(true), was_on: z.boolean() }),
  errors: [...ADMIN_ERRORS],
  cli: { command: 'admin metrics-token delete' },
  mcp: false,
});
