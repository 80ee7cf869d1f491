/**
 * What the retention object's channel catalog knows about this channel: kind, creation, status
 * (dissolved groups drop out of the administrators' list) and the retained message and file
 * counts behind the overview's totals. The channel sends a report when the catalog is behind, not
 * on every message: once when it is created, at once on dissolution, and otherwise in its next
 * alarm (which every send arms), so text messages never wait for the catalog. Each report carries
 * a version the catalog only moves forward, so two reports that cross never leave an older one.
 */
import { count, eq, sql } from 'drizzle-orm';
import type { DrizzleSqliteDODatabase } from 'drizzle-orm/durable-sqlite';
import type { BacklogEntry, ChannelReport, ChannelStats } from '../retention/catalog.js';
import * as schema from './schema.js';

type Db = DrizzleSqliteDODatabase<typeof schema>;

const { channel, messages, files, catalogReport } = schema;

/** What the catalog last confirmed: the figures and, since the fleet view, the backlog. */
type ConfirmedStats = ChannelStats & { backlog?: BacklogEntry[] };

function sameStats(a: ConfirmedStats, b: ConfirmedStats): boolean {
  return (
    a.status === b.status &&
    a.message_count === b.message_count &&
    a.file_count === b.file_count &&
    a.last_message_at === b.last_message_at &&
    JSON.stringify(a.backlog ?? null) === JSON.stringify(b.backlog ?? null)
  );
}

/**
 * Each active participant's unread deliveries (leased and parked among them) and the oldest one's
 * time, by the rules of the inbox counts (inbox.ts COUNTS), in one grouped statement; and the
 * earliest live lease expiry, when the figures next change by themselves (a lease ending).
 */
function backlogNow(
  db: Db,
  now: number,
  maxDeliveries: number,
): { backlog: BacklogEntry[]; nextChangeAt: number | null } {
  const rows = db.all<{
    agent_id: string;
    unread: number;
    leased: number;
    parked: number;
    oldest: number;
    next_expiry: number | null;
  }>(sql`select g.agent_id, g.unread, g.leased, g.parked, m.created_at as oldest, g.next_expiry from (
      select d.recipient_id as agent_id, count(*) as unread,
        sum(case when d.state = 'leased' and d.claim_expires_at > ${now} then 1 else 0 end) as leased,
        sum(case when d.state = 'leased' and d.claim_expires_at <= ${now} and ${maxDeliveries} > 0
          and d.delivery_count >= ${maxDeliveries} then 1 else 0 end) as parked,
        min(d.seq) as oldest_seq,
        min(case when d.state = 'leased' and d.claim_expires_at > ${now} then d.claim_expires_at end) as next_expiry
      from deliveries d join participants p on p.agent_id = d.recipient_id and p.state = 'active'
      where d.state in ('unread', 'leased') group by d.recipient_id) g
    join messages m on m.seq = g.oldest_seq order by g.agent_id`);
  let nextChangeAt: number | null = null;
  for (const r of rows) {
    if (r.next_expiry !== null)
      nextChangeAt = Math.min(nextChangeAt ?? Number.POSITIVE_INFINITY, Number(r.next_expiry));
  }
  return {
    backlog: rows.map((r) => ({
      agent_id: r.agent_id,
      unread: Number(r.unread),
      leased: Number(r.leased),
      parked: Number(r.parked),
      oldest_unread_at: Number(r.oldest),
    })),
    nextChangeAt,
  };
}

export class ChannelCatalogReport {
  constructor(private readonly db: Db) {}

  /**
   * The channel's figures as they are now, or null before the channel exists. `now` and
   * `maxDeliveries` (the setting in force) decide which unread deliveries are leased or parked.
   */
  private current(
    now: number,
    maxDeliveries: number,
  ): { report: Omit<ChannelReport, 'version'>; nextChangeAt: number | null } | null {
    const row = this.db.select().from(channel).where(eq(channel.id, 1)).get();
    if (!row) return null;
    const stats: ChannelStats = {
      status: row.status,
      message_count: this.db.select({ n: count() }).from(messages).get()?.n ?? 0,
      file_count: this.db.select({ n: count() }).from(files).get()?.n ?? 0,
      last_message_at: row.lastSeq > 0 ? row.lastCreatedAt : null,
    };
    const { backlog, nextChangeAt } =
      row.status === 'active' ? backlogNow(this.db, now, maxDeliveries) : { backlog: [], nextChangeAt: null };
    return {
      report: { channel_id: row.channelId, kind: row.kind, created_at: row.createdAt, ...stats, backlog },
      nextChangeAt,
    };
  }

  /**
   * The report to send when the catalog has not confirmed the current figures (null: up to
   * date, or no channel yet). Taking it bumps the version in the same synchronous step.
   * `nextChangeAt`: when a lease ends and the backlog changes without a write (report again then).
   */
  due(now: number, maxDeliveries: number): { report: ChannelReport | null; nextChangeAt: number | null } {
    const current = this.current(now, maxDeliveries);
    if (!current) return { report: null, nextChangeAt: null };
    const report = this.db.transaction((tx) => {
      const row = tx.select().from(catalogReport).where(eq(catalogReport.id, 1)).get();
      if (row?.confirmed && sameStats(row.confirmed, current.report)) return null;
      const version = (row?.version ?? 0) + 1;
      tx.insert(catalogReport)
        .values({ id: 1, version })
        .onConflictDoUpdate({ target: catalogReport.id, set: { version } })
        .run();
      return { ...current.report, version };
    });
    return { report, nextChangeAt: current.nextChangeAt };
  }

  /** The catalog took `report`; an older confirmation arriving late changes nothing. */
  confirmed(report: ChannelReport): void {
    const stats: ConfirmedStats = {
      status: report.status,
      message_count: report.message_count,
      file_count: report.file_count,
      last_message_at: report.last_message_at,
      ...(report.backlog && { backlog: report.backlog }),
    };
    this.db
      .update(catalogReport)
      .set({ confirmedVersion: report.version, confirmed: stats })
      .where(sql`${catalogReport.id} = 1 and ${catalogReport.confirmedVersion} < ${report.version}`)
      .run();
  }
}
