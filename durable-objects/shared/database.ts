import { type DrizzleSqliteDODatabase, drizzle } from 'drizzle-orm/durable-sqlite';
import { migrate } from 'drizzle-orm/durable-sqlite/migrator';

type Migrations = Parameters<typeof migrate>[1];

/**
 * Opens a Durable Object's SQLite database through drizzle and brings its schema up to date
 * before the object serves anything (blockConcurrencyWhile holds every request until then).
 */
export function openDatabase<S extends Record<string, unknown>>(
  ctx: DurableObjectState,
  schema: S,
  migrations: Migrations,
): DrizzleSqliteDODatabase<S> {
  const db = drizzle(ctx.storage, { schema });
  void ctx.blockConcurrencyWhile(async () => {
    await migrate(db, migrations);
  });
  return db;
}

/** ISO-8601 UTC with milliseconds: the API's one time format. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
