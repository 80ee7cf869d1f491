import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * The administrators' list of groups: a copy of each group channel's metadata and membership,
 * pushed by the channel's outbox after every change. The channel stays the source of truth; a
 * snapshot carries the channel's membership version, so an older one never overwrites a newer one.
 */
export const groups = sqliteTable(
  'groups',
  {
    groupId: text('group_id').primaryKey(),
    name: text('name').notNull(),
    ownerId: text('owner_id').notNull(),
    /** `dissolved` rows stay as tombstones (never listed) so a late, older snapshot cannot revive them. */
    status: text('status').$type<'active' | 'dissolved'>().notNull(),
    members: text('members', { mode: 'json' }).$type<{ agent_id: string; state: 'active' | 'pending' }[]>().notNull(),
    memberCount: integer('member_count').notNull(),
    pendingCount: integer('pending_count').notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    version: integer('version').notNull(),
  },
  (t) => [index('groups_listing').on(t.status, t.createdAt, t.groupId), index('groups_owner').on(t.ownerId)],
);

/** Who is in which group (members and pending invitees), for the participant filter. */
export const groupMembers = sqliteTable(
  'group_members',
  {
    groupId: text('group_id').notNull(),
    agentId: text('agent_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.groupId, t.agentId] }), index('group_members_agent').on(t.agentId)],
);
