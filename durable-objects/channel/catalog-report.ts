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
import type { ChannelReport, ChannelStats } from '../retention/catalog.js';
import * as schema from './schema.js';

type Db = DrizzleSqliteDODatabase<typeof schema>;

const { channel, messages, files, catalogReport } = schema;

function sameStats(a: ChannelStats, b: ChannelStats): boolean {
  return (
    a.status === b.status &&
    a.message_count === b.message_count &&
    a.file_count === b.file_count &&
    a.last_message_at === b.last_message_at
  );
}

export class ChannelCatalogReport {
  constructor(private readonly db: Db) {}

  /** The channel's figures as they are now, or null before the channel exists. */
  private current(): { report: Omit<ChannelReport, 'version'> } | null {
    const row = this.db.select().from(channel).where(eq(channel.id, 1)).get();
    if (!row) return null;
    const stats: ChannelStats = {
      status: row.status,
      message_count: this.db.select({ n: count() }).from(messages).get()?.n ?? 0,
      file_count: this.db.select({ n: count() }).from(files).get()?.n ?? 0,
      last_message_at: row.lastSeq > 0 ? row.lastCreatedAt : null,
    };
    return { report: { channel_id: row.channelId, kind: row.kind, created_at: row.createdAt, ...stats } };
  }

  /**
   * The report to send when the catalog has not confirmed the current figures (null: up to
   * date, or no channel yet). Taking it bumps the version in the same synchronous step.
   */
  due(): ChannelReport | null {
    const now = this.current();
    if (!now) return null;
    return this.db.transaction((tx) => {
      const row = tx.select().from(catalogReport).where(eq(catalogReport.id, 1)).get();
      if (row?.confirmed && sameStats(row.confirmed, now.report)) return null;
      const version = (row?.version ?? 0) + 1;
      tx.insert(catalogReport)
        .values({ id: 1, version })
        .onConflictDoUpdate({ target: catalogReport.id, set: { version } })
        .run();
      return { ...now.report, version };
    });
  }

  /** The catalog took `report`; an older confirmation arriving late changes nothing. */
  confirmed(report: ChannelReport): void {
    const stats: ChannelStats = {
      status: report.status,
      message_count: report.message_count,
      file_count: report.file_count,
      last_message_at: report.last_message_at,
    };
    this.db
      .update(catalogReport)
      .set({ confirmedVersion: report.version, confirmed: stats })
      .where(sql`${catalogReport.id} = 1 and ${catalogReport.confirmedVersion} < ${report.version}`)
      .run();
  }
}
