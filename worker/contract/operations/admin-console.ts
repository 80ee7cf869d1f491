import { z } from '@hono/zod-openapi';
import { Resources } from '../models.js';
import { ADMIN_ERRORS, defineOperation } from '../registry.js';

const tags = ['admin'];

/**
 * What the overview counts. Counts of things a later engine owns (channels, messages, files)
 * are optional: they appear once that engine can answer them, so the console never shows a zero
 * it did not measure.
 */
export const OverviewCounts = z
  .object({
    hosts: z.number().int().nonnegative(),
    agents: z.number().int().nonnegative(),
    enabled_agents: z.number().int().nonnegative(),
    channels: z.number().int().nonnegative().optional(),
    private_channels: z.number().int().nonnegative().optional(),
    group_channels: z.number().int().nonnegative().optional(),
    messages: z.number().int().nonnegative().optional(),
    files: z.number().int().nonnegative().optional(),
    cleanup_pending: z.number().int().nonnegative().optional(),
    cleanup_failed: z.number().int().nonnegative().optional(),
  })
  .openapi('OverviewCounts');

export const Overview = z
  .object({
    counts: OverviewCounts,
    resources: Resources,
    generated_at: z.iso.datetime({ precision: 3 }),
  })
  .openapi('Overview');

export const getOverview = defineOperation({
  id: 'getOverview',
  method: 'get',
  path: '/admin/overview',
  role: 'admin',
  summary: 'Counts and server resources (CPU, memory, disk, GPU) for the console overview',
  description:
    'Self-hosted, resources come from the launcher (operating-system interfaces, no extra libraries). ' +
    'A metric the server cannot read (on Cloudflare Workers, or a machine without a GPU) is ' +
    '{available:false, reason}.',
  tags,
  response: Overview,
  errors: ADMIN_ERRORS,
  cli: { command: 'admin overview' },
  mcp: false,
});
