/**
 * Deleting an agent (DELETE /admin/agents/{id}; docs/console.md "Deleting an agent").
 *
 * The registry row goes in one transaction with an `agent_deletions` outbox row, so the agent
 * leaves the directory, the agents list and every send or invitation lookup at once, and its host
 * no longer counts it. The request then drains the outbox before it answers (an alarm retries what
 * failed): the agent's own object drops the key for good (so it fails at once) and names every
 * channel and group the agent is or was in; each of those drops the agent's memberships,
 * invitations and deliveries (so its pending claims die with them). Messages and files it sent
 * stay in the other participants' history, under retention like any other. Agent IDs are random
 * and never reused, so no later agent can inherit its key, its private channels or its place.
 *
 * An agent that owns an active group is refused (`conflict`): an administrator reassigns the owner
 * or dissolves the group first, so no group is left without one.
 */
import { eq } from 'drizzle-orm';
import { ApiError } from '../../core/contract/errors.js';
import type { Env } from '../../core/env.js';
import { agentObject, channelObject } from '../../core/stubs.js';
import type { openDatabase } from '../shared/database.js';
import * as schema from './schema.js';

type Db = ReturnType<typeof openDatabase<typeof schema>>;

/** The active groups `agentId` owns, asked of the groups themselves (the catalog may lag). */
export async function ownedGroups(env: Env, agentId: string): Promise<string[]> {
  const memberships = await agentObject(env, agentId).groupMemberships();
  const active = memberships.filter((m) => m.state === 'active').map((m) => m.group_id);
  const views = await Promise.all(active.map((groupId) => channelObject(env, groupId).groupView(agentId)));
  return active.filter((_, i) => views[i]?.relation === 'owner');
}

/** Refuses, before anything changes, to delete an agent that owns an active group. */
export async function refuseOwner(env: Env, agentId: string): Promise<void> {
  const owned = await ownedGroups(env, agentId);
  if (owned.length === 0) return;
  throw new ApiError(
    'conflict',
    `The agent owns ${owned.length} active group(s); reassign their owner or dissolve them first.`,
    { field: 'agent_id', target: owned[0], reason: 'agent_owns_groups', params: { count: owned.length } },
  );
}

/** The registry side, in one transaction: the agent is gone from every list and lookup. */
export function recordDeletion(db: Db, agentId: string, now: string): void {
  db.transaction((tx) => {
    tx.delete(schema.agentSync).where(eq(schema.agentSync.agentId, agentId)).run();
    tx.delete(schema.agents).where(eq(schema.agents.agentId, agentId)).run();
    tx.insert(schema.agentDeletions).values({ agentId, deletedAt: now }).onConflictDoNothing().run();
  });
}

/**
 * Finishes every pending deletion: key dropped in the agent's object, then the agent removed from
 * each of its channels. A row goes only once all of that succeeded; false when something failed.
 */
export async function drainDeletions(db: Db, env: Env): Promise<boolean> {
  const pending = db.select().from(schema.agentDeletions).all();
  let ok = true;
  for (const item of pending) {
    try {
      const channels = await agentObject(env, item.agentId).retire(item.agentId);
      await Promise.all(channels.map((channelId) => channelObject(env, channelId).removeDeletedAgent(item.agentId)));
      db.delete(schema.agentDeletions).where(eq(schema.agentDeletions.agentId, item.agentId)).run();
    } catch (error) {
      ok = false;
      db.update(schema.agentDeletions)
        .set({ attempts: item.attempts + 1, lastError: String(error) })
        .where(eq(schema.agentDeletions.agentId, item.agentId))
        .run();
    }
  }
  return ok;
}
