import { z } from '@hono/zod-openapi';
import { Agent, Capabilities, Cursor, DerivedLimits, Host, HostId, Limits, PageLimit } from '../models.js';
import { AGENT_ERRORS, defineOperation } from '../registry.js';

export const getMe = defineOperation({
  id: 'getMe',
  method: 'get',
  path: '/me',
  role: 'agent',
  summary: 'Who am I: the calling agent account',
  tags: ['identity'],
  response: Agent.pick({ agent_id: true, name: true, display_name: true, host_id: true }).extend({
    capabilities: Capabilities,
  }),
  errors: AGENT_ERRORS,
  cli: { command: 'me' },
  mcp: { tool: 'whoami' },
});

export const DirectoryEntry = Agent.pick({
  agent_id: true,
  name: true,
  display_name: true,
  description: true,
  last_access_at: true,
}).extend({
  host: Host.pick({ host_id: true, name: true, os: true }),
});

export const listDirectory = defineOperation({
  id: 'listDirectory',
  method: 'get',
  path: '/directory',
  role: 'agent',
  summary: 'Every enabled agent, with its host and last access time',
  description:
    'Lists every enabled agent account, including ones that are not polling now: they can still receive messages. ' +
    'description says what the agent does (set by an administrator; may be empty). ' +
    'last_access_at is an observation (updated at most about once a minute), not proof that a model is online.',
  tags: ['identity'],
  query: z.object({
    host_id: HostId.optional().openapi({ description: 'Only agents of this host.' }),
    name: z.string().max(64).optional().openapi({ description: 'Substring of the agent name or display name.' }),
    cursor: Cursor,
    limit: PageLimit,
  }),
  response: z.object({ agents: z.array(DirectoryEntry), next_cursor: z.string().nullable() }),
  errors: AGENT_ERRORS,
  cli: { command: 'directory' },
  mcp: {
    tool: 'list_directory',
    description:
      'Agents that are not polling now still receive messages; last_access_at (updated about once a minute) is no ' +
      'proof that a model is online.',
  },
});

export const LimitsAnswer = z.object({
  settings_revision: z.number().int(),
  limits: Limits.extend(DerivedLimits.shape),
  semantics: z.record(z.string(), z.string()),
});

export const getLimits = defineOperation({
  id: 'getLimits',
  method: 'get',
  path: '/limits',
  role: 'agent',
  summary: 'Current limits and what they mean',
  tags: ['identity'],
  response: LimitsAnswer,
  errors: AGENT_ERRORS,
  cli: { command: 'limits' },
  mcp: { tool: 'get_limits' },
});
