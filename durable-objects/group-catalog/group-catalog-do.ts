import { DurableObject } from 'cloudflare:workers';
import { and, desc, eq, exists, lt, or, type SQL } from 'drizzle-orm';
import type { GroupView } from '../../core/domain/groups.js';
import type { Env } from '../../core/env.js';
import { decodeCursor, encodeCursor } from '../../core/lib/cursor.js';
import type { CatalogGroup } from '../../core/rpc.js';
import migrations from '../../migrations/group-catalog/migrations.js';
import { iso, openDatabase } from '../shared/database.js';
import * as schema from './schema.js';

const { groups, groupMembers } = schema;

/** What a group channel pushes after each membership change (and once at creation). */
/** The group view, with its creation in ms (the catalog sorts by it) and the membership version. */
export type GroupSnapshot = Omit<GroupView, 'created_at'> & {
  /** ms since the epoch */
  created_at: number;
  /** The channel's membership version: snapshots only move forward. */
  version: number;
};

export type { CatalogGroup };

/**
 * One instance (`idFromName('groups')`): the administrators' list of groups. Durable Objects
 * cannot be enumerated, so group channels report themselves here through their outbox. It is off
 * every agent's path: only admin listing reads it and only membership changes (rare) write it.
 */
export class GroupCatalogDO extends DurableObject<Env> {
  private readonly db;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.db = openDatabase(ctx, schema, migrations);
  }

  async record(snapshot: GroupSnapshot): Promise<void> {
    const now = Date.now();
    this.db.transaction((tx) => {
      const stored = tx
        .select({ version: groups.version })
        .from(groups)
        .where(eq(groups.groupId, snapshot.group_id))
        .get();
      if (stored && stored.version >= snapshot.version) return;
      const dissolved = snapshot.status === 'dissolved';
      const members = dissolved ? [] : snapshot.members;
      const row = {
        groupId: snapshot.group_id,
        name: snapshot.name,
        ownerId: snapshot.owner_id,
        status: snapshot.status,
        members,
        memberCount: members.filter((m) => m.state === 'active').length,
        pendingCount: members.filter((m) => m.state === 'pending').length,
        createdAt: snapshot.created_at,
        updatedAt: now,
        version: snapshot.version,
      };
      tx.insert(groups).values(row).onConflictDoUpdate({ target: groups.groupId, set: row }).run();
      tx.delete(groupMembers).where(eq(groupMembers.groupId, snapshot.group_id)).run();
      // One row per statement: Durable Object SQLite binds at most 100 parameters per query.
      for (const m of members) {
        tx.insert(groupMembers).values({ groupId: snapshot.group_id, agentId: m.agent_id }).run();
      }
    });
  }

  /** Active groups, newest first, optionally only those an agent owns or takes part in. */
  async list(
    filter: { owner?: string; participant?: string },
    cursor: string | undefined,
    limit: number,
  ): Promise<{ groups: CatalogGroup[]; next_cursor: string | null }> {
    const after = decodeCursor(cursor);
    const conditions: (SQL | undefined)[] = [eq(groups.status, 'active')];
    if (filter.owner) conditions.push(eq(groups.ownerId, filter.owner));
    if (filter.participant) {
      conditions.push(
        exists(
          this.db
            .select({ one: groupMembers.agentId })
            .from(groupMembers)
            .where(and(eq(groupMembers.groupId, groups.groupId), eq(groupMembers.agentId, filter.participant))),
        ),
      );
    }
    if (after) {
      const [createdAt, groupId] = [Number(after[0]), String(after[1])];
      conditions.push(
        or(lt(groups.createdAt, createdAt), and(eq(groups.createdAt, createdAt), lt(groups.groupId, groupId))),
      );
    }
    const rows = this.db
      .select()
      .from(groups)
      .where(and(...conditions))
      .orderBy(desc(groups.createdAt), desc(groups.groupId))
      .limit(limit + 1)
      .all();
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      groups: page.map((row) => ({
        group_id: row.groupId,
        name: row.name,
        owner_id: row.ownerId,
        status: row.status,
        members: row.members,
        member_count: row.memberCount,
        pending_count: row.pendingCount,
        created_at: iso(row.createdAt),
        updated_at: iso(row.updatedAt),
      })),
      next_cursor: rows.length > limit && last ? encodeCursor([last.createdAt, last.groupId]) : null,
    };
  }
}
