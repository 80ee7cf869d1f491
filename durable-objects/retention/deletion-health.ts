/**
 * The health of every channel's deletion jobs. A channel whose R2 deletions did not all succeed
 * reports its jobs here; it is then watched (asked to retry, HEALTH_POLL_MS apart) until it reports
 * none pending. Failed deletions anywhere (a channel's, or this object's own) turn new attachments
 * away with cleanup_unavailable and show in the cleanup status.
 */
import { count, eq, lte, sql, sum } from 'drizzle-orm';
import type { Env } from '../../core/env.js';
import { channelObject } from '../../core/stubs.js';
import type { DeletionQueue, DeletionStats } from '../shared/deletion-jobs.js';
import type { RetentionDb } from './database.js';
import { channelHealth } from './schema.js';

/** Channels with unfinished deletions are asked again this often. */
export const HEALTH_POLL_MS = 15_000;

export class DeletionHealth {
  constructor(
    private readonly db: RetentionDb,
    private readonly env: Env,
    private readonly queue: DeletionQueue,
    private readonly now: () => number,
  ) {}

  /** A channel's jobs after an attempt: none pending forgets it, otherwise it is polled. */
  record(channelId: string, stats: DeletionStats, now: number): void {
    if (stats.pending === 0) {
      this.db.delete(channelHealth).where(eq(channelHealth.channelId, channelId)).run();
      return;
    }
    const row = {
      pending: stats.pending,
      failed: stats.failed,
      lastError: stats.lastError,
      nextPollAt: Math.max(now + 1_000, Math.min(stats.nextAttemptAt ?? now + HEALTH_POLL_MS, now + HEALTH_POLL_MS)),
      updatedAt: now,
    };
    this.db
      .insert(channelHealth)
      .values({ channelId, ...row })
      .onConflictDoUpdate({ target: channelHealth.channelId, set: row })
      .run();
  }

  /** Failed jobs in every watched channel and in this object's own queue. */
  failedDeletions(): number {
    const channelsFailed = this.db
      .select({ n: sum(channelHealth.failed) })
      .from(channelHealth)
      .get();
    return Number(channelsFailed?.n ?? 0) + this.queue.stats().failed;
  }

  /** Sums over the watched channels (the cleanup status). */
  channelTotals(): { pending: number; failed: number; lastError: string | null } {
    const health = this.db
      .select({ pending: sum(channelHealth.pending), failed: sum(channelHealth.failed) })
      .from(channelHealth)
      .get();
    const lastHealthError = this.db
      .select({ e: channelHealth.lastError })
      .from(channelHealth)
      .where(sql`${channelHealth.lastError} is not null`)
      .orderBy(sql`${channelHealth.updatedAt} desc`)
      .limit(1)
      .get();
    return {
      pending: Number(health?.pending ?? 0),
      failed: Number(health?.failed ?? 0),
      lastError: lastHealthError?.e ?? null,
    };
  }

  /** How many channels still have deletions pending. */
  watchedChannels(): number {
    return this.db.select({ n: count() }).from(channelHealth).get()?.n ?? 0;
  }

  /** The alarm job: channels due for a poll are asked to retry and report their state. */
  async poll(now: number): Promise<void> {
    const due = this.db.select().from(channelHealth).where(lte(channelHealth.nextPollAt, now)).limit(32).all();
    const settled = await Promise.allSettled(due.map((h) => channelObject(this.env, h.channelId).retryDeletions()));
    const after = this.now();
    settled.forEach((outcome, i) => {
      const row = due[i]!;
      if (outcome.status === 'fulfilled') this.record(row.channelId, outcome.value, after);
      else {
        this.db
          .update(channelHealth)
          .set({ nextPollAt: after + HEALTH_POLL_MS, lastError: String(outcome.reason).slice(0, 500) })
          .where(eq(channelHealth.channelId, row.channelId))
          .run();
      }
    });
  }

  /** The next poll (object clock); null: no channel is watched. */
  nextPollAt(): number | null {
    return (
      this.db
        .select({ t: sql<number | null>`min(${channelHealth.nextPollAt})` })
        .from(channelHealth)
        .get()?.t ?? null
    );
  }
}
