import { DurableObject } from 'cloudflare:workers';
import type { Env } from '../../core/env.js';
import type { CleanupStatusView } from '../../core/rpc.js';
import migrations from '../../migrations/retention/migrations.js';
import { AlarmScheduler } from '../shared/alarm-scheduler.js';
import { openDatabase } from '../shared/database.js';
import { DeletionQueue, type DeletionStats } from '../shared/deletion-jobs.js';
import {
  type BacklogTotals,
  type CatalogEntry,
  type CatalogTotals,
  ChannelCatalog,
  type ChannelReport,
  type ChannelStats,
  type LimitImpact,
} from './catalog.js';
import { CleanupRuns } from './cleanup-runs.js';
import { cleanupStateRow, type RetentionDb } from './database.js';
import { DeletionHealth } from './deletion-health.js';
import * as schema from './schema.js';
import { cleanupStatusView } from './status.js';
import { StraySweep } from './stray-sweep.js';
import { type AdmissionInput, type UploadLease, UploadLeases } from './upload-leases.js';

/**
 * The one object (`idFromName('retention')`) for the storage lifecycle around channels: upload
 * admission (global concurrency and temporary-byte limits, as leases that expire when their
 * request dies), the deletion of staged objects, the channel catalog, retroactive cleanup runs
 * when an administrator lowers a limit, and the health of every channel's deletion jobs (which
 * turns new attachments away with cleanup_unavailable while deletions are failing).
 *
 * It is on the path of uploads (acquire, renew every 10 s, release) and of a channel's creation,
 * never of ordinary text messages, claims or reads.
 *
 * A thin shell over one module per job: upload-leases.ts (with the rule in admission.ts),
 * catalog.ts, deletion-health.ts, cleanup-runs.ts and stray-sweep.ts, plus the shared deletion
 * queue for staged objects. Each job that has timed work registers with the one alarm
 * (shared/alarm-scheduler.ts), which is recomputed from the stored due times after every change.
 */
export class RetentionDO extends DurableObject<Env> {
  // Protected for the test worker's subclass (test/workers/test-worker.ts), which inspects them.
  protected readonly db: RetentionDb;
  protected readonly queue: DeletionQueue;
  private readonly leases: UploadLeases;
  private readonly catalog: ChannelCatalog;
  private readonly health: DeletionHealth;
  private readonly runs: CleanupRuns;
  private readonly sweep: StraySweep;
  private readonly alarms: AlarmScheduler;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const now = () => this.now();
    this.db = openDatabase(ctx, schema, migrations);
    this.queue = new DeletionQueue(this.db, schema.deletionJobs);
    this.leases = new UploadLeases(this.db, this.queue);
    this.catalog = new ChannelCatalog(this.db);
    this.health = new DeletionHealth(this.db, env, this.queue, now);
    this.runs = new CleanupRuns(this.db, env, this.catalog, this.health, this.queue, now);
    this.sweep = new StraySweep(this.db, env, this.leases, this.queue);
    // Each job reads the clock itself when its turn comes: an earlier one may have scheduled work for "now".
    this.alarms = new AlarmScheduler(ctx, now, 'retention')
      .register('settings', { run: (t) => this.runs.checkSettings(t), due: () => this.runs.settingsCheckDue() })
      .register('leases', { run: async (t) => this.leases.expire(t), due: () => this.leases.nextExpiry() })
      .register('sweep', { run: (t) => this.sweep.run(t), due: () => this.sweep.due() })
      .register('health', { run: (t) => this.health.poll(t), due: () => this.health.nextPollAt() })
      .register('cleanup', { run: (t) => this.runs.runBatch(t), due: () => this.runs.runDue() })
      // Last: it carries out what the jobs above enqueued.
      .register('deletions', {
        run: async () => void (await this.queue.run(env.FILES, now)),
        due: () => this.queue.stats().nextAttemptAt,
      });
    void ctx.blockConcurrencyWhile(async () => {
      this.db.insert(schema.cleanupState).values({ id: 1 }).onConflictDoNothing().run();
      await this.alarms.rearm();
    });
  }

  /** Protected so that the test worker's subclass can shift it; production cannot. */
  protected now(): number {
    return Date.now();
  }

  // Upload admission (upload-leases.ts, admission.ts)

  /**
   * Admits one upload or refuses it: 503 cleanup_unavailable while deletions are failing, 429
   * upload_admission_denied when the uploader's share (admission.ts) or the concurrent-upload or
   * temporary-byte limit would be passed.
   */
  async acquireUpload(input: AdmissionInput): Promise<UploadLease> {
    const now = this.now();
    const lease = this.leases.acquire(input, this.health.failedDeletions(), now);
    this.sweep.arm(now);
    await this.alarms.rearm();
    return lease;
  }

  /** Extends a lease; false when it is gone (expired and swept): the upload must then fail. */
  async renewUpload(leaseId: string): Promise<boolean> {
    return this.leases.renew(leaseId, this.now());
  }

  /** Records the multipart upload of a lease (before its first part), so a sweep can abort it. */
  async noteMultipart(leaseId: string, uploadId: string): Promise<boolean> {
    return this.leases.noteMultipart(leaseId, uploadId, this.now());
  }

  /** The upload is over (committed to its messages, or failed): its staged object goes. */
  async releaseUpload(leaseId: string): Promise<void> {
    this.leases.release(leaseId, this.now());
    await this.queue.run(this.env.FILES, () => this.now());
    await this.alarms.rearm();
  }

  /**
   * The launcher starts: every lease left is a previous boot's, whose upload died with it (the
   * launcher calls this before it serves anything). Their staged objects are deleted.
   */
  async releasePreviousBootUploads(): Promise<number> {
    const released = this.leases.releaseAll(this.now());
    if (released > 0) await this.queue.run(this.env.FILES, () => this.now());
    await this.alarms.rearm();
    return released;
  }

  // Catalog (catalog.ts)

  /** Adds channels to the catalog (idempotent): a channel calls this once, when it is created. */
  async registerChannels(entries: readonly CatalogEntry[]): Promise<void> {
    this.catalog.register(entries);
  }

  /** A channel's latest figures (and its registration, the first time); late, older reports change nothing. */
  async reportChannel(report: ChannelReport): Promise<void> {
    this.catalog.report(report);
  }

  /** The administrators' channel list: newest first, without dissolved groups; `before`: the previous page's last `n`. */
  async adminCatalogPage(input: {
    before: number | null;
    kind?: 'private' | 'group';
    limit: number;
  }): Promise<{ entries: { n: number; channel_id: string; kind: 'private' | 'group' }[]; more: boolean }> {
    return this.catalog.adminPage(input);
  }

  /** The overview's channel figures: sums over the catalog, no channel is asked. */
  async catalogTotals(): Promise<CatalogTotals> {
    return this.catalog.totals();
  }

  /** The fleet's unread, leased and parked deliveries and the agents with the most unread (catalog.ts). */
  async fleetBacklog(top: number): Promise<BacklogTotals & { top_agents: (BacklogTotals & { agent_id: string })[] }> {
    return this.catalog.fleetBacklog(Math.min(Math.max(1, top), 50));
  }

  /** The backlog of each of these agents that has any (at most a page of them). */
  async agentBacklog(agentIds: string[]): Promise<(BacklogTotals & { agent_id: string })[]> {
    return this.catalog.agentBacklog(agentIds.slice(0, 500));
  }

  /** The fleet view's channels nearest their limits, from the catalog. */
  async fullestChannels(limit: number): Promise<(CatalogEntry & ChannelStats)[]> {
    return this.catalog.fullest(Math.min(Math.max(1, limit), 50));
  }

  /** What limits of `maxMessages` and `maxFiles` would delete, from the catalog (catalog.ts impact). */
  async previewLimits(maxMessages: number, maxFiles: number): Promise<LimitImpact> {
    return this.catalog.impact(maxMessages, maxFiles);
  }

  /**
   * Whether the catalog lists this channel (every channel registers here when it is created, see
   * channel/attachments.ts): admin routes that take a channel or group ID ask this first, so an
   * unknown ID is refused without opening, and so creating, a channel object.
   */
  async catalogHas(channelId: string): Promise<boolean> {
    return this.catalog.has(channelId);
  }

  /** A page of the catalog in creation order; `after` is the previous page's `next`. */
  async listCatalog(after: number, limit: number): Promise<{ channels: CatalogEntry[]; next: number | null }> {
    return this.catalog.list(after, limit);
  }

  // Deletion health (deletion-health.ts)

  /**
   * A channel's deletion jobs after an attempt. Non-zero: it is watched (polled) until it reports
   * zero; its failures count in the status and block new attachments meanwhile.
   */
  async reportChannelHealth(channelId: string, stats: DeletionStats): Promise<void> {
    this.health.record(channelId, stats, this.now());
    await this.alarms.rearm();
  }

  // Retroactive cleanup (cleanup-runs.ts)

  /**
   * Called before a settings change is committed: if the caller dies between the commit and
   * `settingsChanged`, the alarm still finds the new revision in the registry and starts the run.
   */
  async prepareSettingsChange(): Promise<void> {
    this.runs.prepareSettingsChange();
    await this.alarms.rearm();
  }

  /**
   * A settings change was committed. When it lowered a retention limit, a run over every channel
   * starts (or starts over, with the newest limits). Answers the status.
   */
  async settingsChanged(revision: number, lowered: readonly string[]): Promise<CleanupStatusView> {
    this.runs.settingsChanged(revision, lowered);
    await this.alarms.rearm();
    return this.cleanupStatus();
  }

  async cleanupStatus(): Promise<CleanupStatusView> {
    const state = cleanupStateRow(this.db);
    return cleanupStatusView({
      run: {
        active: state.active,
        channelsDone: state.channelsDone,
        attempts: state.attempts,
        lastError: state.lastError,
        lastCompletedAt: state.lastCompletedAt,
      },
      channelsTotal: this.catalog.count(),
      uploadsInProgress: this.leases.count(),
      own: this.queue.stats(),
      channels: this.health.channelTotals(),
    });
  }

  override async alarm(): Promise<void> {
    await this.alarms.run();
  }
}
