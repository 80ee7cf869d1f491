import { type DrizzleSqliteDODatabase, drizzle } from 'drizzle-orm/durable-sqlite';
import { migrate } from 'drizzle-orm/durable-sqlite/migrator';

type Migrations = Parameters<typeof migrate>[1];

/**
 * Opens a Durable Object's SQLite database through drizzle and brings its schema up to date
 * before the object serves anything (blockConcurrencyWhile holds every request until then).
 *
 * `schema` only types the handle: drizzle is opened without it. Given a schema, drizzle builds a
 * relational query builder per table (the handle's `query` property) for the database and again for every
 * transaction, which was a measurable share of a send's CPU; nothing here uses relational queries
 * (the tables are imported where a statement names them), and a test keeps it so.
 */
export function openDatabase<S extends Record<string, unknown>>(
  ctx: DurableObjectState,
  _schema: S,
  migrations: Migrations,
): DrizzleSqliteDODatabase<S> {
  const db = drizzle(ctx.storage) as DrizzleSqliteDODatabase<S>;
  void ctx.blockConcurrencyWhile(async () => {
    await migrate(db, migrations);
  });
  return db;
}

/** ISO-8601 UTC with milliseconds: the API's one time format. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
