import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

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

/**
 * The inbox index (inbox-index.ts): the channels this agent is in, and which of them may hold
 * unread deliveries for it. Written by channels through their outbox, read by every poll.
 */
export const channels = sqliteTable(
  'channels',
  {
    channelId: text('channel_id').primaryKey(),
    kind: text('kind').$type<'private' | 'group'>().notNull(),
    peerAgentId: text('peer_agent_id'),
    groupId: text('group_id'),
    name: text('name'),
    lastMessageAt: integer('last_message_at'),
    /** A hint: this channel may have unread deliveries for the agent. */
    pending: integer('pending', { mode: 'boolean' }).notNull(),
    /** Bumped by every pending note, so a clear based on an older read is refused. */
    gen: integer('gen').notNull(),
  },
  (t) => [index('channels_pending').on(t.pending, t.kind)],
);

/**
 * The agent's relation to each group it was ever invited to, as the group's outbox reported it
 * (inbox-index.ts): `active` groups also have a `channels` row, `pending` ones are invitations
 * (GET /groups), `gone` ones (left, dissolved) are kept so that a late, older note cannot bring a
 * membership back. `version` is the group's membership version of the note last applied.
 */
export const groupMemberships = sqliteTable(
  'group_memberships',
  {
    groupId: text('group_id').primaryKey(),
    state: text('state').$type<'active' | 'pending' | 'gone'>().notNull(),
    version: integer('version').notNull(),
    /** The `gen` of the channel row when it was last dropped, so a re-created row continues from it. */
    lastGen: integer('last_gen').notNull().default(0),
  },
  (t) => [index('group_memberships_state').on(t.state)],
);

/**
 * Recent refused requests that named this agent (rejections.ts): one row per reason and source
 * address, newest kept, at most REJECTION_ROWS. Never a key or any part of one.
 */
export const rejections = sqliteTable(
  'rejections',
  {
    reason: text('reason').$type<'wrong_key' | 'key_revoked' | 'agent_disabled' | 'wrong_address'>().notNull(),
    address: text('address').notNull(),
    firstAt: integer('first_at').notNull(),
    lastAt: integer('last_at').notNull(),
    /** Refusals counted for this row (a lower bound: the worker samples refused keys it checks itself). */
    count: integer('count').notNull(),
  },
  (t) => [primaryKey({ columns: [t.reason, t.address] }), index('rejections_last').on(t.lastAt)],
);
