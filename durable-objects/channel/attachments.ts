/**
 * The ChannelDO's side of attachments and retention: copying a staged upload into this channel's
 * own object before the message commits, carrying out deletion jobs after a transaction revoked
 * access, reporting failures to the retention object, sweeping copies whose request died, and
 * registering the channel in the retention catalog once. The ChannelDO delegates to it, so the
 * object stays a thin shell over the store.
 */

import { ApiError } from '../../core/contract/errors.js';
import type { MessageContent } from '../../core/domain/content.js';
import { fileObjectKey, newFileId } from '../../core/domain/file-id.js';
import type { StagedFile } from '../../core/domain/principals.js';
import type { Env } from '../../core/env.js';
import { randomToken } from '../../core/lib/crypto.js';
import { currentSettings } from '../../core/lib/settings-cache.js';
import { retention } from '../../core/stubs.js';
import type { RetentionLimits } from '../retention/cleanup-runs.js';
import type { AlarmScheduler } from '../shared/alarm-scheduler.js';
import type { DeletionStats } from '../shared/deletion-jobs.js';
import { backoffMs, DELIVERY_RETRY, deliverPending } from '../shared/outbox.js';
import { ChannelCatalogReport } from './catalog-report.js';
import type { StoredFileRef } from './files.js';
import type { SendOutcome } from './sending.js';
import { type Db, storageOf } from './shared-sql.js';
import type { ChannelStore } from './store.js';

/** How soon a failed catalog report is tried again. */
const CATALOG_RETRY_MS = backoffMs(1, DELIVERY_RETRY);
/** Figures changed by a cleanup run reach the catalog this soon (coalesced, like after sends). */
const CATALOG_SYNC_DELAY_MS = 30_000;
/**
 * A claim, ACK, extend or release reaches the catalog (the fleet view's backlog) this soon: one
 * report per channel per window however many of them, off the request path (the alarm).
 */
export const BACKLOG_REPORT_DELAY_MS = 5_000;
/** After a lease's end, so the report sees it ended. */
const LEASE_END_SLACK_MS = 1_000;

/**
 * After every write: whether deletions are owed (jobs, or copies in flight) and whether the
 * retention catalog has confirmed this channel, in one statement instead of three. Fixed text
 * (shared-sql.ts says why): this runs after every send.
 */
const AFTER_WRITE_STATE = `select exists(select 1 from deletion_jobs) or exists(select 1 from pending_objects) as work,
    exists(select 1 from retention_catalog) as cataloged`;

export type PreparedSend =
  | { duplicate: SendOutcome; content?: undefined; file?: undefined }
  | { duplicate?: undefined; content: MessageContent; file?: StoredFileRef };

export class ChannelAttachments {
  private readonly catalog: ChannelCatalogReport;
  private readonly sql: SqlStorage;

  constructor(
    private readonly env: Env,
    private readonly store: ChannelStore,
    private readonly now: () => number,
    db: Db,
    /** The channel's one alarm (shared/alarm-scheduler.ts), whose `attachments` job is `maintenance`. */
    private readonly alarms: AlarmScheduler,
  ) {
    this.catalog = new ChannelCatalogReport(db);
    this.sql = storageOf(db);
  }

  /**
   * Makes this message's own copy of a staged upload, under a pending-copy row, so a crash before
   * the insert commits leaves an object the alarm deletes, never a message without its file. A
   * duplicate (same body, file and reply_to as the sender's latest retained message) is answered without
   * a copy. Without a file, the content passes through.
   */
  async prepare(
    channelId: string,
    senderId: string,
    body: string,
    staged: StagedFile | undefined,
    replyTo: string | undefined,
  ): Promise<PreparedSend> {
    if (!staged) return { content: { body, attachment: null } };
    const content: MessageContent = {
      body,
      attachment: {
        file_id: newFileId(channelId),
        filename: staged.filename,
        media_type: staged.media_type,
        size: staged.size,
        sha256: staged.sha256,
      },
    };
    const duplicate = this.store.duplicateOf(senderId, content, replyTo);
    if (duplicate) return { duplicate: { status: 'duplicate', ...duplicate } };
    const objectKey = fileObjectKey(channelId, randomToken(24));
    this.store.files.beginCopy(objectKey, this.now());
    await this.scheduleMaintenance();
    try {
      const source = await this.env.FILES.get(staged.key);
      if (!source) throw new Error('the staged upload is gone');
      if (source.size !== staged.size) throw new Error('the staged upload changed size');
      await this.env.FILES.put(objectKey, source.body);
    } catch (error) {
      this.store.files.abandonCopy(null, objectKey, this.now());
      await this.runDeletions();
      throw new ApiError('unavailable', `The file could not be stored: ${String(error)}`);
    }
    return { content, file: { fileId: content.attachment!.file_id, objectKey, size: staged.size } };
  }

  /**
   * After any write transaction: deletions it recorded are carried out, the catalog learns a new
   * channel at once. Later figures reach it from the alarm (every send arms one), so ordinary
   * messages never wait for the catalog.
   */
  async afterWrite(sent: boolean): Promise<void> {
    const state = this.sql.exec<{ work: number; cataloged: number }>(AFTER_WRITE_STATE).one();
    if (state.work === 1) await this.runDeletions();
    if (sent && state.cataloged !== 1) await this.syncCatalog();
  }

  /**
   * Runs the due deletion jobs. Jobs left over (R2 failing) are reported to the retention object,
   * which watches the channel until they are done, and the alarm retries them with backoff.
   */
  async runDeletions(): Promise<DeletionStats> {
    const stats = await this.store.files.queue.run(this.env.FILES, this.now);
    if (stats.pending > 0) {
      await this.scheduleMaintenance();
      const channelId = this.store.channelId();
      if (channelId) {
        await retention(this.env)
          .reportChannelHealth(channelId, stats)
          .catch((error: unknown) => {
            // The retention object polls channels it knows about; this one it will learn of on the next failure.
            console.error('deletion health report failed', channelId, String(error));
          });
      }
    }
    return stats;
  }

  /** Retroactive cleanup (asked by the retention object): the limits apply, the deletions follow. */
  async enforceLimits(limits: RetentionLimits): Promise<DeletionStats> {
    this.store.enforceLimits(
      {
        maxMessages: limits.max_messages_per_channel,
        maxFiles: limits.max_files_per_channel,
        maxBodyCodePoints: limits.max_body_code_points,
        maxFileBytes: limits.max_file_bytes,
      },
      this.now(),
    );
    this.store.files.sweepStaleCopies(this.now());
    return this.runDeletions();
  }

  /** The alarm's share: stale copies become jobs, due jobs run, the catalog gets the latest figures. */
  async maintenance(): Promise<DeletionStats> {
    this.store.files.sweepStaleCopies(this.now());
    const stats = await this.runDeletions();
    await this.syncCatalog();
    await this.scheduleMaintenance();
    return stats;
  }

  /**
   * Brings the retention catalog up to date with this channel (catalog-report.ts): the catalog is
   * how retroactive cleanup and the administrators' list find every channel, and where the
   * overview's totals come from. A failure is retried by alarm.
   */
  async syncCatalog(): Promise<void> {
    // The backlog's parked count follows the max_deliveries in force (cached per isolate).
    const maxDeliveries = await currentSettings(this.env).then(
      (s) => s.limits.max_deliveries,
      () => 0,
    );
    const { report, nextChangeAt } = this.catalog.due(this.now(), maxDeliveries);
    // A lease that ends changes the backlog without any write: the catalog hears of it then.
    if (nextChangeAt !== null) await this.alarms.noLaterThan(nextChangeAt + LEASE_END_SLACK_MS);
    if (!report) return;
    const ok = await deliverPending([report], {
      deliver: (r) => retention(this.env).reportChannel(r),
      delivered: (r) => {
        this.catalog.confirmed(r);
        this.store.files.markCataloged(this.now());
      },
      failed: (r, error) => console.error('retention catalog report failed', r.channel_id, error),
    });
    if (!ok) await this.alarms.within(CATALOG_RETRY_MS);
  }

  /**
   * The figures changed outside a send (retroactive cleanup, a claim, an ACK, an extend or a
   * release changed the backlog): the catalog hears of it by alarm, coalesced.
   */
  async scheduleCatalogSync(delayMs = CATALOG_SYNC_DELAY_MS): Promise<void> {
    await this.alarms.within(delayMs);
  }

  /** Keeps an alarm set for the next deletion retry or stale-copy sweep. */
  private async scheduleMaintenance(): Promise<void> {
    const due = this.store.files.nextMaintenanceAt();
    if (due !== null) await this.alarms.noLaterThan(due);
  }
}
