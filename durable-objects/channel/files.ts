/**
 * A channel's stored attachments: their R2 objects, the copies in flight, and the deletion jobs
 * that remove objects once the channel's transaction has revoked access to them. Sending and
 * retention (sending.ts, retention.ts) call into this from their own transactions, so a message
 * and its file are always inserted and deleted together.
 */
import { asc, desc, eq, gt, lt, lte, sql } from 'drizzle-orm';
import type { DrizzleSqliteDODatabase } from 'drizzle-orm/durable-sqlite';
import type { AttachmentRecord } from '../../core/domain/content.js';
import { iso } from '../shared/database.js';
import { DeletionQueue } from '../shared/deletion-jobs.js';
import * as schema from './schema.js';

type Db = DrizzleSqliteDODatabase<typeof schema>;
type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
type Q = Db | Tx;

const { files, pendingObjects, deletionJobs, messages, retentionCatalog } = schema;

/** A copy in flight older than this belongs to a request that died: its object is deleted. */
export const PENDING_COPY_MAX_MS = 10 * 60_000;

/** The object of a file message about to be committed. */
export interface StoredFileRef {
  fileId: string;
  objectKey: string;
  size: number;
}

export interface ChannelFileView extends AttachmentRecord {
  message_id: string;
  sender_id: string;
  created_at: string;
}

export class ChannelFiles {
  readonly queue: DeletionQueue;

  constructor(private readonly db: Db) {
    this.queue = new DeletionQueue(db, deletionJobs);
  }

  /** Before a copy starts: the object is owned by this row until a message or a job owns it. */
  beginCopy(objectKey: string, now: number): void {
    this.db.insert(pendingObjects).values({ objectKey, createdAt: now }).run();
  }

  /** The copy failed, or its message was not stored (duplicate, sender not allowed): delete it. */
  abandonCopy(q: Q | null, objectKey: string, now: number): void {
    if (q === null) {
      this.db.transaction((tx) => this.abandonCopy(tx, objectKey, now));
      return;
    }
    const removed = q.delete(pendingObjects).where(eq(pendingObjects.objectKey, objectKey)).returning().all();
    if (removed.length > 0) this.queue.enqueue(q, [{ key: objectKey }], now);
  }

  /** In the message's insert transaction: the file row takes over the object from the copy. */
  attach(tx: Tx, seq: number, file: StoredFileRef): void {
    tx.insert(files).values({ seq, fileId: file.fileId, objectKey: file.objectKey, size: file.size }).run();
    tx.delete(pendingObjects).where(eq(pendingObjects.objectKey, file.objectKey)).run();
  }

  /** Seqs of file messages whose file is now over `maxBytes`. */
  oversized(q: Q, maxBytes: number): number[] {
    return q
      .select({ seq: files.seq })
      .from(files)
      .where(gt(files.size, maxBytes))
      .all()
      .map((r) => r.seq);
  }

  /** Copies whose request died (older than PENDING_COPY_MAX_MS): they become deletion jobs. */
  sweepStaleCopies(now: number): number {
    return this.db.transaction((tx) => {
      const stale = tx
        .select()
        .from(pendingObjects)
        .where(lte(pendingObjects.createdAt, now - PENDING_COPY_MAX_MS))
        .all();
      if (stale.length === 0) return 0;
      tx.delete(pendingObjects)
        .where(lte(pendingObjects.createdAt, now - PENDING_COPY_MAX_MS))
        .run();
      this.queue.enqueue(
        tx,
        stale.map((p) => ({ key: p.objectKey })),
        now,
      );
      return stale.length;
    });
  }

  /** The earliest moment maintenance is due (a deletion retry or a stale copy), or null. */
  nextMaintenanceAt(): number | null {
    const jobs = this.queue.stats().nextAttemptAt;
    const copy = this.db
      .select({ t: sql<number | null>`min(${pendingObjects.createdAt})` })
      .from(pendingObjects)
      .get()?.t;
    const times = [jobs, copy === null || copy === undefined ? null : copy + PENDING_COPY_MAX_MS].filter(
      (t): t is number => t !== null,
    );
    return times.length > 0 ? Math.min(...times) : null;
  }

  markCataloged(now: number): void {
    this.db.insert(retentionCatalog).values({ id: 1, registeredAt: now }).onConflictDoNothing().run();
  }

  /** A page of the retained attachments, by message seq. */
  list(
    afterSeq: number | null,
    limit: number,
    order: 'asc' | 'desc',
  ): { files: ChannelFileView[]; next_seq: number | null } {
    const rows = this.db
      .select({ seq: messages.seq, m: messages })
      .from(files)
      .innerJoin(messages, eq(messages.seq, files.seq))
      .where(afterSeq === null ? undefined : order === 'asc' ? gt(files.seq, afterSeq) : lt(files.seq, afterSeq))
      .orderBy(order === 'asc' ? asc(files.seq) : desc(files.seq))
      .limit(limit + 1)
      .all();
    const page = rows.slice(0, limit);
    return {
      files: page.flatMap(({ m }) =>
        m.attachment
          ? [{ ...m.attachment, message_id: m.messageId, sender_id: m.senderId, created_at: iso(m.createdAt) }]
          : [],
      ),
      next_seq: rows.length > limit ? (page.at(-1)?.seq ?? null) : null,
    };
  }

  /** The object and display metadata of a retained file, or null. */
  find(fileId: string): { key: string; filename: string; media_type: string; size: number } | null {
    const row = this.db
      .select({ key: files.objectKey, size: files.size, m: messages.attachment })
      .from(files)
      .innerJoin(messages, eq(messages.seq, files.seq))
      .where(eq(files.fileId, fileId))
      .get();
    if (!row?.m) return null;
    return { key: row.key, filename: row.m.filename, media_type: row.m.media_type, size: row.size };
  }

  /** Every object key this channel owns or owes a deletion for (tests compare them with R2). */
  ownedKeys(): { live: string[]; pending: string[]; deleting: string[] } {
    return {
      live: this.db
        .select({ k: files.objectKey })
        .from(files)
        .all()
        .map((r) => r.k),
      pending: this.db
        .select({ k: pendingObjects.objectKey })
        .from(pendingObjects)
        .all()
        .map((r) => r.k),
      deleting: this.queue.keys(),
    };
  }
}
