/**
 * The audit log of administrator actions (docs/audit-log.md): one row per state-changing admin
 * request and per successful sign-in, written by the worker's audit middleware
 * (worker/middleware/audit.ts). Refused sign-ins need no key, so anyone can make them: they are
 * counted in one row per action, outcome, address and account per REFUSAL_WINDOW_MS, and those
 * rows have a cap of their own (AUDIT_MAX_REFUSAL_ROWS), so a flood evicts older counts and never
 * an administrator's entry. A row holds IDs and codes only, never a request body, so it cannot
 * hold a password or a key. Kept AUDIT_MAX_AGE_MS and at most AUDIT_MAX_ENTRIES entries besides
 * the counts, pruned by the registry's alarm.
 */
import { and, desc, eq, gte, inArray, isNotNull, isNull, lt, lte, type SQL, sql } from 'drizzle-orm';
import type { FieldChange } from '../../core/domain/audit-changes.js';
import { decodeSeqCursor, encodeCursor } from '../../core/lib/cursor.js';
import type { AuditEntryView, AuditFilter } from '../../core/rpc.js';
import { iso } from '../shared/database.js';
import type { RegistryDb } from './database.js';
import * as schema from './schema.js';
import { addressKey } from './throttle.js';

export const AUDIT_MAX_AGE_MS = 90 * 24 * 60 * 60_000;
export const AUDIT_MAX_ENTRIES = 100_000;
/** Pruning runs at least this often while the log has entries. */
export const AUDIT_PRUNE_INTERVAL_MS = 24 * 60 * 60_000;
/** Refused sign-ins from one address for one account are counted in one row per window. */
export const REFUSAL_WINDOW_MS = 60 * 60_000;
/** Count rows kept at most, apart from the entries: a flood from many addresses evicts the oldest. */
export const AUDIT_MAX_REFUSAL_ROWS = 10_000;
/** Bounds on what one row stores, whatever a request names. */
const MAX_TARGETS = 16;
const MAX_TEXT = 128;
/** A settings change touches at most every limit; more than this is no single administrator's edit. */
const MAX_CHANGES = 32;

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
  /** Names the caller knows and the registry no longer can (a deleted agent or host), by ID. */
  names?: Record<string, string>;
  /** What the action changed, field by field (core/domain/audit-changes.ts). */
  changes?: FieldChange[];
}

/** A refused sign-in or set-up: counted, not written as an entry of its own. */
export interface RefusalRecord {
  /** The username it named; kept only if that account exists. */
  account: string | null;
  action: string;
  clientAddress: string;
  outcome: string;
  requestId: string;
}

export class AuditLog {
  constructor(
    private readonly db: RegistryDb,
    private readonly maxRefusalRows = AUDIT_MAX_REFUSAL_ROWS,
  ) {}

  /** A failed sign-in may carry a password typed into the username field: keep only real names. */
  private knownAdmin(name: string | null): string | null {
    if (name === null) return null;
    const admin = name.slice(0, MAX_TEXT);
    const known = this.db
      .select({ u: schema.admins.username })
      .from(schema.admins)
      .where(eq(schema.admins.username, admin))
      .get();
    return known ? admin : null;
  }

  record(entry: AuditRecord, at = Date.now()): void {
    const admin = entry.claimed
      ? this.knownAdmin(entry.admin)
      : entry.admin === null
        ? null
        : entry.admin.slice(0, MAX_TEXT);
    const targets = [...new Set(entry.targets)].slice(0, MAX_TARGETS).map((t) => t.slice(0, MAX_TEXT));
    const names = this.namesOf(targets, entry.names ?? {});
    const changes = (entry.changes ?? []).slice(0, MAX_CHANGES).map((c) => ({
      field: c.field.slice(0, MAX_TEXT),
      old: c.old === null ? null : c.old.slice(0, MAX_TEXT),
      new: c.new === null ? null : c.new.slice(0, MAX_TEXT),
    }));
    this.db
      .insert(schema.auditLog)
      .values({
        at,
        admin,
        action: entry.action.slice(0, MAX_TEXT),
        targets,
        clientAddress: entry.clientAddress.slice(0, MAX_TEXT),
        outcome: entry.outcome.slice(0, MAX_TEXT),
        requestId: entry.requestId.slice(0, MAX_TEXT),
        names: Object.keys(names).length > 0 ? names : null,
        changes: changes.length > 0 ? changes : null,
      })
      .run();
  }

  /**
   * The targets' names as the registry knows them now (agents and hosts), else as the caller
   * knew them (a deletion: gone from the tables by the time its entry is written). Only names of
   * targets are kept, so a caller cannot add text of its own.
   */
  private namesOf(targets: string[], known: Record<string, string>): Record<string, string> {
    const names: Record<string, string> = {};
    const agentIds = targets.filter((t) => t.startsWith('agt_'));
    const hostIds = targets.filter((t) => t.startsWith('hst_'));
    if (agentIds.length > 0) {
      const rows = this.db
        .select({ id: schema.agents.agentId, name: schema.agents.name })
        .from(schema.agents)
        .where(inArray(schema.agents.agentId, agentIds))
        .all();
      for (const r of rows) names[r.id] = r.name;
    }
    if (hostIds.length > 0) {
      const rows = this.db
        .select({ id: schema.hosts.hostId, name: schema.hosts.name })
        .from(schema.hosts)
        .where(inArray(schema.hosts.hostId, hostIds))
        .all();
      for (const r of rows) names[r.id] = r.name;
    }
    for (const target of targets) {
      const name = known[target];
      if (names[target] === undefined && typeof name === 'string') names[target] = name.slice(0, MAX_TEXT);
    }
    return names;
  }

  /**
   * One more refusal in its window's count row: the first creates the row (the request ID and
   * time of the first refusal), the rest add to `count` and move `last_at`.
   */
  recordRefusal(refusal: RefusalRecord, at = Date.now()): void {
    const account = this.knownAdmin(refusal.account);
    const address = addressKey(refusal.clientAddress).slice(0, MAX_TEXT);
    const action = refusal.action.slice(0, MAX_TEXT);
    const outcome = refusal.outcome.slice(0, MAX_TEXT);
    const window = Math.floor(at / REFUSAL_WINDOW_MS);
    const aggKey = JSON.stringify([window, action, outcome, address, account]);
    const inserted = this.db
      .insert(schema.auditLog)
      .values({
        at,
        admin: account,
        action,
        targets: [],
        clientAddress: address,
        outcome,
        requestId: refusal.requestId.slice(0, MAX_TEXT),
        count: 1,
        lastAt: at,
        aggKey,
      })
      .onConflictDoUpdate({
        target: schema.auditLog.aggKey,
        set: { count: sql`${schema.auditLog.count} + 1`, lastAt: at },
      })
      .returning({ count: schema.auditLog.count })
      .get();
    if (inserted?.count === 1) this.boundRefusalRows();
  }

  /** Only a new count row can pass the cap; the oldest go. */
  private boundRefusalRows(): void {
    const rows =
      this.db.select({ n: sql<number>`count(*)` }).from(schema.auditLog).where(isNotNull(schema.auditLog.aggKey)).get()
        ?.n ?? 0;
    if (rows <= this.maxRefusalRows) return;
    this.db.run(sql`DELETE FROM audit_log WHERE id IN (
      SELECT id FROM audit_log WHERE agg_key IS NOT NULL ORDER BY id ASC LIMIT ${rows - this.maxRefusalRows})`);
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
        count: r.count,
        last_at: iso(r.lastAt ?? r.at),
        names: r.names ?? {},
        changes: r.changes ?? [],
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
    // The entries' own cap: the newest AUDIT_MAX_ENTRIES entries stay, whatever the counts do.
    const oldestKept = this.db
      .select({ id: schema.auditLog.id })
      .from(schema.auditLog)
      .where(isNull(schema.auditLog.aggKey))
      .orderBy(desc(schema.auditLog.id))
      .limit(1)
      .offset(AUDIT_MAX_ENTRIES - 1)
      .get();
    if (oldestKept !== undefined) {
      this.db
        .delete(schema.auditLog)
        .where(and(isNull(schema.auditLog.aggKey), lt(schema.auditLog.id, oldestKept.id)))
        .run();
    }
    return this.db.select({ id: schema.auditLog.id }).from(schema.auditLog).limit(1).get() !== undefined;
  }
}
