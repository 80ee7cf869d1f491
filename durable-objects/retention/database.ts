import { eq } from 'drizzle-orm';
import type { DrizzleSqliteDODatabase } from 'drizzle-orm/durable-sqlite';
import * as schema from './schema.js';

/** The retention object's database, shared by its job modules. */
export type RetentionDb = DrizzleSqliteDODatabase<typeof schema>;

/** The one row of timers and run progress (cleanup runs, the settings check, the stray sweep). */
export function cleanupStateRow(db: RetentionDb): typeof schema.cleanupState.$inferSelect {
  return db.select().from(schema.cleanupState).where(eq(schema.cleanupState.id, 1)).get()!;
}

export function updateCleanupState(db: RetentionDb, patch: Partial<typeof schema.cleanupState.$inferInsert>): void {
  db.update(schema.cleanupState).set(patch).where(eq(schema.cleanupState.id, 1)).run();
}
