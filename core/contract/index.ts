/**
 * The operation registry: every operation of the API, keyed by ID. Adding an operation here is
 * the whole declaration; worker/handlers must then implement it (the type checker insists).
 */
import * as admin from './operations/admin.js';
import * as adminAgent from './operations/admin-agent.js';
import * as adminBulk from './operations/admin-bulk.js';
import * as adminConsole from './operations/admin-console.js';
import * as admins from './operations/admins.js';
import * as files from './operations/files.js';
import * as groups from './operations/groups.js';
import * as identity from './operations/identity.js';
import * as leases from './operations/leases.js';
import * as messaging from './operations/messaging.js';
import * as metrics from './operations/metrics.js';
import * as search from './operations/search.js';
import type { OperationDef } from './registry.js';

function pickOperations<T extends Record<string, unknown>>(module: T) {
  return Object.fromEntries(
    Object.entries(module).filter(([, v]) => typeof v === 'object' && v !== null && 'method' in v && 'path' in v),
  ) as { [K in keyof T as T[K] extends OperationDef ? K : never]: T[K] };
}

export const operations = {
  ...pickOperations(identity),
  ...pickOperations(admin),
  ...pickOperations(adminAgent),
  ...pickOperations(adminBulk),
  ...pickOperations(adminConsole),
  ...pickOperations(admins),
  ...pickOperations(messaging),
  ...pickOperations(leases),
  ...pickOperations(files),
  ...pickOperations(groups),
  ...pickOperations(search),
  ...pickOperations(metrics),
};

export type Operations = typeof operations;
export type OperationId = keyof Operations;
export const operationList: readonly OperationDef[] = Object.values(operations);

export * from './errors.js';
export * from './models.js';
export * from './registry.js';
