/**
 * The agent-sync outbox: every change an agent's own AgentDO must learn (its key, name, enabled
 * flag, its host's addresses) commits here with an outbox row, in one transaction. The row is
 * drained by pushing the agent's current snapshot (AgentDO.sync, which ignores older versions), so
 * a crash between the commit and the push, or a failed push, is retried by alarm until the copy
 * matches (shared/outbox.ts). The admin request that made the change waits for the push, so it
 * takes effect at once.
 */
import { eq, sql } from 'drizzle-orm';
import type { Env } from '../../core/env.js';
import { agentObject } from '../../core/stubs.js';
import type { AccountSnapshot } from '../agent/agent-do.js';
import { deliverPending } from '../shared/outbox.js';
import type { RegistryDb, RegistryTx } from './database.js';
import * as schema from './schema.js';

interface PendingSync {
  agentId: string;
  attempts: number;
  /** The agent version the push carried (set once read for the push). */
  version?: number;
}

export class AgentSyncOutbox {
  constructor(
    private readonly db: RegistryDb,
    private readonly env: Env,
  ) {}

  /** In the transaction of the change: bumps the agent's version and records that it must be pushed. */
  mark(tx: RegistryTx, agentId: string): void {
    tx.update(schema.agents)
      .set({ version: sql`${schema.agents.version} + 1` })
      .where(eq(schema.agents.agentId, agentId))
      .run();
    tx.insert(schema.agentSync).values({ agentId }).onConflictDoNothing().run();
  }

  /** Pushes every pending agent once, one after the other; false when some push failed (retried by alarm). */
  async drain(): Promise<boolean> {
    const pending: PendingSync[] = this.db.select().from(schema.agentSync).all();
    return deliverPending(pending, {
      sequential: true,
      deliver: async (item) => {
        const snapshot = this.snapshotOf(item.agentId);
        // The agent is gone: nothing to push, the row goes.
        if (!snapshot) return;
        item.version = snapshot.version;
        await agentObject(this.env, item.agentId).sync(snapshot);
      },
      delivered: (item) => {
        // A change made while the push was in flight keeps its outbox row for the next drain.
        const current = this.db
          .select({ version: schema.agents.version })
          .from(schema.agents)
          .where(eq(schema.agents.agentId, item.agentId))
          .get();
        if (item.version === undefined || current?.version === item.version) {
          this.db.delete(schema.agentSync).where(eq(schema.agentSync.agentId, item.agentId)).run();
        }
      },
      failed: (item, error) => {
        this.db
          .update(schema.agentSync)
          .set({ attempts: item.attempts + 1, lastError: error })
          .where(eq(schema.agentSync.agentId, item.agentId))
          .run();
      },
    });
  }

  /**
   * The agent as its own object must see it now; null when the agent no longer exists. Also asked
   * by an object that was never pushed one (AgentDO.accountFor: imported agents).
   */
  snapshotOf(agentId: string): AccountSnapshot | null {
    const agent = this.db.select().from(schema.agents).where(eq(schema.agents.agentId, agentId)).get();
    if (!agent) return null;
    const host = this.db.select().from(schema.hosts).where(eq(schema.hosts.hostId, agent.hostId)).get();
    return {
      agent_id: agent.agentId,
      name: agent.name,
      display_name: agent.displayName,
      host_id: agent.hostId,
      enabled: agent.enabled,
      key_hash: agent.keyHash,
      addresses: host?.addresses ?? [],
      version: agent.version,
    };
  }
}
