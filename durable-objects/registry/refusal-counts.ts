/**
 * Refused requests across the fleet, for the fleet view and the metrics. Each agent's object counts
 * the refusals that named it (agent/rejections.ts) and reports what it counted with its own write,
 * at most once per 10 s; the registry adds them up per agent, reason, address and minute. The fleet
 * view's windows (the last hour, the last day) and top lists are then a few aggregates over at most
 * a day of rows, never a visit to the agents' objects.
 *
 * Exactness: every refusal an agent's object decides (a revoked key, a disabled agent, a wrong
 * address, a wrong key of this server's making) is counted. A key without this server's tag is
 * refused by the worker itself, which forwards at most one such refusal per agent per 10 s
 * (worker/lib/refused-keys.ts): `wrong_key` is therefore a lower bound, and says so (LOWER_BOUND).
 */
import { and, desc, gte, lt, ne, sql } from 'drizzle-orm';
import type { RejectionView } from '../../core/rpc.js';
import type { RegistryDb } from './database.js';
import { refusalCounts, refusalTotals } from './schema.js';

export type RefusalReason = RejectionView['reason'];
export const REFUSAL_REASONS: readonly RefusalReason[] = [
  'wrong_key',
  'key_revoked',
  'agent_disabled',
  'wrong_address',
];
/** Reasons whose counts are lower bounds (see above). */
export const LOWER_BOUND: readonly RefusalReason[] = ['wrong_key'];

/** What an agent's object reports after counting: one entry per reason and address. */
export interface RefusalReport {
  reason: RefusalReason;
  address: string;
  /** When the last refusal counted here happened (ms). */
  at: number;
  count: number;
}

export interface RefusalWindow {
  total: number;
  by_reason: Record<RefusalReason, number>;
}

export interface RefusalFigures {
  last_hour: RefusalWindow;
  last_day: RefusalWindow;
  /** Over the last day, most refusals first. */
  top_agents: { agent_id: string; count: number }[];
  top_addresses: { address: string; count: number }[];
}

const MINUTE_MS = 60_000;
const DAY_MINUTES = 24 * 60;
/** Rows older than a day deleted per report, so a report's work stays bounded. */
const PRUNE_ROWS = 500;
/** Entries taken from one report (the agent's object keeps at most 50 per window). */
const REPORT_ENTRIES = 200;

const minuteOf = (ms: number) => Math.floor(ms / MINUTE_MS);

export function recordRefusals(db: RegistryDb, agentId: string, entries: readonly RefusalReport[], now: number): void {
  const valid = entries
    .filter((e) => REFUSAL_REASONS.includes(e.reason) && Number.isSafeInteger(e.count) && e.count > 0)
    .slice(0, REPORT_ENTRIES);
  const oldest = minuteOf(now) - DAY_MINUTES;
  db.transaction((tx) => {
    for (const e of valid) {
      // A report about the future (a clock ahead) counts now; one older than the window only in the totals.
      const minute = Math.min(minuteOf(e.at), minuteOf(now));
      if (minute > oldest) {
        tx.insert(refusalCounts)
          .values({ agentId, reason: e.reason, address: e.address.slice(0, 64), minute, count: e.count })
          .onConflictDoUpdate({
            target: [refusalCounts.agentId, refusalCounts.reason, refusalCounts.address, refusalCounts.minute],
            set: { count: sql`${refusalCounts.count} + ${e.count}` },
          })
          .run();
      }
      tx.insert(refusalTotals)
        .values({ reason: e.reason, count: e.count })
        .onConflictDoUpdate({ target: refusalTotals.reason, set: { count: sql`${refusalTotals.count} + ${e.count}` } })
        .run();
    }
    tx.run(
      sql`delete from ${refusalCounts} where rowid in (select rowid from ${refusalCounts} where ${refusalCounts.minute} <= ${oldest} limit ${PRUNE_ROWS})`,
    );
  });
}

function windowSince(db: RegistryDb, fromMinute: number): RefusalWindow {
  const rows = db
    .select({ reason: refusalCounts.reason, n: sql<number>`sum(${refusalCounts.count})` })
    .from(refusalCounts)
    .where(gte(refusalCounts.minute, fromMinute))
    .groupBy(refusalCounts.reason)
    .all();
  const by_reason = Object.fromEntries(REFUSAL_REASONS.map((r) => [r, 0])) as Record<RefusalReason, number>;
  for (const row of rows) by_reason[row.reason] = Number(row.n);
  return { total: Object.values(by_reason).reduce((a, b) => a + b, 0), by_reason };
}

/**
 * The last hour is the current minute and the 59 before it; the last day likewise 1,440 minutes.
 * `top`: how many agents and addresses to list.
 */
export function refusalFigures(db: RegistryDb, now: number, top: number): RefusalFigures {
  const current = minuteOf(now);
  const dayFrom = current - DAY_MINUTES + 1;
  const inDay = and(gte(refusalCounts.minute, dayFrom), lt(refusalCounts.minute, current + 1));
  const n = sql<number>`sum(${refusalCounts.count})`;
  return {
    last_hour: windowSince(db, current - 59),
    last_day: windowSince(db, dayFrom),
    top_agents: db
      .select({ agent_id: refusalCounts.agentId, count: n })
      .from(refusalCounts)
      .where(inDay)
      .groupBy(refusalCounts.agentId)
      .orderBy(desc(n), refusalCounts.agentId)
      .limit(top)
      .all()
      .map((r) => ({ agent_id: r.agent_id, count: Number(r.count) })),
    top_addresses: db
      .select({ address: refusalCounts.address, count: n })
      .from(refusalCounts)
      // '' holds refusals counted past what an agent's object keeps per window: no address known.
      .where(and(inDay, ne(refusalCounts.address, '')))
      .groupBy(refusalCounts.address)
      .orderBy(desc(n), refusalCounts.address)
      .limit(top)
      .all()
      .map((r) => ({ address: r.address, count: Number(r.count) })),
  };
}

/** Every refusal reported since the registry began, by reason (a counter for the metrics). */
export function refusalTotalsByReason(db: RegistryDb): Record<RefusalReason, number> {
  const totals = Object.fromEntries(REFUSAL_REASONS.map((r) => [r, 0])) as Record<RefusalReason, number>;
  for (const row of db.select().from(refusalTotals).all()) {
    if (REFUSAL_REASONS.includes(row.reason as RefusalReason)) totals[row.reason as RefusalReason] = row.count;
  }
  return totals;
}
