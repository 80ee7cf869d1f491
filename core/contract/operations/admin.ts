import { z } from '@hono/zod-openapi';
import { FIELD_LIMITS } from '../../lib/limits.js';
import {
  Agent,
  AgentId,
  AgentInput,
  ApiKey,
  Cursor,
  Host,
  HostId,
  HostInput,
  Limits,
  LimitsPatch,
  NullableTimestamp,
  PageLimit,
  Timestamp,
} from '../models.js';
import { ADMIN_ERRORS, defineOperation } from '../registry.js';

const tags = ['admin'];
const ok = z.object({ ok: z.literal(true) });

export const Credentials = z.object({
  username: z.string().min(1).max(FIELD_LIMITS.admin_username),
  password: z.string().min(1).max(FIELD_LIMITS.admin_password_max),
});

export const AdminSession = z.object({
  username: z.string(),
  expires_at: Timestamp,
});

export const adminLogin = defineOperation({
  id: 'adminLogin',
  method: 'post',
  path: '/admin/login',
  role: 'public',
  summary: 'Sign in as an administrator (sets the session cookie)',
  description: 'Repeated failures for one username or client address are throttled with retry_after_ms.',
  tags,
  body: Credentials,
  response: AdminSession,
  errors: ['unauthenticated', 'too_many_attempts'],
  cli: { command: 'admin login', secretFields: ['password'] },
  mcp: false,
});

export const adminLogout = defineOperation({
  id: 'adminLogout',
  method: 'post',
  path: '/admin/logout',
  role: 'admin',
  summary: 'Sign out: the session ends at once',
  tags,
  response: ok,
  errors: ADMIN_ERRORS,
  cli: { command: 'admin logout' },
  mcp: false,
});

export const adminSession = defineOperation({
  id: 'adminSession',
  method: 'get',
  path: '/admin/session',
  role: 'admin',
  summary: 'The current administrator session',
  tags,
  response: AdminSession,
  errors: ADMIN_ERRORS,
  cli: { command: 'admin whoami' },
  mcp: false,
});

export const SetupStatus = z.object({ needs_setup: z.boolean() });

export const adminSetupStatus = defineOperation({
  id: 'adminSetupStatus',
  method: 'get',
  path: '/admin/setup',
  role: 'public',
  summary: 'Whether the first administrator still has to be created',
  tags,
  response: SetupStatus,
  errors: [],
  cli: false,
  mcp: false,
});

export const adminSetup = defineOperation({
  id: 'adminSetup',
  method: 'post',
  path: '/admin/setup',
  role: 'public',
  summary: 'Create the first administrator with the one-time setup token the launcher printed',
  tags,
  body: z.object({
    token: z.string().min(1).max(256),
    username: z
      .string()
      .min(1)
      .max(FIELD_LIMITS.admin_username)
      .regex(/^[A-Za-z0-9._-]+$/),
    password: z
      .string()
      .min(FIELD_LIMITS.admin_password_min, `at least ${FIELD_LIMITS.admin_password_min} characters`)
      .max(FIELD_LIMITS.admin_password_max),
  }),
  response: AdminSession,
  status: 201,
  errors: ['unauthenticated', 'conflict', 'too_many_attempts'],
  cli: false,
  mcp: false,
});

// Hosts

const HostParams = z.object({ host_id: HostId });
const HostAnswer = z.object({ host: Host });

export const listHosts = defineOperation({
  id: 'listHosts',
  method: 'get',
  path: '/admin/hosts',
  role: 'admin',
  summary: 'List registered hosts',
  tags,
  query: z.object({ cursor: Cursor, limit: PageLimit }),
  response: z.object({
    hosts: z.array(Host),
    next_cursor: z.string().nullable(),
    agent_counts: z.record(z.string(), z.number().int().min(0)).openapi({
      description: 'How many agents are registered on each listed host, by host_id (so a list needs no agent list).',
    }),
  }),
  errors: ADMIN_ERRORS,
  cli: { command: 'admin hosts list' },
  mcp: false,
});

export const createHost = defineOperation({
  id: 'createHost',
  method: 'post',
  path: '/admin/hosts',
  role: 'admin',
  summary: 'Register a host with its exact allowed IP addresses',
  description:
    'Addresses are exact IPv4 or IPv6 addresses (no CIDR, no DNS names); ::ffff:a.b.c.d is stored as a.b.c.d.',
  tags,
  body: HostInput,
  response: HostAnswer,
  status: 201,
  errors: [...ADMIN_ERRORS, 'conflict'],
  cli: { command: 'admin hosts create' },
  mcp: false,
});

export const updateHost = defineOperation({
  id: 'updateHost',
  method: 'patch',
  path: '/admin/hosts/{host_id}',
  role: 'admin',
  summary: 'Change a host; new addresses apply to its agents at once',
  tags,
  params: HostParams,
  body: HostInput.partial()
    .refine((v) => Object.keys(v).length > 0, {
      message: 'name at least one field',
      params: { reason: 'empty_patch' },
    })
    .openapi({ minProperties: 1 }),
  response: HostAnswer,
  errors: [...ADMIN_ERRORS, 'not_found', 'conflict'],
  cli: { command: 'admin hosts update', positionals: ['host_id'] },
  mcp: false,
});

export const deleteHost = defineOperation({
  id: 'deleteHost',
  method: 'delete',
  path: '/admin/hosts/{host_id}',
  role: 'admin',
  summary: 'Delete a host that no agent uses',
  tags,
  params: HostParams,
  response: ok,
  errors: [...ADMIN_ERRORS, 'not_found', 'conflict'],
  cli: { command: 'admin hosts delete', positionals: ['host_id'] },
  mcp: false,
});

// Agents

const AgentParams = z.object({ agent_id: AgentId });
const AgentAnswer = z.object({ agent: Agent });

/** The agent list's search and sort (hundreds of agents, one page at a time). */
export const AGENT_SORTS = ['name', 'host', 'last_access', 'status'] as const;
export const AgentListQuery = z.object({
  host_id: HostId.optional(),
  q: z.string().max(FIELD_LIMITS.agent_search).optional().openapi({
    description:
      'Case-insensitive words, in any order, each in the name, display name, description or host name, or the whole agent ID.',
  }),
  sort: z.enum(AGENT_SORTS).optional().openapi({
    description: 'name (default), host (host name), last_access (never first) or status (disabled first).',
  }),
  order: z.enum(['asc', 'desc']).optional().openapi({ description: 'asc (default) or desc.' }),
  last_access: z
    .enum(['never', 'over_a_day', 'over_an_hour', 'active'])
    .optional()
    .openapi({
      description:
        'Only agents last seen never, over a day ago, over an hour ago (within the day) or within the hour: the ' +
        'buckets of GET /admin/fleet.',
    }),
  key_state: z
    .enum(['active', 'revoked', 'none'])
    .optional()
    .openapi({ description: 'Only agents with a working key, a revoked key, or no key.' }),
  cursor: Cursor,
  limit: PageLimit,
});

/** An agent's unread deliveries over all its channels, as the channels last reported them. */
const AgentBacklog = z
  .object({
    unread: z.number().int().nonnegative().openapi({ description: 'Not ACKed yet, leased and parked included.' }),
    leased: z.number().int().nonnegative(),
    parked: z.number().int().nonnegative(),
    oldest_unread_at: NullableTimestamp,
  })
  .openapi('AgentBacklog');

export const listAgents = defineOperation({
  id: 'listAgents',
  method: 'get',
  path: '/admin/agents',
  role: 'admin',
  summary: 'List agent accounts, enabled or not',
  tags,
  description:
    'Search (q), filter (host_id, last_access, key_state), sort and page through agents. A cursor belongs to the ' +
    'search, sort and order that issued it. total counts every agent that matches, across all pages.',
  query: AgentListQuery,
  response: z.object({
    agents: z.array(Agent),
    next_cursor: z.string().nullable(),
    total: z.number().int().openapi({ description: 'Agents matching the filters and q, across all pages.' }),
    backlog: z.record(AgentId, AgentBacklog).openapi({
      description:
        "Each listed agent's inbox backlog by agent ID, from the channel catalog (as each channel last reported " +
        'it: within about 30 s of a send, 5 s of a claim or ACK); an agent with nothing unread has zeros.',
    }),
  }),
  errors: ADMIN_ERRORS,
  cli: { command: 'admin agents list' },
  mcp: false,
});

export const createAgent = defineOperation({
  id: 'createAgent',
  method: 'post',
  path: '/admin/agents',
  role: 'admin',
  summary: 'Create an agent account on a host; the API key is returned this once',
  tags,
  body: AgentInput,
  response: z.object({ agent: Agent, api_key: ApiKey }),
  status: 201,
  errors: [...ADMIN_ERRORS, 'not_found', 'conflict'],
  cli: { command: 'admin agents create' },
  mcp: false,
});

export const updateAgent = defineOperation({
  id: 'updateAgent',
  method: 'patch',
  path: '/admin/agents/{agent_id}',
  role: 'admin',
  summary: 'Rename, move, enable or disable an agent; disabling takes effect at once',
  tags,
  params: AgentParams,
  body: AgentInput.partial()
    .refine((v) => Object.keys(v).length > 0, {
      message: 'name at least one field',
      params: { reason: 'empty_patch' },
    })
    .openapi({ minProperties: 1 }),
  response: AgentAnswer,
  errors: [...ADMIN_ERRORS, 'not_found', 'conflict'],
  cli: { command: 'admin agents update', positionals: ['agent_id'] },
  mcp: false,
});

export const deleteAgent = defineOperation({
  id: 'deleteAgent',
  method: 'delete',
  path: '/admin/agents/{agent_id}',
  role: 'admin',
  summary: 'Delete an agent: its key stops working at once and it leaves the directory and every channel',
  description:
    'Its memberships, invitations, deliveries and claims go; messages and files it sent stay in the other ' +
    "participants' history under retention. An agent that owns an active group is refused (conflict): " +
    'reassign the owner or dissolve the group first. Agent IDs are never reused.',
  tags,
  params: AgentParams,
  response: ok,
  errors: [...ADMIN_ERRORS, 'not_found', 'conflict', 'unavailable'],
  cli: { command: 'admin agents delete', positionals: ['agent_id'] },
  mcp: false,
});

export const regenerateAgentKey = defineOperation({
  id: 'regenerateAgentKey',
  method: 'post',
  path: '/admin/agents/{agent_id}/key',
  role: 'admin',
  summary: 'Issue a new API key; the old one stops working at once',
  tags,
  params: AgentParams,
  response: z.object({ api_key: ApiKey }),
  errors: [...ADMIN_ERRORS, 'not_found'],
  cli: { command: 'admin agents regenerate-key', positionals: ['agent_id'] },
  mcp: false,
});

export const revokeAgentKey = defineOperation({
  id: 'revokeAgentKey',
  method: 'delete',
  path: '/admin/agents/{agent_id}/key',
  role: 'admin',
  summary: 'Revoke the API key; the agent cannot authenticate until a new key is issued',
  tags,
  params: AgentParams,
  response: ok,
  errors: [...ADMIN_ERRORS, 'not_found'],
  cli: { command: 'admin agents revoke-key', positionals: ['agent_id'] },
  mcp: false,
});

// Settings and cleanup

export const CleanupStatus = z
  .object({
    state: z.enum(['idle', 'running', 'failed']),
    pending_jobs: z.number().int(),
    failed_jobs: z.number().int(),
    channels_total: z.number().int(),
    channels_done: z.number().int(),
    uploads_in_progress: z
      .number()
      .int()
      .openapi({ description: 'Uploads being staged, including those of dead requests until their lease expires.' }),
    last_error: z.string().nullable(),
    last_completed_at: NullableTimestamp,
  })
  .openapi('CleanupStatus');

export const SettingsAnswer = z.object({
  settings: Limits,
  settings_revision: z.number().int(),
  cleanup: CleanupStatus,
});

export const getSettings = defineOperation({
  id: 'getSettings',
  method: 'get',
  path: '/admin/settings',
  role: 'admin',
  summary: 'The global limits and the cleanup state',
  tags,
  response: SettingsAnswer,
  errors: ADMIN_ERRORS,
  cli: { command: 'admin settings get' },
  mcp: false,
});

export const updateSettings = defineOperation({
  id: 'updateSettings',
  method: 'patch',
  path: '/admin/settings',
  role: 'admin',
  summary: 'Change global limits; lowering one starts retroactive cleanup',
  description:
    'Counts and sizes are positive integers, sizes in bytes (MB = 1,000,000 bytes); claim_seconds is 1..86400.',
  tags,
  body: LimitsPatch,
  response: SettingsAnswer,
  errors: ADMIN_ERRORS,
  cli: { command: 'admin settings set' },
  mcp: false,
});

export const getCleanup = defineOperation({
  id: 'getCleanup',
  method: 'get',
  path: '/admin/cleanup',
  role: 'admin',
  summary: 'Retention cleanup and deletion-job health',
  tags,
  response: CleanupStatus,
  errors: ADMIN_ERRORS,
  cli: { command: 'admin cleanup' },
  mcp: false,
});
