import type { DrizzleSqliteDODatabase } from 'drizzle-orm/durable-sqlite';
import type * as schema from './schema.js';

/** The registry's database, shared by its job modules (hosts-agents.ts, admin-auth.ts, …). */
export type RegistryDb = DrizzleSqliteDODatabase<typeof schema>;
export type RegistryTx = Parameters<Parameters<RegistryDb['transaction']>[0]>[0];
