/**
 * Retention: the coupled caps after every insert (the newest `maxMessages` messages stay, and of
 * those at most `maxFiles` file messages), the retroactive cleanup after an administrator lowered
 * limits, and the channel's one deletion path (`purge`), which dissolution uses too.
 *
 * The deletions are fixed SQL text (shared-sql.ts says why). A channel at its message cap purges
 * its oldest message on every send, and profiles of `--op send` (docs/benchmarks.md) showed
 * drizzle building these statements anew costing about a tenth of the isolate's samples, more
 * than SQLite running them. Each statement exists in two fixed forms, one per way of naming the
 * victims, so workerd prepares each text once:
 *   - `upTo`: every message with seq <= the given seq (the count cap's edge, or everything);
 *   - `seqs`: a list of seqs, bound as ONE JSON array (json_each), so the text does not depend on
 *     its length (the file cap, lowered limits).
 * The cold retroactive scan (enforceLimits) stays on drizzle. Everything runs inside the caller's
 * transaction (`sql.exec` joins drizzle's `transactionSync`).
 */
import { and, asc, gt, sql } from 'drizzle-orm';
import { codePointLength } from '../../core/domain/content.js';
import type { ChannelFiles } from './files.js';
import * as schema from './schema.js';
import { type ChannelSql, type Db, num } from './shared-sql.js';

/** How many purged message IDs a channel remembers for `message_purged` answers. */
export const PURGED_IDS_KEPT = 1_000;

/** The limits a retroactive cleanup brings the channel within. */
export interface RetentionLimitsNow {
  maxMessages: number;
  maxFiles: number;
  maxBodyCodePoints: number;
  maxFileBytes: number;
}

/** Which messages a purge deletes. */
export type Victims = { upTo: number } | { seqs: readonly number[] };

const FORMS = {
  upTo: 'seq <= ?',
  seqs: 'seq in (select value from json_each(?))',
} as const;

function statements(victim: string) {
  return {
    // The files' objects get deletion jobs (durable-objects/shared/deletion-jobs.ts) before their
    // rows go, in the transaction that revokes access to them.
    jobs: `insert into deletion_jobs (object_key, upload_id, next_attempt_at, created_at)
      select object_key, null, ?, ? from files where ${victim} order by seq`,
    files: `delete from files where ${victim}`,
    deliveries: `delete from deliveries where ${victim}`,
    dedup: `delete from dedup where ${victim}`,
    tombstones: `insert into purged (message_id, seq, purged_at, thread_id)
      select message_id, seq, ?, thread_id from messages where ${victim} on conflict do nothing`,
    messages: `delete from messages where ${victim}`,
  };
}

const SQL = { upTo: statements(FORMS.upTo), seqs: statements(FORMS.seqs) };

/**
 * Keeps the newest `kept` tombstones by deleting the oldest (count - kept), none when there are
 * fewer. The former edge (`order by seq desc limit 1 offset kept`) stepped over all `kept`
 * entries on every purge; this counts the index and steps over only the excess (sqlite3 at 1,000
 * tombstones: about 13 us -> 4.5 us a purge).
 */
const TRIM_TOMBSTONES =
  'delete from purged where seq in (select seq from purged order by seq limit max(0, (select count(*) from purged) - ?))';

/** The seq of the newest message beyond the newest `keep` (the count cap's edge), if any. */
const RETENTION_EDGE = 'select seq from messages order by seq desc limit 1 offset ?';

/** Seqs of the file messages beyond the newest `maxFiles` ones (the file cap's victims). */
const OVER_FILE_CAP = 'select seq from files where seq <= (select seq from files order by seq desc limit 1 offset ?)';

const { messages } = schema;

export class ChannelRetention {
  constructor(
    private readonly db: Db,
    private readonly sql: ChannelSql,
    private readonly files: ChannelFiles,
  ) {}

  /**
   * Coupled retention, run after every insert in the insert's transaction: the newest
   * `maxMessages` messages stay, and of those at most `maxFiles` file messages (the newest); the
   * oldest go even when unread or leased. A file message that goes takes its file with it (a
   * deletion job in this same transaction), and a file over the cap takes its whole message.
   */
  afterInsert(maxMessages: number, now: number, maxFiles?: number): void {
    const edge = this.sql.first(RETENTION_EDGE, maxMessages);
    if (edge) this.purge({ upTo: num(edge.seq) }, now);
    if (maxFiles === undefined) return;
    // A list, not a subquery over `files`: purging deletes those rows before the messages.
    this.purge({ seqs: this.sql.all(OVER_FILE_CAP, maxFiles).map((r) => num(r.seq)) }, now);
  }

  /**
   * Retroactive cleanup after an administrator lowered limits: messages whose body or file is now
   * over the length or size limit go whole, then the count caps apply as after a write. Bodies are
   * measured in code points; SQLite's byte length is only a prefilter (a body over N code points
   * has more than N bytes), read in pages so a channel of large bodies never sits in memory.
   */
  enforceLimits(limits: RetentionLimitsNow, now: number): void {
    this.db.transaction((tx) => {
      const victims: number[] = [...this.files.oversized(tx, limits.maxFileBytes)];
      let after = 0;
      for (;;) {
        const page = tx
          .select({ seq: messages.seq, body: messages.body })
          .from(messages)
          .where(
            and(gt(messages.seq, after), sql`length(cast(${messages.body} as blob)) > ${limits.maxBodyCodePoints}`),
          )
          .orderBy(asc(messages.seq))
          .limit(100)
          .all();
        for (const m of page) if (codePointLength(m.body) > limits.maxBodyCodePoints) victims.push(m.seq);
        const last = page.at(-1);
        if (!last) break;
        after = last.seq;
      }
      this.purge({ seqs: victims }, now);
      this.afterInsert(limits.maxMessages, now, limits.maxFiles);
    });
  }

  /**
   * Deletes the victims with everything that refers to them: their files (each object gets a
   * deletion job), deliveries (and so claims and ACK metadata) and dedup pointers, leaving only
   * their IDs as tombstones, of which the newest PURGED_IDS_KEPT stay. Each statement covers all
   * victims; they run inside the caller's transaction.
   */
  purge(victims: Victims, now: number): void {
    let form: keyof typeof SQL;
    let param: SqlStorageValue;
    if ('upTo' in victims) {
      form = 'upTo';
      param = victims.upTo;
    } else {
      if (victims.seqs.length === 0) return;
      form = 'seqs';
      param = JSON.stringify(victims.seqs);
    }
    const s = SQL[form];
    this.sql.run(s.jobs, now, now, param);
    this.sql.run(s.files, param);
    this.sql.run(s.deliveries, param);
    this.sql.run(s.dedup, param);
    this.sql.run(s.tombstones, now, param);
    this.sql.run(s.messages, param);
    this.sql.run(TRIM_TOMBSTONES, PURGED_IDS_KEPT);
  }
}
