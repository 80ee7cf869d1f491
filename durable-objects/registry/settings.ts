/** The global settings (limits) and their revision, which only moves forward. */
import { eq } from 'drizzle-orm';
import type { Limits } from '../../core/contract/models.js';
import { DEFAULT_LIMITS } from '../../core/lib/limits.js';
import { iso } from '../shared/database.js';
import type { RegistryDb } from './database.js';
import * as schema from './schema.js';

export function readSettings(db: RegistryDb): { limits: Limits; revision: number } {
  const row = db.select().from(schema.settings).where(eq(schema.settings.id, 1)).get();
  if (!row) return { limits: DEFAULT_LIMITS, revision: 1 };
  // Settings added in later releases take their default until an administrator sets them.
  return { limits: { ...DEFAULT_LIMITS, ...(row.limits as Partial<Limits>) }, revision: row.revision };
}

/** Applies `patch`; answers the new settings and which limits it lowered (retroactive cleanup). */
export function writeSettings(
  db: RegistryDb,
  patch: Partial<Limits>,
): { limits: Limits; revision: number; lowered: string[] } {
  const current = readSettings(db);
  const limits = { ...current.limits, ...patch };
  const lowered = (Object.keys(patch) as (keyof Limits)[]).filter((k) => limits[k] < current.limits[k]);
  const changed = (Object.keys(patch) as (keyof Limits)[]).some((k) => limits[k] !== current.limits[k]);
  if (!changed) return { ...current, lowered: [] };
  const revision = current.revision + 1;
  db.insert(schema.settings)
    .values({ id: 1, limits, revision, updatedAt: iso(Date.now()) })
    .onConflictDoUpdate({ target: schema.settings.id, set: { limits, revision, updatedAt: iso(Date.now()) } })
    .run();
  return { limits, revision, lowered };
}
