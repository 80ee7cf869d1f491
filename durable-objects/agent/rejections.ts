/**
 * Recent refused requests that named this agent: wrong or revoked key, disabled account, wrong
 * source address. The console shows them on the agent's page so a misconfigured client is
 * diagnosed without server logs.
 *
 * A flood of bad requests must not cost a write each: refusals are counted in memory and written
 * at most once per REJECTION_WRITE_MS (the first one of a quiet period at once, the rest by the
 * alarm), merged into one row per (reason, address), and only the newest REJECTION_ROWS rows are
 * kept. Nothing of the presented key is ever kept, only the reason, the address and the times.
 */
import { desc, sql } from 'drizzle-orm';
import type { DrizzleSqliteDODatabase } from 'drizzle-orm/durable-sqlite';
import type { RejectionView } from '../../core/rpc.js';
import * as schema from './schema.js';

type Db = DrizzleSqliteDODatabase<typeof schema>;
export type RejectionReason = RejectionView['reason'];

/**
 * Half of workerd's eviction of an idle object (10 s after its last request ends: the counts held in
 * memory are gone then). The alarm that writes a window is due at most this long after the latest
 * refusal, so it runs while the object that counted them is still loaded, even on a busy thread.
 */
export const REJECTION_WRITE_MS = 5_000;
export const REJECTION_ROWS = 50;
/** Distinct (reason, address) pairs held in memory between writes; more in one window are dropped. */
const PENDING_MAX = REJECTION_ROWS;

interface Pending {
  reason: RejectionReason;
  address: string;
  firstAt: number;
  lastAt: number;
  count: number;
}

/** What the log hands on after each write (the registry's fleet-wide counts): address '' for the dropped. */
export interface CountedRejection {
  reason: RejectionReason;
  address: string;
  at: number;
  count: number;
}

export class RejectionLog {
  private readonly pending = new Map<string, Pending>();
  /** Refusals beyond PENDING_MAX pairs in one window: not kept here, still counted fleet-wide. */
  private readonly dropped = new Map<RejectionReason, { at: number; count: number }>();
  private lastWriteMs = 0;
  private writeScheduled = false;

  constructor(
    private readonly db: Db,
    /** Runs the write after the current answer (ctx.waitUntil); the window is enforced here. */
    private readonly soon: (write: () => void) => void,
    /** Asks for an alarm no later than `at`, whose run calls flush(). */
    private readonly alarmAt: (at: number) => void,
    /** Told what each write counted, after it committed. */
    private readonly counted: (entries: CountedRejection[]) => void = () => {},
  ) {}

  note(reason: RejectionReason, address: string, now: number): void {
    const key = `${reason}\u0000${address}`;
    const entry = this.pending.get(key);
    if (entry) {
      entry.count++;
      entry.lastAt = now;
    } else if (this.pending.size < PENDING_MAX) {
      this.pending.set(key, { reason, address, firstAt: now, lastAt: now, count: 1 });
    } else {
      const over = this.dropped.get(reason);
      this.dropped.set(reason, { at: now, count: (over?.count ?? 0) + 1 });
    }
    if (this.writeScheduled) return;
    this.writeScheduled = true;
    if (now - this.lastWriteMs >= REJECTION_WRITE_MS) this.soon(() => this.flush(now));
    else this.alarmAt(this.lastWriteMs + REJECTION_WRITE_MS);
  }

  /** Writes what is counted in memory (one transaction) and trims the table to the newest rows. */
  flush(now: number): void {
    this.writeScheduled = false;
    if (this.pending.size === 0 && this.dropped.size === 0) return;
    const entries = [...this.pending.values()];
    const dropped = [...this.dropped].map(([reason, d]) => ({ reason, address: '', at: d.at, count: d.count }));
    this.pending.clear();
    this.dropped.clear();
    this.lastWriteMs = now;
    const { rejections } = schema;
    this.db.transaction((tx) => {
      for (const e of entries) {
        tx.insert(rejections)
          .values(e)
          .onConflictDoUpdate({
            target: [rejections.reason, rejections.address],
            set: { lastAt: e.lastAt, count: sql`${rejections.count} + ${e.count}` },
          })
          .run();
      }
      const keep = tx
        .select({ lastAt: rejections.lastAt })
        .from(rejections)
        .orderBy(desc(rejections.lastAt))
        .limit(1)
        .offset(REJECTION_ROWS - 1)
        .get();
      if (keep) tx.delete(rejections).where(sql`${rejections.lastAt} < ${keep.lastAt}`).run();
    });
    this.counted([
      ...entries.map((e) => ({ reason: e.reason, address: e.address, at: e.lastAt, count: e.count })),
      ...dropped,
    ]);
  }

  /** Newest first, with what is still counted in memory written first. */
  list(now: number): RejectionView[] {
    this.flush(now);
    return this.db
      .select()
      .from(schema.rejections)
      .orderBy(desc(schema.rejections.lastAt))
      .limit(REJECTION_ROWS)
      .all()
      .map((row) => ({
        reason: row.reason,
        address: row.address,
        count: row.count,
        first_at: new Date(row.firstAt).toISOString(),
        last_at: new Date(row.lastAt).toISOString(),
      }));
  }
}
