/**
 * The audit log of administrator actions (docs/audit-log.md): one row per state-changing admin
 * request and per sign-in, written by the worker's audit middleware (worker/middleware/audit.ts).
 * A row holds IDs and codes only, never a request body, so it cannot hold a password or a key.
 * Kept AUDIT_MAX_AGE_MS and at most AUDIT_MAX_ENTRIES rows, pruned by the registry's alarm.
 */
import { and, desc, eq, gte, lt, lte, type SQL, sql } from 'drizzle-orm';
import { decodeSeqCursor, encodeCursor } from '../../core/lib/cursor.js';
import type { AuditEntryView } from '../../core/rpc.js';
import { iso } from '../shared/database.js';
import type { RegistryDb } from './database.js';
import * as schema from './schema.js';

export const AUDIT_MAX_AGE_MS = 90 * 24 * 60 * 60_000;
export const AUDIT_MAX_ENTRIES = 100_000;
/** Pruning runs at least this often while the log has entries. */
export const AUDIT_PRUNE_INTERVAL_MS = 24 * 60 * 60_000;
/** Bounds on what one row stores, whatever a request names. */
const MAX_TARGETS = 16;
const MAX_TEXT = 128;

export interface AuditRecord {
  /** The signed-in administrator, or the username a sign-in named (`claimed`). */
  admin: string | null;
  /** True when `admin` is only what a sign-in request claimed: kept only if that account exists. */
  claimed?: boolean;
  action: string;
  targets: string[];
  clientAddress: string;
  outcome: string;
  requestId: string;
}

export interface AuditFilter {
  admin?: string;
  action?: string;
  target?: string;
  since?: string;
  until?: string;
}

export class AuditLog {
  constructor(private readonly db: RegistryDb) {}

  record(entry: AuditRecord, at = Date.now()): void {
    let admin = entry.admin === null ? null : entry.admin.slice(0, MAX_TEXT);
    if (admin !== null && entry.claimed) {
      // A failed sign-in may carry a password typed into the username field: keep only real names.
      const known = this.db
        .select({ u: schema.admins.username })
        .from(schema.admins)
        .where(eq(schema.admins.username, admin))
        .get();
      if (!known) admin = null;
    }
    this.db
      .insert(schema.auditLog)
      .values({
        at,
        admin,
        action: entry.action.slice(0, MAX_TEXT),
        targets: [...new Set(entry.targets)].slice(0, MAX_TARGETS).map((t) => t.slice(0, MAX_TEXT)),
        clientAddress: entry.clientAddress.slice(0, MAX_TEXT),
        outcome: entry.outcome.slice(0, MAX_TEXT),
        requestId: entry.requestId.slice(0, MAX_TEXT),
      })
      .run();
  }

  list(
    filter: AuditFilter,
    cursor: string | undefined,
    limit: number,
  ): { entries: AuditEntryView[]; next_cursor: string | null } {
    const before = decodeSeqCursor(cursor, 1);
    const where: SQL[] = [];
    if (before !== null) where.push(lt(schema.auditLog.id, before));
    if (filter.admin !== undefined) where.push(eq(schema.auditLog.admin, filter.admin));
    if (filter.action !== undefined) where.push(eq(schema.auditLog.action, filter.action));
    if (filter.target !== undefined) {
      where.push(sql`exists (select 1 from json_each(${schema.auditLog.targets}) where value = ${filter.target})`);
    }
    if (filter.since !== undefined) where.push(gte(schema.auditLog.at, Date.parse(filter.since)));
    if (filter.until !== undefined) where.push(lte(schema.auditLog.at, Date.parse(filter.until)));
    const rows = this.db
      .select()
      .from(schema.auditLog)
      .where(and(...where))
      .orderBy(desc(schema.auditLog.id))
      .limit(limit + 1)
      .all();
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      entries: page.map((r) => ({
        id: r.id,
        at: iso(r.at),
        admin: r.admin,
        action: r.action,
        targets: r.targets,
        client_address: r.clientAddress,
        outcome: r.outcome,
        request_id: r.requestId,
      })),
      next_cursor: rows.length > limit && last ? encodeCursor([last.id]) : null,
    };
  }

  /** Drops rows older than the retention age, then the oldest beyond the row cap; true if any remain. */
  prune(now: number): boolean {
    this.db
      .delete(schema.auditLog)
      .where(lt(schema.auditLog.at, now - AUDIT_MAX_AGE_MS))
      .run();
    const newest = this.db
      .select({ id: sql<number | null>`max(${schema.auditLog.id})` })
      .from(schema.auditLog)
      .get();
    if (newest?.id != null) {
      // IDs only grow (AUTOINCREMENT), so the newest N rows are those above max - N.
      this.db
        .delete(schema.auditLog)
        .where(lte(schema.auditLog.id, newest.id - AUDIT_MAX_ENTRIES))
        .run();
    }
    return this.db.select({ id: schema.auditLog.id }).from(schema.auditLog).limit(1).get() !== undefined;
  }
}
