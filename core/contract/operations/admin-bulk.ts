/**
 * Fleet-sized administration (docs/agent-lifecycle.md "Many agents at once"): one request acts on
 * many agents, each agent all-or-nothing, with a per-agent report; an import creates many agents
 * from a file's rows, all or none; a settings preview says what a lowered limit would delete.
 * Every list a request carries is bounded by the constants below.
 */
import { z } from '@hono/zod-openapi';
import { BULK_AGENTS_MAX, IMPORT_ROWS_MAX } from '../../lib/agent-import.js';
import { FIELD_LIMITS } from '../../lib/limits.js';
import { ERROR_CODES, ERROR_REASONS } from '../errors.js';
import { AGENT_NAME_PATTERN, Agent, AgentId, ApiKey, LimitsPatch } from '../models.js';
import { ADMIN_ERRORS, defineOperation } from '../registry.js';

const tags = ['admin'];

export { BULK_AGENTS_MAX, IMPORT_ROWS_MAX };

export const BULK_AGENT_ACTIONS = ['disable', 'enable', 'regenerate_key', 'revoke_key', 'delete'] as const;
export type BulkAgentAction = (typeof BULK_AGENT_ACTIONS)[number];

export const BulkAgentResult = z
  .object({
    agent_id: AgentId,
    name: z.string().optional().openapi({ description: 'The agent’s name (when it had one: not for an unknown ID).' }),
    status: z.enum(['done', 'pending', 'rejected']).openapi({
      description:
        'done: in force; pending: saved, and being pushed to the agent (retried until it lands); rejected: nothing changed for this agent (see error).',
    }),
    api_key: ApiKey.optional().openapi({
      description: 'regenerate_key, done or pending: the new key, shown this once.',
    }),
    error: z
      .object({
        code: z.enum(ERROR_CODES),
        reason: z.enum(ERROR_REASONS).optional(),
        message: z.string(),
      })
      .optional(),
  })
  .openapi('BulkAgentResult');

export const bulkAgents = defineOperation({
  id: 'bulkAgents',
  method: 'post',
  path: '/admin/agents/bulk',
  role: 'admin',
  summary: 'Disable, enable, issue new keys for, revoke the keys of, or delete many agents in one request',
  description:
    `At most ${BULK_AGENTS_MAX} distinct agent IDs. Each agent is all-or-nothing and reported on its own, in the ` +
    'order given: an unknown agent (not_found) or an agent that owns an active group (delete: conflict) is refused ' +
    'and the others go ahead. Each agent gets its own audit entry. regenerate_key answers each new key this once.',
  tags,
  body: z.object({
    action: z.enum(BULK_AGENT_ACTIONS),
    agent_ids: z
      .array(AgentId)
      .min(1)
      .max(BULK_AGENTS_MAX)
      .refine((ids) => new Set(ids).size === ids.length, {
        message: 'each agent at most once',
        params: { reason: 'duplicate_ids' },
      }),
  }),
  response: z.object({ results: z.array(BulkAgentResult) }),
  errors: ADMIN_ERRORS,
  cli: { command: 'admin agents bulk', positionals: ['action', 'agent_ids'] },
  mcp: false,
});

/** One row of an import as sent: loosely typed here, checked row by row so every bad row is named. */
// The document states each column's rule (those of POST /admin/agents), but the server checks
// the rows itself, so that a refused import names every bad row at once (`rows`), not the first.
export const ImportRow = z
  .object({
    name: z
      .string()
      .max(FIELD_LIMITS.description)
      .openapi({ minLength: 1, maxLength: FIELD_LIMITS.agent_name, pattern: AGENT_NAME_PATTERN.source }),
    host: z
      .string()
      .max(FIELD_LIMITS.description)
      .openapi({ minLength: 1, description: 'A host ID (hst_…) or a host name.' }),
    display_name: z
      .string()
      .max(FIELD_LIMITS.description)
      .optional()
      .openapi({ maxLength: FIELD_LIMITS.display_name, description: 'Empty: the name.' }),
    description: z
      .string()
      .max(FIELD_LIMITS.description * 2)
      .optional()
      .openapi({ maxLength: FIELD_LIMITS.description }),
  })
  .openapi('AgentImportRow');

export const importAgents = defineOperation({
  id: 'importAgents',
  method: 'post',
  path: '/admin/agents/import',
  role: 'admin',
  summary: 'Create many agents at once; all or nothing',
  description:
    `At most ${IMPORT_ROWS_MAX} rows. Every row is checked first (name format and length, the host by ID or name, ` +
    'a name taken on its host or repeated in the file); if any row is refused, nothing is created and the error ' +
    "(reason import_rows_refused; validation_failed when a row breaks a column's rule, conflict when every refused row " +
    'names an unknown host or a name already taken) lists every refused row in `rows`. Otherwise every agent is ' +
    'created, enabled, each with its API key, answered this once, in row order.',
  tags,
  body: z.object({ agents: z.array(ImportRow).min(1).max(IMPORT_ROWS_MAX) }),
  response: z.object({
    agents: z.array(
      z.object({
        agent: Agent,
        api_key: ApiKey,
        pending: z.boolean().openapi({
          description:
            "Always false: an import makes no agent's own object; each is made on the agent's first request " +
            'and fetches the account then, so the key works at once.',
        }),
      }),
    ),
  }),
  status: 201,
  errors: [...ADMIN_ERRORS, 'conflict'],
  // The CLI's `admin agents import FILE` (cli/commands/import.ts) reads CSV or JSON and calls this.
  cli: false,
  mcp: false,
});

export const SettingsImpact = z
  .object({
    channels: z.number().int().nonnegative().openapi({ description: 'Channels that would lose messages or files.' }),
    messages: z.object({ min: z.number().int().nonnegative(), max: z.number().int().nonnegative() }).openapi({
      description:
        'Messages that would be deleted: exact when min = max. They differ only when it depends on which old messages carry files.',
    }),
    files: z.object({ min: z.number().int().nonnegative(), max: z.number().int().nonnegative() }),
  })
  .openapi('SettingsImpact');

export const previewSettings = defineOperation({
  id: 'previewSettings',
  method: 'post',
  path: '/admin/settings/preview',
  role: 'admin',
  summary: 'What a settings change would delete, without changing anything',
  description:
    'Computed from the figures every channel reports to the channel catalog (the same as the overview), with ' +
    'one aggregate query: no channel is visited. A channel’s latest report may lag its last few sends.',
  tags,
  body: LimitsPatch,
  response: z.object({ deletes: SettingsImpact }),
  changesNothing: true,
  errors: ADMIN_ERRORS,
  cli: { command: 'admin settings preview' },
  mcp: false,
});
