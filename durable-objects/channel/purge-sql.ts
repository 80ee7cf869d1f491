/**
 * Retention's deletions as fixed SQL text (the pattern of hot-sql.ts). Why: a channel at its
 * message cap purges its oldest message on every send, and profiles of `--op send`
 * (docs/benchmarks.md) showed drizzle building these statements anew costing about a tenth of the
 * isolate's samples, more than SQLite running them. Each statement exists in two fixed forms, one
 * per way of naming the victims, so workerd prepares each text once:
 *   - `upTo`: every message with seq <= the given seq (the count cap's edge, or everything);
 *   - `seqs`: a list of seqs, bound as ONE JSON array (json_each), so the text does not depend on
 *     its length (the file cap, lowered limits).
 * They run inside the caller's transaction (`sql.exec` joins drizzle's `transactionSync`).
 */

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

export class ChannelPurgeSql {
  constructor(private readonly sql: SqlStorage) {}

  /**
   * Deletes the victims with everything that refers to them: their files (each object gets a
   * deletion job), deliveries (and so claims and ACK metadata) and dedup pointers, leaving only
   * their IDs as tombstones, of which the newest `tombstonesKept` stay.
   */
  purge(victims: Victims, now: number, tombstonesKept: number): void {
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
    this.sql.exec(s.jobs, now, now, param);
    this.sql.exec(s.files, param);
    this.sql.exec(s.deliveries, param);
    this.sql.exec(s.dedup, param);
    this.sql.exec(s.tombstones, now, param);
    this.sql.exec(s.messages, param);
    this.sql.exec(TRIM_TOMBSTONES, tombstonesKept);
  }

  /** Seqs of the file messages beyond the newest `maxFiles` ones (the file cap's victims). */
  overFileCap(maxFiles: number): number[] {
    return this.sql
      .exec<{ seq: number }>(
        'select seq from files where seq <= (select seq from files order by seq desc limit 1 offset ?)',
        maxFiles,
      )
      .toArray()
      .map((r) => r.seq);
  }
}
