/**
 * Durable deletion jobs for R2 objects. A Durable Object's transaction revokes access to content
 * (deletes its rows) and, in the same transaction, enqueues a job naming only the opaque object
 * key (and, for an unfinished multipart upload, its upload ID): never a body, a file name or a
 * copy. The R2 delete follows after the commit; a failure is counted, keeps its last error and is
 * retried with exponential backoff (outbox.ts: backoffMs) by the object's alarm, and a job leaves the table only once R2
 * confirmed the delete. A job is "failed" (visible, and blocking new attachments) once it has
 * failed FAILED_AFTER_ATTEMPTS times; it is still retried.
 */
import { asc, count, desc, gte, inArray, lte, max, min, sql } from 'drizzle-orm';
import type { DrizzleSqliteDODatabase } from 'drizzle-orm/durable-sqlite';
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { backoffMs, STORAGE_RETRY } from './outbox.js';

export const FAILED_AFTER_ATTEMPTS = 5;
/** R2 deletes up to 1,000 keys per call. */
const BATCH = 1_000;

export function deletionJobsTable() {
  return sqliteTable('deletion_jobs', {
    id: integer('id').primaryKey({ autoIncrement: true }),
    objectKey: text('object_key').notNull(),
    /** Set for a multipart upload that may never have completed: it is aborted as well. */
    uploadId: text('upload_id'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: integer('next_attempt_at').notNull(),
    lastError: text('last_error'),
    createdAt: integer('created_at').notNull(),
  });
}

export type DeletionJobsTable = ReturnType<typeof deletionJobsTable>;

export interface DeletionStats {
  pending: number;
  failed: number;
  lastError: string | null;
  /** When the earliest job is due, or null when there is none. */
  nextAttemptAt: number | null;
}

export interface ObjectRef {
  key: string;
  uploadId?: string | null;
}

/** An R2 error that means "there is no such multipart upload (any more)": nothing left to abort. */
function uploadAlreadyGone(error: unknown): boolean {
  return /NoSuchUpload|upload.*(not found|does not exist)|(completed|aborted)/i.test(String(error));
}

type AnyDb = DrizzleSqliteDODatabase<any>;
type AnyTx = Parameters<Parameters<AnyDb['transaction']>[0]>[0];

export class DeletionQueue {
  /** Fault injection: every R2 call of a run fails with this message. Set only by the test worker. */
  failWith: string | null = null;

  constructor(
    private readonly db: AnyDb,
    private readonly jobs: DeletionJobsTable,
  ) {}

  /** Records jobs in the caller's transaction (the one that revoked access). */
  enqueue(q: AnyDb | AnyTx, objects: readonly ObjectRef[], now: number, delayMs = 0): void {
    for (let i = 0; i < objects.length; i += 100) {
      const batch = objects.slice(i, i + 100);
      q.insert(this.jobs)
        .values(
          batch.map((o) => ({
            objectKey: o.key,
            uploadId: o.uploadId ?? null,
            nextAttemptAt: now + delayMs,
            createdAt: now,
          })),
        )
        .run();
    }
  }

  private tail: Promise<unknown> = Promise.resolve();

  /**
   * Runs every due job once; answers the state afterwards. Runs are serialized, so an alarm and a
   * request never work on the same job at the same time.
   */
  run(bucket: R2Bucket, now: () => number): Promise<DeletionStats> {
    const next = this.tail.then(() => this.runOnce(bucket, now()));
    this.tail = next.catch(() => {});
    return next;
  }

  private async runOnce(bucket: R2Bucket, now: number): Promise<DeletionStats> {
    for (;;) {
      const due = this.db
        .select()
        .from(this.jobs)
        .where(lte(this.jobs.nextAttemptAt, now))
        .orderBy(asc(this.jobs.id))
        .limit(BATCH)
        .all();
      if (due.length === 0) break;
      const failures = new Map<number, string>();
      // Unfinished multipart uploads first: abort each (an upload that is already gone is fine).
      for (const job of due) {
        if (!job.uploadId) continue;
        try {
          if (this.failWith) throw new Error(this.failWith);
          await bucket.resumeMultipartUpload(job.objectKey, job.uploadId).abort();
        } catch (error) {
          if (!uploadAlreadyGone(error)) failures.set(job.id, String(error));
        }
      }
      const deletable = due.filter((j) => !failures.has(j.id));
      if (deletable.length > 0) {
        try {
          if (this.failWith) throw new Error(this.failWith);
          await bucket.delete([...new Set(deletable.map((j) => j.objectKey))]);
        } catch (error) {
          for (const job of deletable) failures.set(job.id, String(error));
        }
      }
      const done = due.filter((j) => !failures.has(j.id)).map((j) => j.id);
      this.db.transaction((tx) => {
        if (done.length > 0) tx.delete(this.jobs).where(inArray(this.jobs.id, done)).run();
        for (const job of due) {
          const error = failures.get(job.id);
          if (error === undefined) continue;
          const attempts = job.attempts + 1;
          tx.update(this.jobs)
            .set({ attempts, nextAttemptAt: now + backoffMs(attempts, STORAGE_RETRY), lastError: error.slice(0, 500) })
            .where(sql`${this.jobs.id} = ${job.id}`)
            .run();
        }
      });
      if (failures.size > 0) break;
    }
    return this.stats();
  }

  stats(): DeletionStats {
    const totals = this.db
      .select({ pending: count(), next: min(this.jobs.nextAttemptAt) })
      .from(this.jobs)
      .get();
    const failed = this.db
      .select({ n: count(), last: max(this.jobs.id) })
      .from(this.jobs)
      .where(gte(this.jobs.attempts, FAILED_AFTER_ATTEMPTS))
      .get();
    const latest = this.db
      .select({ error: this.jobs.lastError })
      .from(this.jobs)
      .where(sql`${this.jobs.lastError} is not null`)
      .orderBy(desc(this.jobs.nextAttemptAt))
      .limit(1)
      .get();
    return {
      pending: totals?.pending ?? 0,
      failed: failed?.n ?? 0,
      lastError: latest?.error ?? null,
      nextAttemptAt: totals?.next ?? null,
    };
  }

  /** The keys of every job (tests and the orphan sweep use it to tell owned keys from strays). */
  keys(): string[] {
    return this.db
      .select({ key: this.jobs.objectKey })
      .from(this.jobs)
      .all()
      .map((r) => r.key);
  }
}
