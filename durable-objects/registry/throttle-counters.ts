/**
 * The stored side of sign-in throttling: failure counters per source address and per account, and
 * the addresses each administrator signed in from recently. The rules are throttle.ts.
 */
import { and, eq, lt, sql } from 'drizzle-orm';
import { ApiError } from '../../core/contract/errors.js';
import type { RegistryDb } from './database.js';
import * as schema from './schema.js';
import {
  ACCOUNT_RESET_MS,
  ADDRESS_MAX_FAILURES,
  ADDRESS_WINDOW_MS,
  accountDelayMs,
  KNOWN_ADDRESS_TTL_MS,
  KNOWN_ADDRESSES_PER_ADMIN,
  MAX_THROTTLE_ROWS,
} from './throttle.js';

export class SignInCounters {
  constructor(private readonly db: RegistryDb) {}

  private failureRow(scope: string, subject: string) {
    return this.db
      .select()
      .from(schema.loginFailures)
      .where(and(eq(schema.loginFailures.scope, scope), eq(schema.loginFailures.subject, subject)))
      .get();
  }

  /** Per source address: after a few failures that address waits out the rest of its window. */
  checkAddress(scope: 'ip' | 'setup', source: string): void {
    const row = this.failureRow(scope, source);
    if (!row) return;
    const now = Date.now();
    const windowEnd = row.windowStart + ADDRESS_WINDOW_MS;
    if (row.failures >= ADDRESS_MAX_FAILURES && now < windowEnd) {
      throw new ApiError('too_many_attempts', 'Too many failed sign-ins; wait before trying again.', {
        retryAfterMs: windowEnd - now,
      });
    }
  }

  /** Per account, from unfamiliar addresses: a short delay after the latest failure, capped low. */
  checkAccount(username: string): void {
    const row = this.failureRow('user', username);
    if (!row) return;
    const now = Date.now();
    if (now - row.lastFailureAt >= ACCOUNT_RESET_MS) return;
    const until = row.lastFailureAt + accountDelayMs(row.failures);
    if (now < until) {
      throw new ApiError('too_many_attempts', 'Too many failed sign-ins; wait before trying again.', {
        retryAfterMs: until - now,
      });
    }
  }

  isKnownAddress(username: string, source: string): boolean {
    const row = this.db
      .select()
      .from(schema.adminKnownAddresses)
      .where(and(eq(schema.adminKnownAddresses.username, username), eq(schema.adminKnownAddresses.addressKey, source)))
      .get();
    return row !== undefined && Date.now() - row.lastSuccessAt < KNOWN_ADDRESS_TTL_MS;
  }

  recordAddressFailure(scope: 'ip' | 'setup', source: string): void {
    const now = Date.now();
    const row = this.failureRow(scope, source);
    const fresh = !row || now - row.windowStart >= ADDRESS_WINDOW_MS;
    this.countFailure(scope, source, fresh, now);
  }

  recordAccountFailure(username: string): void {
    const now = Date.now();
    const row = this.failureRow('user', username);
    const fresh = !row || now - row.lastFailureAt >= ACCOUNT_RESET_MS;
    this.countFailure('user', username, fresh, now);
  }

  /** One more failure for (scope, subject); a fresh window starts the count again at 1. */
  private countFailure(scope: 'ip' | 'setup' | 'user', subject: string, fresh: boolean, now: number): void {
    this.db
      .insert(schema.loginFailures)
      .values({ scope, subject, failures: 1, windowStart: now, lastFailureAt: now })
      .onConflictDoUpdate({
        target: [schema.loginFailures.scope, schema.loginFailures.subject],
        set: fresh
          ? { failures: 1, windowStart: now, lastFailureAt: now }
          : { failures: sql`${schema.loginFailures.failures} + 1`, lastFailureAt: now },
      })
      .run();
    this.boundFailureRows(now);
  }

  /**
   * A correct password: the address proved itself (its counter goes), the account keeps the
   * failures of others (so a successful sign-in does not hand an attacker fresh free guesses)
   * minus the one this attempt counted, and the address becomes familiar.
   */
  recordSuccess(username: string, source: string): void {
    const now = Date.now();
    this.db.transaction((tx) => {
      tx.delete(schema.loginFailures)
        .where(and(eq(schema.loginFailures.scope, 'ip'), eq(schema.loginFailures.subject, source)))
        .run();
      tx.update(schema.loginFailures)
        .set({ failures: sql`max(${schema.loginFailures.failures} - 1, 0)` })
        .where(and(eq(schema.loginFailures.scope, 'user'), eq(schema.loginFailures.subject, username)))
        .run();
      tx.insert(schema.adminKnownAddresses)
        .values({ username, addressKey: source, lastSuccessAt: now })
        .onConflictDoUpdate({
          target: [schema.adminKnownAddresses.username, schema.adminKnownAddresses.addressKey],
          set: { lastSuccessAt: now },
        })
        .run();
      tx.delete(schema.adminKnownAddresses)
        .where(lt(schema.adminKnownAddresses.lastSuccessAt, now - KNOWN_ADDRESS_TTL_MS))
        .run();
      // Only the most recent few per administrator.
      tx.run(sql`DELETE FROM admin_known_addresses WHERE username = ${username} AND address_key NOT IN (
        SELECT address_key FROM admin_known_addresses WHERE username = ${username}
        ORDER BY last_success_at DESC LIMIT ${KNOWN_ADDRESSES_PER_ADMIN})`);
    });
  }

  /**
   * Keeps the counters bounded: rows whose window and reset time are over carry no information,
   * and beyond the cap the least recently failing rows go first.
   */
  private boundFailureRows(now: number): void {
    const horizon = now - Math.max(ADDRESS_WINDOW_MS, ACCOUNT_RESET_MS);
    this.db.delete(schema.loginFailures).where(lt(schema.loginFailures.lastFailureAt, horizon)).run();
    const count = this.db.select({ n: sql<number>`count(*)` }).from(schema.loginFailures).get()?.n ?? 0;
    if (count <= MAX_THROTTLE_ROWS) return;
    this.db.run(sql`DELETE FROM login_failures WHERE rowid IN (
      SELECT rowid FROM login_failures ORDER BY last_failure_at ASC LIMIT ${count - MAX_THROTTLE_ROWS})`);
  }
}
