import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import type { FieldChange } from '../../core/domain/audit-changes.js';

export const hosts = sqliteTable('hosts', {
  hostId: text('host_id').primaryKey(),
  name: text('name').notNull().unique(),
  addresses: text('addresses', { mode: 'json' }).$type<string[]>().notNull(),
  os: text('os').notNull().default(''),
  description: text('description').notNull().default(''),
  createdAt: text('created_at').notNull(),
});

export const agents = sqliteTable(
  'agents',
  {
    agentId: text('agent_id').primaryKey(),
    name: text('name').notNull(),
    displayName: text('display_name').notNull(),
    /** What the agent does, set by an administrator and shown to agents in the directory. */
    description: text('description').notNull().default(''),
    hostId: text('host_id')
      .notNull()
      .references(() => hosts.hostId),
    enabled: integer('enabled', { mode: 'boolean' }).notNull(),
    keyHash: text('key_hash'),
    /** The visible, non-secret start of the active key (api-key.ts keyPrefix); null without one. */
    keyPrefix: text('key_prefix'),
    keyIssuedAt: text('key_issued_at'),
    /** Set when an administrator revokes the key, so the console can say "revoked", not "none". */
    keyRevokedAt: text('key_revoked_at'),
    createdAt: text('created_at').notNull(),
    lastAccessAt: text('last_access_at'),
    /** Source address of the access recorded in last_access_at (reported with it by the AgentDO). */
    lastAccessAddress: text('last_access_address'),
    /** Bumped on every change that the agent's own Durable Object must learn. */
    version: integer('version').notNull().default(1),
  },
  (t) => [uniqueIndex('agents_host_name').on(t.hostId, t.name), index('agents_name').on(t.name)],
);

/** Agents whose Durable Object copy is behind (a transactional outbox, drained by sync/alarm). */
export const agentSync = sqliteTable('agent_sync', {
  agentId: text('agent_id').primaryKey(),
  attempts: integer('attempts').notNull().default(0),
  lastError: text('last_error'),
});

export const settings = sqliteTable('settings', {
  id: integer('id').primaryKey(),
  limits: text('limits', { mode: 'json' }).notNull(),
  revision: integer('revision').notNull(),
  updatedAt: text('updated_at').notNull(),
});

export const admins = sqliteTable('admins', {
  username: text('username').primaryKey(),
  passwordHash: text('password_hash').notNull(),
  salt: text('salt').notNull(),
  iterations: integer('iterations').notNull(),
  createdAt: text('created_at').notNull(),
  /** A disabled administrator cannot sign in; disabling ends their sessions (admin-accounts.ts). */
  disabled: integer('disabled', { mode: 'boolean' }).notNull().default(false),
});

export const adminSessions = sqliteTable('admin_sessions', {
  tokenHash: text('token_hash').primaryKey(),
  username: text('username').notNull(),
  createdAt: integer('created_at').notNull(),
  lastSeenAt: integer('last_seen_at').notNull(),
  /** Where and with what the session was opened, for the session list (empty for older sessions). */
  clientAddress: text('client_address').notNull().default(''),
  userAgent: text('user_agent').notNull().default(''),
});

/**
 * Failed sign-ins for throttling (durable-objects/registry/throttle.ts): scope `ip` and `setup`
 * per source address key, scope `user` per username.
 */
export const loginFailures = sqliteTable(
  'login_failures',
  {
    scope: text('scope').notNull(),
    subject: text('subject').notNull(),
    failures: integer('failures').notNull(),
    windowStart: integer('window_start').notNull(),
    lastFailureAt: integer('last_failure_at').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.scope, t.subject] }), index('login_failures_last').on(t.lastFailureAt)],
);

/** Source address keys each administrator signed in from recently: they skip the account delay. */
export const adminKnownAddresses = sqliteTable(
  'admin_known_addresses',
  {
    username: text('username').notNull(),
    addressKey: text('address_key').notNull(),
    lastSuccessAt: integer('last_success_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.username, t.addressKey] })],
);

/** The one-time first-run setup token (hashed), while no administrator exists. */
export const setupTokens = sqliteTable('setup_tokens', {
  tokenHash: text('token_hash').primaryKey(),
  createdAt: integer('created_at').notNull(),
});

/**
 * Deleted agents whose removal is not finished (an outbox, drained by the delete request and then
 * by alarm; durable-objects/registry/agent-deletion.ts): their own object must drop the key, and
 * every channel they were in must drop their memberships and deliveries.
 */
export const agentDeletions = sqliteTable('agent_deletions', {
  agentId: text('agent_id').primaryKey(),
  deletedAt: text('deleted_at').notNull(),
  attempts: integer('attempts').notNull().default(0),
  lastError: text('last_error'),
});

/**
 * Administrator actions (durable-objects/registry/audit-log.ts): who, which operation on which
 * IDs, from where, with what outcome; never a body, so never a secret. Pruned by age and count.
 */
export const auditLog = sqliteTable(
  'audit_log',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    at: integer('at').notNull(),
    /** The administrator's username; null for a failed sign-in to an account that does not exist. */
    admin: text('admin'),
    action: text('action').notNull(),
    targets: text('targets', { mode: 'json' }).$type<string[]>().notNull(),
    clientAddress: text('client_address').notNull(),
    outcome: text('outcome').notNull(),
    requestId: text('request_id').notNull(),
    /**
     * Refused sign-ins are counted, not written one by one: one row per action, outcome, address
     * and account per window (`aggKey`), `count` of them between `at` and `lastAt`. Null `aggKey`:
     * an ordinary entry, `count` 1.
     */
    count: integer('count').notNull().default(1),
    lastAt: integer('last_at'),
    aggKey: text('agg_key'),
    /** The targets' names when the entry was written (by ID); null: none (and every entry before 0009). */
    names: text('names', { mode: 'json' }).$type<Record<string, string>>(),
    /** Settings, agent and host changes: each field's old and new value (core/domain/audit-changes.ts). */
    changes: text('changes', { mode: 'json' }).$type<FieldChange[]>(),
  },
  (t) => [
    index('audit_log_at').on(t.at),
    index('audit_log_admin').on(t.admin, t.id),
    uniqueIndex('audit_log_agg_key').on(t.aggKey),
  ],
);

/**
 * The `/metrics` scrape token (hashed), while metrics are on: at most one row (id 1). Creating a
 * new token replaces the old one; deleting it turns metrics off.
 */
export const metricsToken = sqliteTable('metrics_token', {
  id: integer('id').primaryKey(),
  tokenHash: text('token_hash').notNull(),
  createdAt: integer('created_at').notNull(),
});

/**
 * Refused requests that named an agent, as the agents' objects report them (refusal-counts.ts):
 * one row per agent, reason, source address and minute, kept for a day, for the fleet view's
 * windows and top lists.
 */
export const refusalCounts = sqliteTable(
  'refusal_counts',
  {
    agentId: text('agent_id').notNull(),
    reason: text('reason').$type<'wrong_key' | 'key_revoked' | 'agent_disabled' | 'wrong_address'>().notNull(),
    address: text('address').notNull(),
    /** Minutes since the epoch of the refusals counted here. */
    minute: integer('minute').notNull(),
    count: integer('count').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.agentId, t.reason, t.address, t.minute] }),
    index('refusal_counts_minute').on(t.minute),
  ],
);

/** Every refusal ever reported, by reason: the metrics' counter (never pruned). */
export const refusalTotals = sqliteTable('refusal_totals', {
  reason: text('reason').primaryKey(),
  count: integer('count').notNull(),
});
