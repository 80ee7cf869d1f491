import type * as ops from '../../core/contract/operations/metrics.js';
import { registry } from '../../core/stubs.js';
import type { Handler } from './types.js';

export const createMetricsTokenHandler: Handler<typeof ops.createMetricsToken> = async ({ env }) => ({
  token: await registry(env).createMetricsToken(),
});

export const deleteMetricsTokenHandler: Handler<typeof ops.deleteMetricsToken> = async ({ env }) => ({
  ok: true as const,
  was_on: await registry(env).deleteMetricsToken(),
});
