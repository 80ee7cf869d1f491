/**
 * Upload admission as leases: an upload holds a lease (its reserved bytes, its staged object's
 * key) that expires unless its request renews it, so an upload whose request died gives its share
 * back on its own. The admission rule itself is admission.ts; a staged object whose lease ends
 * (released, or expired) becomes a deletion job in the same transaction.
 */
import { and, count, eq, gt, lte, sql, sum } from 'drizzle-orm';
import { ApiError } from '../../core/contract/errors.js';
import { randomToken } from '../../core/lib/crypto.js';
import type { DeletionQueue } from '../shared/deletion-jobs.js';
import { admissionRefusal, type Held } from './admission.js';
import type { RetentionDb } from './database.js';
import { HEALTH_POLL_MS } from './deletion-health.js';
import { uploadLeases } from './schema.js';

/** An upload lease lives this long unless renewed; the uploading request renews it every third of it. */
export const UPLOAD_LEASE_MS = 30_000;
/** Hint for a refused upload: admission frees up as uploads finish, usually within seconds. */
const ADMISSION_RETRY_MS = 2_000;

export interface UploadLease {
  leaseId: string;
  /** The opaque key the staged object must be written under. */
  key: string;
  leaseMs: number;
}

export interface AdmissionInput {
  agentId: string;
  reserveBytes: number;
  maxConcurrent: number;
  maxTempBytes: number;
}

export class UploadLeases {
  constructor(
    private readonly db: RetentionDb,
    private readonly queue: DeletionQueue,
  ) {}

  /**
   * Admits one upload or refuses it: 503 cleanup_unavailable while deletions are failing
   * (`failedDeletions`), 429 upload_admission_denied when the uploader's share (admission.ts) or
   * the concurrent-upload or temporary-byte limit would be passed.
   */
  acquire(input: AdmissionInput, failedDeletions: number, now: number): UploadLease {
    this.expire(now);
    if (failedDeletions > 0) {
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
    return lease;
  }

  /** Extends a lease; false when it is gone (expired and swept): the upload must then fail. */
  renew(leaseId: string, now: number): boolean {
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
  noteMultipart(leaseId: string, uploadId: string, now: number): boolean {
    const updated = this.db
      .update(uploadLeases)
      .set({ uploadId })
      .where(and(eq(uploadLeases.leaseId, leaseId), gt(uploadLeases.expiresAt, now)))
      .returning({ id: uploadLeases.leaseId })
      .all();
    return updated.length > 0;
  }

  /** The upload is over: the lease goes and its staged object becomes a deletion job, in one transaction. */
  release(leaseId: string, now: number): void {
    this.db.transaction((tx) => {
      const row = tx.select().from(uploadLeases).where(eq(uploadLeases.leaseId, leaseId)).get();
      if (!row) return;
      tx.delete(uploadLeases).where(eq(uploadLeases.leaseId, leaseId)).run();
      this.queue.enqueue(tx, [{ key: row.objectKey, uploadId: row.uploadId }], now);
    });
  }

  /** Expired leases: their uploads died without releasing; the staged objects are deleted. */
  expire(now: number): void {
    this.endLeases(lte(uploadLeases.expiresAt, now), now);
  }

  /**
   * Every lease, expired or not: the self-hosted launcher calls this when it starts, before it
   * serves anything, so every lease is one of a previous boot's uploads, which died with it (a
   * SIGKILL mid-upload would otherwise hold its agent's admission for up to UPLOAD_LEASE_MS).
   * Bounded: there are at most as many leases as the concurrent-upload limit admits.
   */
  releaseAll(now: number): number {
    return this.endLeases(undefined, now);
  }

  private endLeases(where: ReturnType<typeof lte> | undefined, now: number): number {
    return this.db.transaction((tx) => {
      const expired = tx.select().from(uploadLeases).where(where).all();
      if (expired.length === 0) return 0;
      tx.delete(uploadLeases).where(where).run();
      this.queue.enqueue(
        tx,
        expired.map((l) => ({ key: l.objectKey, uploadId: l.uploadId })),
        now,
      );
      return expired.length;
    });
  }

  count(): number {
    return this.db.select({ n: count() }).from(uploadLeases).get()?.n ?? 0;
  }

  /** The staged objects that leases own (the stray sweep leaves them alone). */
  keys(): Set<string> {
    return new Set(
      this.db
        .select({ key: uploadLeases.objectKey })
        .from(uploadLeases)
        .all()
        .map((r) => r.key),
    );
  }

  /** The earliest expiry (object clock); null: no lease. */
  nextExpiry(): number | null {
    return (
      this.db
        .select({ t: sql<number | null>`min(${uploadLeases.expiresAt})` })
        .from(uploadLeases)
        .get()?.t ?? null
    );
  }
}
