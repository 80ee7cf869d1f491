/**
 * The fleet view's agent figures: how many agents are in each key state and how long ago each was
 * last seen, counted by one SQL statement over the agents table (never a page of agents sent to
 * the worker, never an agent's object asked), so the overview costs the same with 10 agents or
 * 10,000.
 */
import { sql } from 'drizzle-orm';
import type { RegistryDb } from './database.js';
import { agents } from './schema.js';

export interface FleetAgentFigures {
  total: number;
  enabled: number;
  disabled: number;
  by_key_state: { active: number; revoked: number; none: number };
  /** Last access: never, over a day ago, over an hour ago (within the day), within the hour. */
  by_last_access: { never: number; over_a_day: number; over_an_hour: number; active: number };
}

const HOUR_MS = 3_600_000;

/** Cutoffs for the last-access buckets (ISO text compares in time order: the column is ISO). */
export function lastAccessCutoffs(nowMs: number): { hourAgo: string; dayAgo: string } {
  return { hourAgo: new Date(nowMs - HOUR_MS).toISOString(), dayAgo: new Date(nowMs - 24 * HOUR_MS).toISOString() };
}

export function fleetAgentFigures(db: RegistryDb, nowMs: number): FleetAgentFigures {
  const { hourAgo, dayAgo } = lastAccessCutoffs(nowMs);
  const n = (condition: ReturnType<typeof sql>) =>
    sql<number>`coalesce(sum(case when ${condition} then 1 else 0 end), 0)`;
  const row = db
    .select({
      total: sql<number>`count(*)`,
      enabled: n(sql`${agents.enabled} = 1`),
      keyActive: n(sql`${agents.keyHash} is not null`),
      keyRevoked: n(sql`${agents.keyHash} is null and ${agents.keyRevokedAt} is not null`),
      never: n(sql`${agents.lastAccessAt} is null`),
      overADay: n(sql`${agents.lastAccessAt} < ${dayAgo}`),
      overAnHour: n(sql`${agents.lastAccessAt} >= ${dayAgo} and ${agents.lastAccessAt} < ${hourAgo}`),
    })
    .from(agents)
    .get();
  const total = Number(row?.total ?? 0);
  const enabled = Number(row?.enabled ?? 0);
  const active = Number(row?.keyActive ?? 0);
  const revoked = Number(row?.keyRevoked ?? 0);
  const never = Number(row?.never ?? 0);
  const overADay = Number(row?.overADay ?? 0);
  const overAnHour = Number(row?.overAnHour ?? 0);
  return {
    total,
    enabled,
    disabled: total - enabled,
    by_key_state: { active, revoked, none: total - active - revoked },
    by_last_access: {
      never,
      over_a_day: overADay,
      over_an_hour: overAnHour,
      active: total - never - overADay - overAnHour,
    },
  };
}
