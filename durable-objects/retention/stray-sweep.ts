/**
 * Defence in depth behind the upload leases: staged objects (`tmp/`) that no lease and no deletion
 * job owns and that are older than STRAY_AGE_MS (their lease row must have been lost) become
 * deletion jobs. The sweep is armed when an upload is admitted and repeats while staged objects
 * remain.
 */
import type { Env } from '../../core/env.js';
import type { DeletionQueue } from '../shared/deletion-jobs.js';
import { cleanupStateRow, type RetentionDb, updateCleanupState } from './database.js';
import type { UploadLeases } from './upload-leases.js';

/** Staged objects without a lease older than this are strays. */
const STRAY_AGE_MS = 10 * 60_000;
const SWEEP_EVERY_MS = 60 * 60_000;

export class StraySweep {
  constructor(
    private readonly db: RetentionDb,
    private readonly env: Env,
    private readonly leases: UploadLeases,
    private readonly queue: DeletionQueue,
  ) {}

  /** An upload was admitted: a sweep is due within the hour, unless one is already scheduled. */
  arm(now: number): void {
    if (cleanupStateRow(this.db).sweepAt === null) updateCleanupState(this.db, { sweepAt: now + SWEEP_EVERY_MS });
  }

  due(): number | null {
    return cleanupStateRow(this.db).sweepAt;
  }

  /** The alarm job. */
  async run(now: number): Promise<void> {
    const state = cleanupStateRow(this.db);
    if (state.sweepAt === null || state.sweepAt > now) return;
    const leased = this.leases.keys();
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
    updateCleanupState(this.db, { sweepAt: remaining > 0 || leased.size > 0 ? now + SWEEP_EVERY_MS : null });
  }
}
