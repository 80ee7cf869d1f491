import { DurableObject } from 'cloudflare:workers';
import { and, asc, count, desc, eq, gt, lt, lte, sql, sum } from 'drizzle-orm';
import { ApiError } from '../../core/contract/errors.js';
import type { Limits } from '../../core/contract/models.js';
import type { Env } from '../../core/env.js';
import { randomToken } from '../../core/lib/crypto.js';
import migrations from '../../migrations/retention/migrations.js';
import { openDatabase } from '../shared/database.js';
import { DeletionQueue, type DeletionStats } from '../shared/deletion-jobs.js';
import { admissionRefusal, type Held } from './admission.js';
import * as schema from './schema.js';
import { type CleanupStatusView, cleanupStatusView } from './status.js';

/** An upload lease lives this long unless renewed; the uploading request renews it every third of it. */
export const UPLOAD_LEASE_MS = 30_000;
/** Hint for a refused upload: admission frees up as uploads finish, usually within seconds. */
const ADMISSION_RETRY_MS = 2_000;
/** Channels whose retroactive cleanup runs side by side in one alarm. */
const CLEANUP_BATCH = 16;
/** Channels with unfinished deletions are asked again this often. */
const HEALTH_POLL_MS = 15_000;
/** A settings change that was announced but never confirmed is checked after this long. */
const SETTINGS_CHECK_MS = 30_000;
/** Staged objects without a lease older than this are strays (their lease row must have been lost). */
const STRAY_AGE_MS = 10 * 60_000;
const SWEEP_EVERY_MS = 60 * 60_000;

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

export interface UploadLease {
  leaseId: string;
  /** The opaque key the staged object must be written under. */
  key: string;
  leaseMs: number;
}

export interface CatalogEntry {
  channel_id: string;
  kind: 'private' | 'group';
  created_at: number;
}

/** A channel's figures in the catalog (times in ms). */
export interface ChannelStats {
  status: 'active' | 'dissolved';
  message_count: number;
  file_count: number;
  last_message_at: number | null;
}

/** What a channel reports about itself; `version` only moves forward per channel. */
export interface ChannelReport extends CatalogEntry, ChannelStats {
  version: number;
}

export interface CatalogTotals {
  private_channels: number;
  group_channels: number;
  messages: number;
  files: number;
}

const { uploadLeases, deletionJobs, channels, channelHealth, cleanupState } = schema;

/**
 * The one object (`idFromName('retention')`) for the storage lifecycle around channels: upload
 * admission (global concurrency and temporary-byte limits, as leases that expire when their
 * request dies), the deletion of staged objects, the channel catalog, retroactive cleanup runs
 * when an administrator lowers a limit, and the health of every channel's deletion jobs (which
 * turns new attachments away with cleanup_unavailable while deletions are failing).
 *
 * It is on the path of uploads (acquire, renew every 10 s, release) and of a channel's creation,
 * never of ordinary text messages, claims or reads.
 */
export class RetentionDO extends DurableObject<Env> {
  // Protected for the test worker's subclass (test/workers/test-worker.ts), which inspects them.
  protected readonly db: ReturnType<typeof openDatabase<typeof schema>>;
  protected readonly queue: DeletionQueue;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.db = openDatabase(ctx, schema, migrations);
    this.queue = new DeletionQueue(this.db, deletionJobs);
    void ctx.blockConcurrencyWhile(async () => {
      this.db.insert(cleanupState).values({ id: 1 }).onConflictDoNothing().run();
      await this.rearm();
    });
  }

  /** Protected so that the test worker's subclass can shift it; production cannot. */
  protected now(): number {
    return Date.now();
  }

  private state() {
    return this.db.select().from(cleanupState).where(eq(cleanupState.id, 1)).get()!;
  }

  // Upload admission

  /**
   * Admits one upload or refuses it: 503 cleanup_unavailable while deletions are failing, 429
   * upload_admission_denied when the uploader's share (admission.ts) or the concurrent-upload or
   * temporary-byte limit would be passed.
   */
  async acquireUpload(input: {
    agentId: string;
    reserveBytes: number;
    maxConcurrent: number;
    maxTempBytes: number;
  }): Promise<UploadLease> {
    const now = this.now();
    this.expireLeases(now);
    if (this.failedDeletions() > 0) {
      throw new ApiError(
        'cleanup_unavailable',
        'Deleting stored files is failing; new attachments are refused until it recovers.',
        { retryAfterMs: HEALTH_POLL_MS },
      );
    }
    const held = (agentId?: string): Held => {
      const row = this.db
        .select({ n: count(), bytes: sum(uploadLeases.reservedBytes) })
        .from(uploadLeases)
        .where(agentId === undefined ? undefined : eq(uploadLeases.agentId, agentId))
        .get();
      return { uploads: row?.n ?? 0, bytes: Number(row?.bytes ?? 0) };
    };
    const refusal = admissionRefusal(input, held(), held(input.agentId));
    if (refusal) {
      throw new ApiError('upload_admission_denied', refusal.message, {
        limit: refusal.limit,
        retryAfterMs: ADMISSION_RETRY_MS,
      });
    }
    const lease = { leaseId: randomToken(18), key: `tmp/${randomToken(24)}`, leaseMs: UPLOAD_LEASE_MS };
    this.db
      .insert(uploadLeases)
      .values({
        leaseId: lease.leaseId,
        objectKey: lease.key,
        agentId: input.agentId,
        reservedBytes: input.reserveBytes,
        expiresAt: now + UPLOAD_LEASE_MS,
        createdAt: now,
      })
      .run();
    const state = this.state();
    if (state.sweepAt === null) {
      this.db
        .update(cleanupState)
        .set({ sweepAt: now + SWEEP_EVERY_MS })
        .where(eq(cleanupState.id, 1))
        .run();
    }
    await this.rearm();
    return lease;
  }

  /** Extends a lease; false when it is gone (expired and swept): the upload must then fail. */
  async renewUpload(leaseId: string): Promise<boolean> {
    const now = this.now();
    const row = this.db.select().from(uploadLeases).where(eq(uploadLeases.leaseId, leaseId)).get();
    if (!row || row.expiresAt <= now) return false;
    this.db
      .update(uploadLeases)
      .set({ expiresAt: now + UPLOAD_LEASE_MS })
      .where(eq(uploadLeases.leaseId, leaseId))
      .run();
    return true;
  }

  /** Records the multipart upload of a lease (before its first part), so a sweep can abort it. */
  async noteMultipart(leaseId: string, uploadId: string): Promise<boolean> {
    const updated = this.db
      .update(uploadLeases)
      .set({ uploadId })
      .where(and(eq(uploadLeases.leaseId, leaseId), gt(uploadLeases.expiresAt, this.now())))
      .returning({ id: uploadLeases.leaseId })
      .all();
    return updated.length > 0;
  }

  /** The upload is over (committed to its messages, or failed): its staged object goes. */
  async releaseUpload(leaseId: string): Promise<void> {
    const now = this.now();
    this.db.transaction((tx) => {
      const row = tx.select().from(uploadLeases).where(eq(uploadLeases.leaseId, leaseId)).get();
      if (!row) return;
      tx.delete(uploadLeases).where(eq(uploadLeases.leaseId, leaseId)).run();
      this.queue.enqueue(tx, [{ key: row.objectKey, uploadId: row.uploadId }], now);
    });
    await this.queue.run(this.env.FILES, () => this.now());
    await this.rearm();
  }

  /** Expired leases: their uploads died without releasing; the staged objects are deleted. */
  private expireLeases(now: number): void {
    this.db.transaction((tx) => {
      const expired = tx.select().from(uploadLeases).where(lte(uploadLeases.expiresAt, now)).all();
      if (expired.length === 0) return;
      tx.delete(uploadLeases).where(lte(uploadLeases.expiresAt, now)).run();
      this.queue.enqueue(
        tx,
        expired.map((l) => ({ key: l.objectKey, uploadId: l.uploadId })),
        now,
      );
    });
  }

  // Catalog

  /** Adds channels to the catalog (idempotent): a channel calls this once, when it is created. */
  async registerChannels(entries: readonly CatalogEntry[]): Promise<void> {
    if (entries.length === 0) return;
    this.db
      .insert(channels)
      .values(entries.map((e) => ({ channelId: e.channel_id, kind: e.kind, createdAt: e.created_at })))
      .onConflictDoNothing()
      .run();
  }

  /**
   * A channel's latest figures (and its registration, the first time). A report older than the
   * one stored (a lower version, delivered late) changes nothing.
   */
  async reportChannel(report: ChannelReport): Promise<void> {
    const figures = {
      status: report.status,
      messageCount: report.message_count,
      fileCount: report.file_count,
      lastMessageAt: report.last_message_at,
      version: report.version,
    };
    this.db
      .insert(channels)
      .values({ channelId: report.channel_id, kind: report.kind, createdAt: report.created_at, ...figures })
      .onConflictDoUpdate({
        target: channels.channelId,
        set: figures,
        setWhere: sql`excluded.version > ${channels.version}`,
      })
      .run();
  }

  /**
   * The administrators' channel list: a page of the catalog, newest channel first, without the
   * groups known to be dissolved. `before` is the previous page's last `n`.
   */
  async adminCatalogPage(input: {
    before: number | null;
    kind?: 'private' | 'group';
    limit: number;
  }): Promise<{ entries: { n: number; channel_id: string; kind: 'private' | 'group' }[]; more: boolean }> {
    const rows = this.db
      .select({ n: channels.n, channel_id: channels.channelId, kind: channels.kind })
      .from(channels)
      .where(
        and(
          eq(channels.status, 'active'),
          input.before === null ? undefined : lt(channels.n, input.before),
          input.kind ? eq(channels.kind, input.kind) : undefined,
        ),
      )
      .orderBy(desc(channels.n))
      .limit(input.limit + 1)
      .all();
    return { entries: rows.slice(0, input.limit), more: rows.length > input.limit };
  }

  /** The overview's channel figures: sums over the catalog, no channel is asked. */
  async catalogTotals(): Promise<CatalogTotals> {
    const rows = this.db
      .select({
        kind: channels.kind,
        n: count(),
        messages: sum(channels.messageCount),
        files: sum(channels.fileCount),
      })
      .from(channels)
      .where(eq(channels.status, 'active'))
      .groupBy(channels.kind)
      .all();
    const of = (kind: 'private' | 'group') => rows.find((r) => r.kind === kind);
    return {
      private_channels: of('private')?.n ?? 0,
      group_channels: of('group')?.n ?? 0,
      messages: rows.reduce((total, r) => total + Number(r.messages ?? 0), 0),
      files: rows.reduce((total, r) => total + Number(r.files ?? 0), 0),
    };
  }

  /**
   * Whether the catalog lists this channel (every channel registers here when it is created, see
   * channel/attachments.ts): admin routes that take a channel or group ID ask this first, so an
   * unknown ID is refused without opening, and so creating, a channel object.
   */
  async catalogHas(channelId: string): Promise<boolean> {
    return (
      this.db.select({ n: channels.n }).from(channels).where(eq(channels.channelId, channelId)).get() !== undefined
    );
  }

  /** A page of the catalog in creation order; `after` is the previous page's `next`. */
  async listCatalog(after: number, limit: number): Promise<{ channels: CatalogEntry[]; next: number | null }> {
    const rows = this.db
      .select()
      .from(channels)
      .where(gt(channels.n, after))
      .orderBy(asc(channels.n))
      .limit(limit + 1)
      .all();
    const page = rows.slice(0, limit);
    return {
      channels: page.map((r) => ({ channel_id: r.channelId, kind: r.kind, created_at: r.createdAt })),
      next: rows.length > limit ? (page.at(-1)?.n ?? null) : null,
    };
  }

  // Deletion health

  /**
   * A channel's deletion jobs after an attempt. Non-zero: it is watched (polled) until it reports
   * zero; its failures count in the status and block new attachments meanwhile.
   */
  async reportChannelHealth(channelId: string, stats: DeletionStats): Promise<void> {
    this.recordHealth(channelId, stats, this.now());
    await this.rearm();
  }

  private recordHealth(channelId: string, stats: DeletionStats, now: number): void {
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

  private failedDeletions(): number {
    const channelsFailed = this.db
      .select({ n: sum(channelHealth.failed) })
      .from(channelHealth)
      .get();
    return Number(channelsFailed?.n ?? 0) + this.queue.stats().failed;
  }

  // Retroactive cleanup

  /**
   * Called before a settings change is committed: if the caller dies between the commit and
   * `settingsChanged`, the alarm still finds the new revision in the registry and starts the run.
   */
  async prepareSettingsChange(): Promise<void> {
    this.db
      .update(cleanupState)
      .set({ checkSettingsAt: this.now() + SETTINGS_CHECK_MS })
      .where(eq(cleanupState.id, 1))
      .run();
    await this.rearm();
  }

  /**
   * A settings change was committed. When it lowered a retention limit, a run over every channel
   * starts (or starts over, with the newest limits). Answers the status.
   */
  async settingsChanged(revision: number, lowered: readonly string[]): Promise<CleanupStatusView> {
    const relevant = lowered.some((k) => (RETENTION_LIMIT_KEYS as readonly string[]).includes(k));
    this.noteRevision(revision, relevant);
    await this.rearm();
    return this.cleanupStatus();
  }

  private noteRevision(revision: number, startRun: boolean): void {
    const state = this.state();
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
    this.db.update(cleanupState).set(patch).where(eq(cleanupState.id, 1)).run();
  }

  async cleanupStatus(): Promise<CleanupStatusView> {
    const state = this.state();
    const total = this.db.select({ n: count() }).from(channels).get()?.n ?? 0;
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
    return cleanupStatusView({
      run: {
        active: state.active,
        channelsDone: state.channelsDone,
        attempts: state.attempts,
        lastError: state.lastError,
        lastCompletedAt: state.lastCompletedAt,
      },
      channelsTotal: total,
      uploadsInProgress: this.db.select({ n: count() }).from(uploadLeases).get()?.n ?? 0,
      own: this.queue.stats(),
      channels: {
        pending: Number(health?.pending ?? 0),
        failed: Number(health?.failed ?? 0),
        lastError: lastHealthError?.e ?? null,
      },
    });
  }

  /** One batch of the run: the next channels of the catalog are brought within the limits. */
  private async runCleanupBatch(now: number): Promise<void> {
    const state = this.state();
    if (!state.active || (state.nextRunAt ?? 0) > now) return;
    const batch = this.db
      .select()
      .from(channels)
      .where(gt(channels.n, state.cursor))
      .orderBy(asc(channels.n))
      .limit(CLEANUP_BATCH)
      .all();
    if (batch.length > 0) {
      if (await this.cleanupChannels(state, batch)) return;
    }
    // Every channel was visited: the run completes once no deletion is pending anywhere.
    const pendingChannels = this.db.select({ n: count() }).from(channelHealth).get()?.n ?? 0;
    if (pendingChannels === 0 && this.queue.stats().pending === 0) {
      this.db
        .update(cleanupState)
        .set({ active: false, nextRunAt: null, lastCompletedAt: now, lastError: null, attempts: 0 })
        .where(eq(cleanupState.id, 1))
        .run();
    } else {
      this.db
        .update(cleanupState)
        .set({ nextRunAt: now + HEALTH_POLL_MS })
        .where(eq(cleanupState.id, 1))
        .run();
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
      limits = (await this.env.REGISTRY.get(this.env.REGISTRY.idFromName('registry')).getSettings()).limits;
      const settled = await Promise.allSettled(batch.map((c) => this.channel(c.channelId).enforceLimits(limits)));
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
      for (const r of results) this.recordHealth(r.channelId, r.stats, after);
      const advanced = results.at(-1)?.n ?? state.cursor;
      const current = this.state();
      // A new run may have started meanwhile (cursor back to 0): never overwrite its progress.
      if (!current.active || current.startedAt !== state.startedAt) return true;
      this.db
        .update(cleanupState)
        .set(
          failure
            ? {
                cursor: advanced,
                channelsDone: current.channelsDone + results.length,
                attempts: current.attempts + 1,
                lastError: failure.slice(0, 500),
                nextRunAt: after + Math.min(1_000 * 2 ** current.attempts, 5 * 60_000),
              }
            : {
                cursor: advanced,
                channelsDone: current.channelsDone + results.length,
                attempts: 0,
                lastError: null,
                nextRunAt: after,
              },
        )
        .where(eq(cleanupState.id, 1))
        .run();
      if (failure) return true;
      return this.db.select({ n: count() }).from(channels).where(gt(channels.n, advanced)).get()!.n > 0;
    });
  }

  /** Channels with unfinished deletions are asked to retry and report their state. */
  private async pollHealth(now: number): Promise<void> {
    const due = this.db.select().from(channelHealth).where(lte(channelHealth.nextPollAt, now)).limit(32).all();
    const settled = await Promise.allSettled(due.map((h) => this.channel(h.channelId).retryDeletions()));
    const after = this.now();
    settled.forEach((outcome, i) => {
      const row = due[i]!;
      if (outcome.status === 'fulfilled') this.recordHealth(row.channelId, outcome.value, after);
      else {
        this.db
          .update(channelHealth)
          .set({ nextPollAt: after + HEALTH_POLL_MS, lastError: String(outcome.reason).slice(0, 500) })
          .where(eq(channelHealth.channelId, row.channelId))
          .run();
      }
    });
  }

  /** The settings change announced by prepareSettingsChange was never confirmed: look it up. */
  private async checkSettings(now: number): Promise<void> {
    const state = this.state();
    if (state.checkSettingsAt === null || state.checkSettingsAt > now) return;
    const { revision } = await this.env.REGISTRY.get(this.env.REGISTRY.idFromName('registry')).getSettings();
    // Which limits changed is unknown here; a run with the current limits is always correct.
    this.noteRevision(revision, revision > state.seenRevision);
  }

  /**
   * Defence in depth behind the leases: staged objects (`tmp/`) that no lease and no job owns and
   * that are older than STRAY_AGE_MS are deleted.
   */
  private async sweepStrays(now: number): Promise<void> {
    const state = this.state();
    if (state.sweepAt === null || state.sweepAt > now) return;
    const leased = new Set(
      this.db
        .select({ key: uploadLeases.objectKey })
        .from(uploadLeases)
        .all()
        .map((r) => r.key),
    );
    const queued = new Set(this.queue.keys());
    const strays: string[] = [];
    let remaining = 0;
    let cursor: string | undefined;
    do {
      const page = await this.env.FILES.list({ prefix: 'tmp/', cursor, limit: 1000 });
      for (const object of page.objects) {
        if (leased.has(object.key) || queued.has(object.key)) remaining++;
        else if (object.uploaded.getTime() < now - STRAY_AGE_MS) strays.push(object.key);
        else remaining++;
      }
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor);
    this.queue.enqueue(
      this.db,
      strays.map((key) => ({ key })),
      now,
    );
    this.db
      .update(cleanupState)
      .set({ sweepAt: remaining > 0 || leased.size > 0 ? now + SWEEP_EVERY_MS : null })
      .where(eq(cleanupState.id, 1))
      .run();
  }

  private channel(channelId: string) {
    return this.env.CHANNEL.get(this.env.CHANNEL.idFromName(channelId));
  }

  override async alarm(): Promise<void> {
    // Each step reads the clock itself: an earlier step may have scheduled work for "now".
    const steps: [string, () => Promise<void>][] = [
      ['settings', () => this.checkSettings(this.now())],
      ['leases', async () => this.expireLeases(this.now())],
      ['sweep', () => this.sweepStrays(this.now())],
      ['health', () => this.pollHealth(this.now())],
      ['cleanup', () => this.runCleanupBatch(this.now())],
      // Last: it carries out what the steps above enqueued.
      ['deletions', async () => void (await this.queue.run(this.env.FILES, () => this.now()))],
    ];
    for (const [name, step] of steps) {
      try {
        await step();
      } catch (error) {
        // One failing step must not starve the others; its own state records the retry.
        console.error(`retention alarm step ${name} failed`, String(error));
      }
    }
    await this.rearm();
  }

  /** Sets the alarm for the earliest pending work (or clears it when there is none). */
  private async rearm(): Promise<void> {
    const state = this.state();
    const times: number[] = [];
    const lease = this.db
      .select({ t: sql<number | null>`min(${uploadLeases.expiresAt})` })
      .from(uploadLeases)
      .get()?.t;
    if (lease !== null && lease !== undefined) times.push(lease);
    const jobs = this.queue.stats().nextAttemptAt;
    if (jobs !== null) times.push(jobs);
    const poll = this.db
      .select({ t: sql<number | null>`min(${channelHealth.nextPollAt})` })
      .from(channelHealth)
      .get()?.t;
    if (poll !== null && poll !== undefined) times.push(poll);
    if (state.active && state.nextRunAt !== null) times.push(state.nextRunAt);
    if (state.checkSettingsAt !== null) times.push(state.checkSettingsAt);
    if (state.sweepAt !== null) times.push(state.sweepAt);
    if (times.length === 0) {
      await this.ctx.storage.deleteAlarm();
      return;
    }
    // Alarms run on the real clock; a test's shifted clock only changes what "now" means inside.
    const at = Math.min(...times) - (this.now() - Date.now());
    await this.ctx.storage.setAlarm(Math.max(at, Date.now() + 10));
  }
}
