import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** The agent's credentials and allowlist: a copy the registry keeps in sync (see sync()). */
export const account = sqliteTable('account', {
  agentId: text('agent_id').primaryKey(),
  name: text('name').notNull(),
  displayName: text('display_name').notNull(),
  hostId: text('host_id').notNull(),
  enabled: integer('enabled', { mode: 'boolean' }).notNull(),
  /** Keyed hash of the API key; null when revoked. */
  keyHash: text('key_hash'),
  /** Canonical exact addresses of the agent's host. */
  addresses: text('addresses', { mode: 'json' }).$type<string[]>().notNull(),
  /** The registry's change counter: an older snapshot never overwrites a newer one. */
  version: integer('version').notNull(),
});
