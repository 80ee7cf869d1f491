/**
 * Administrator accounts, their sessions, and the audit log of what administrators did
 * (docs/design/authentication.md, docs/audit-log.md).
 */
import { z } from '@hono/zod-openapi';
import { FIELD_LIMITS } from '../../lib/limits.js';
import { Cursor, PageLimit, Timestamp } from '../models.js';
import { ADMIN_ERRORS, defineOperation } from '../registry.js';

const tags = ['admin'];
const ok = z.object({ ok: z.literal(true) });

export const AdminUsername = z
  .string()
  .min(1)
  .max(FIELD_LIMITS.admin_username)
  .regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, dot, dash and underscore only');

/** The same bounds as the first administrator's password (adminSetup, the launcher). */
export const AdminPassword = z
  .string()
  .min(FIELD_LIMITS.admin_password_min, `at least ${FIELD_LIMITS.admin_password_min} characters`)
  .max(FIELD_LIMITS.admin_password_max);

export const AdminAccount = z
  .object({
    username: z.string(),
    enabled: z.boolean(),
    created_at: Timestamp,
    active_sessions: z.number().int(),
  })
  .openapi('AdminAccount');

export const AdminSessionInfo = z
  .object({
    session_id: z.string().openapi({ description: 'Names the session; not its secret, and no use as a cookie.' }),
    username: z.string(),
    created_at: Timestamp,
    last_seen_at: Timestamp,
    expires_at: Timestamp,
    client_address: z.string(),
    user_agent: z.string(),
    current: z.boolean().openapi({ description: 'The session of this request.' }),
  })
  .openapi('AdminSessionInfo');

const AdminParams = z.object({ username: AdminUsername });
const AdminAnswer = z.object({ admin: AdminAccount });

export const listAdmins = defineOperation({
  id: 'listAdmins',
  method: 'get',
  path: '/admin/admins',
  role: 'admin',
  summary: 'List administrator accounts',
  tags,
  response: z.object({ admins: z.array(AdminAccount) }),
  errors: ADMIN_ERRORS,
  cli: { command: 'admin admins list' },
  mcp: false,
});

export const createAdmin = defineOperation({
  id: 'createAdmin',
  method: 'post',
  path: '/admin/admins',
  role: 'admin',
  summary: 'Create another administrator with a username and an initial password',
  tags,
  body: z.object({ username: AdminUsername, password: AdminPassword }),
  response: AdminAnswer,
  status: 201,
  errors: [...ADMIN_ERRORS, 'conflict'],
  cli: { command: 'admin admins create', positionals: ['username'], secretFields: ['password'] },
  mcp: false,
});

export const updateAdmin = defineOperation({
  id: 'updateAdmin',
  method: 'patch',
  path: '/admin/admins/{username}',
  role: 'admin',
  summary: 'Enable or disable an administrator; disabling ends their sessions at once',
  description: 'The last enabled administrator cannot be disabled (conflict).',
  tags,
  params: AdminParams,
  body: z.object({ enabled: z.boolean() }),
  response: AdminAnswer,
  errors: [...ADMIN_ERRORS, 'not_found', 'conflict'],
  cli: { command: 'admin admins update', positionals: ['username'] },
  mcp: false,
});

export const deleteAdmin = defineOperation({
  id: 'deleteAdmin',
  method: 'delete',
  path: '/admin/admins/{username}',
  role: 'admin',
  summary: 'Delete an administrator and end their sessions',
  description: 'The last enabled administrator cannot be deleted (conflict), by themselves or anyone.',
  tags,
  params: AdminParams,
  response: ok,
  errors: [...ADMIN_ERRORS, 'not_found', 'conflict'],
  cli: { command: 'admin admins delete', positionals: ['username'] },
  mcp: false,
});

export const changeAdminPassword = defineOperation({
  id: 'changeAdminPassword',
  method: 'post',
  path: '/admin/password',
  role: 'admin',
  summary: "Change the signed-in administrator's own password",
  description:
    'The current password is required (a wrong one answers forbidden with field current_password, ' +
    'and counts toward sign-in throttling). Other sessions of this administrator end unless ' +
    'end_other_sessions is false; this session stays.',
  tags,
  body: z.object({
    current_password: z.string().min(1).max(FIELD_LIMITS.admin_password_max),
    new_password: AdminPassword,
    end_other_sessions: z.boolean().default(true),
  }),
  response: z.object({ ok: z.literal(true), ended_sessions: z.number().int() }),
  errors: [...ADMIN_ERRORS, 'too_many_attempts'],
  cli: { command: 'admin password', secretFields: ['current_password', 'new_password'] },
  mcp: false,
});

export const listAdminSessions = defineOperation({
  id: 'listAdminSessions',
  method: 'get',
  path: '/admin/sessions',
  role: 'admin',
  summary: 'Active administrator sessions, newest first (all administrators, or one)',
  tags,
  query: z.object({ username: AdminUsername.optional() }),
  response: z.object({ sessions: z.array(AdminSessionInfo) }),
  errors: ADMIN_ERRORS,
  cli: { command: 'admin sessions list' },
  mcp: false,
});

export const endAdminSession = defineOperation({
  id: 'endAdminSession',
  method: 'delete',
  path: '/admin/sessions/{session_id}',
  role: 'admin',
  summary: 'End an administrator session at once; ending your own signs you out',
  tags,
  params: z.object({ session_id: z.string().regex(/^ses_[A-Za-z0-9_-]{1,64}$/) }),
  response: z.object({ ok: z.literal(true), signed_out: z.boolean() }),
  errors: [...ADMIN_ERRORS, 'not_found'],
  cli: { command: 'admin sessions end', positionals: ['session_id'] },
  mcp: false,
});

// The audit log

/** One field an administrator's action changed; values as short text (lists joined with ", "). */
export const AuditChange = z
  .object({
    field: z.string().openapi({ description: 'The field: a settings key, or an agent or host field.' }),
    old: z.string().nullable(),
    new: z.string().nullable(),
  })
  .openapi('AuditChange');

export const AuditEntry = z
  .object({
    id: z.number().int(),
    at: Timestamp,
    admin: z.string().nullable().openapi({ description: 'Null: a failed sign-in naming no administrator.' }),
    action: z.string().openapi({ description: 'The operation ID, e.g. createAgent or adminLogin.' }),
    targets: z.array(z.string()).openapi({ description: 'The IDs the action named (path, body and answer IDs).' }),
    client_address: z.string(),
    outcome: z.string().openapi({ description: '`ok`, or the error code the request answered.' }),
    request_id: z.string().openapi({ description: 'For a count of refused sign-ins: the first one.' }),
    count: z
      .number()
      .int()
      .min(1)
      .openapi({
        description:
          'How many requests this entry stands for: 1, or for refused sign-ins the count from one address ' +
          'for one account within an hour, between `at` and `last_at` (throttled attempts are not counted).',
      }),
    last_at: Timestamp.openapi({ description: 'The latest request counted; `at` for a single entry.' }),
    names: z.record(z.string(), z.string()).openapi({
      description:
        'The name of each target that had one when the entry was written (agents, hosts; a deleted ' +
        'agent or host by the name it had), by ID. Empty when none had.',
    }),
    changes: z.array(AuditChange).openapi({
      description:
        'What the action changed, field by field: old and new value, for settings, agent and host ' +
        'changes. Empty for other actions and for a change that changed nothing.',
    }),
  })
  .openapi('AuditEntry');

export const listAuditLog = defineOperation({
  id: 'listAuditLog',
  method: 'get',
  path: '/admin/audit',
  role: 'admin',
  summary: 'Administrator actions, newest first, filtered and paged',
  description:
    'Every state-changing admin operation and every sign-in, kept 90 days and at most 100,000 entries ' +
    '(docs/audit-log.md). Never bodies, passwords or keys.',
  tags,
  query: z.object({
    admin: AdminUsername.optional(),
    action: z.string().max(64).optional(),
    target: z.string().max(128).optional(),
    since: Timestamp.optional(),
    until: Timestamp.optional(),
    cursor: Cursor,
    limit: PageLimit,
  }),
  response: z.object({ entries: z.array(AuditEntry), next_cursor: z.string().nullable() }),
  errors: ADMIN_ERRORS,
  cli: { command: 'admin audit' },
  mcp: false,
});
