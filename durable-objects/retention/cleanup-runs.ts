/**
 * Retroactive cleanup runs: when an administrator lowers a retention limit, every channel of the
 * catalog is brought within the new limits, CLEANUP_BATCH channels per alarm, from a cursor kept in
 * the cleanup state (so a crash resumes where it stopped). A batch that cannot reach its channels
 * is retried with the shared backoff (shared/outbox.ts); a run completes once every channel was
 * visited and no deletion is pending anywhere. A settings change announced by the registry's caller
 * but never confirmed is looked up after SETTINGS_CHECK_MS, so a crash between the settings commit
 * and `settingsChanged` still starts the run.
 */
import type { Limits } from '../../core/contract/models.js';
import type { Env } from '../../core/env.js';
import { channelObject, registry } from '../../core/stubs.js';
import type { DeletionQueue, DeletionStats } from '../shared/deletion-jobs.js';
import { backoffMs, STORAGE_RETRY } from '../shared/outbox.js';
import type { ChannelCatalog } from './catalog.js';
import { cleanupStateRow, type RetentionDb, updateCleanupState } from './database.js';
import { type DeletionHealth, HEALTH_POLL_MS } from './deletion-health.js';
import type { channels, cleanupState } from './schema.js';

/** Channels whose retroactive cleanup runs side by side in one alarm. */
const CLEANUP_BATCH = 16;
/** A settings change that was announced but never confirmed is checked after this long. */
const SETTINGS_CHECK_MS = 30_000;

/** The limits that retroactive cleanup enforces in a channel. */
export type RetentionLimits = Pick<
  Limits,
  'max_messages_per_channel' | 'max_files_per_channel' | 'max_body_code_points' | 'max_file_bytes'
>;

export const RETENTION_LIMIT_KEYS = [
  'max_messages_per_channel',
  'max_files_per_channel',
  'max_body_code_points',
  'max_file_bytes',
] as const satisfies readonly (keyof Limits)[];

export class CleanupRuns {
  constructor(
    private readonly db: RetentionDb,
    private readonly env: Env,
    private readonly catalog: ChannelCatalog,
    private readonly health: DeletionHealth,
    private readonly queue: DeletionQueue,
    private readonly now: () => number,
  ) {}

  /** Before a settings change is committed: the settings check is armed. */
  prepareSettingsChange(): void {
    updateCleanupState(this.db, { checkSettingsAt: this.now() + SETTINGS_CHECK_MS });
  }

  /** A settings change was committed; a run starts (or starts over) when it lowered a retention limit. */
  settingsChanged(revision: number, lowered: readonly string[]): void {
    const relevant = lowered.some((k) => (RETENTION_LIMIT_KEYS as readonly string[]).includes(k));
    this.noteRevision(revision, relevant);
  }

  private noteRevision(revision: number, startRun: boolean): void {
    const state = cleanupStateRow(this.db);
    const patch: Partial<typeof cleanupState.$inferInsert> = {
      seenRevision: Math.max(state.seenRevision, revision),
      checkSettingsAt: null,
    };
    if (startRun) {
      Object.assign(patch, {
        active: true,
        cursor: 0,
        channelsDone: 0,
        attempts: 0,
        lastError: null,
        nextRunAt: this.now(),
        startedAt: this.now(),
      });
    }
    updateCleanupState(this.db, patch);
  }

  /** The alarm job of the settings check: the announced change was never confirmed, look it up. */
  async checkSettings(now: number): Promise<void> {
    const state = cleanupStateRow(this.db);
    if (state.checkSettingsAt === null || state.checkSettingsAt > now) return;
    const { revision } = await registry(this.env).getSettings();
    // Which limits changed is unknown here; a run with the current limits is always correct.
    this.noteRevision(revision, revision > state.seenRevision);
  }

  settingsCheckDue(): number | null {
    return cleanupStateRow(this.db).checkSettingsAt;
  }

  /** When the next batch is due (object clock); null: no run. */
  runDue(): number | null {
    const state = cleanupStateRow(this.db);
    return state.active ? state.nextRunAt : null;
  }

  /** The alarm job: one batch of the run, the next channels of the catalog brought within the limits. */
  async runBatch(now: number): Promise<void> {
    const state = cleanupStateRow(this.db);
    if (!state.active || (state.nextRunAt ?? 0) > now) return;
    const batch = this.catalog.after(state.cursor, CLEANUP_BATCH);
    if (batch.length > 0) {
      if (await this.cleanupChannels(state, batch)) return;
    }
    // Every channel was visited: the run completes once no deletion is pending anywhere.
    if (this.health.watchedChannels() === 0 && this.queue.stats().pending === 0) {
      updateCleanupState(this.db, {
        active: false,
        nextRunAt: null,
        lastCompletedAt: now,
        lastError: null,
        attempts: 0,
      });
    } else {
      updateCleanupState(this.db, { nextRunAt: now + HEALTH_POLL_MS });
    }
  }

  /**
   * Brings one batch of channels within the limits and advances the run. True when the run is
   * not at its end yet (more channels, a failure to retry, or a newer run started meanwhile).
   */
  private async cleanupChannels(
    state: typeof cleanupState.$inferSelect,
    batch: (typeof channels.$inferSelect)[],
  ): Promise<boolean> {
    let limits: RetentionLimits;
    const results: { n: number; channelId: string; stats: DeletionStats }[] = [];
    let failure: string | null = null;
    try {
      limits = (await registry(this.env).getSettings()).limits;
      const settled = await Promise.allSettled(
        batch.map((c) => channelObject(this.env, c.channelId).enforceLimits(limits)),
      );
      for (const [i, outcome] of settled.entries()) {
        if (outcome.status === 'rejected') {
          failure ??= `channel ${batch[i]!.channelId}: ${String(outcome.reason)}`;
          break;
        }
        results.push({ n: batch[i]!.n, channelId: batch[i]!.channelId, stats: outcome.value });
      }
    } catch (error) {
      failure = String(error);
    }
    const after = this.now();
    return this.db.transaction(() => {
      for (const r of results) this.health.record(r.channelId, r.stats, after);
      const advanced = results.at(-1)?.n ?? state.cursor;
      const current = cleanupStateRow(this.db);
      // A new run may have started meanwhile (cursor back to 0): never overwrite its progress.
      if (!current.active || current.startedAt !== state.startedAt) return true;
      updateCleanupState(
        this.db,
        failure
          ? {
              cursor: advanced,
              channelsDone: current.channelsDone + results.length,
              attempts: current.attempts + 1,
              lastError: failure.slice(0, 500),
              nextRunAt: after + backoffMs(current.attempts + 1, STORAGE_RETRY),
            }
          : {
              cursor: advanced,
              channelsDone: current.channelsDone + results.length,
              attempts: 0,
              lastError: null,
              nextRunAt: after,
            },
      );
      if (failure) return true;
      return this.catalog.countAfter(advanced) > 0;
    });
  }
}
