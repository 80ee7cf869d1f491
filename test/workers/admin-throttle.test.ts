import { env, runInDurableObject } from 'cloudflare:test';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  ACCOUNT_FREE_FAILURES,
  ACCOUNT_MAX_DELAY_MS,
  ADDRESS_MAX_FAILURES,
  accountDelayMs,
  addressKey,
  MAX_THROTTLE_ROWS,
} from '../../durable-objects/registry/throttle.js';
import { ADMIN, call } from './helpers.js';

const registry = () => env.REGISTRY.get(env.REGISTRY.idFromName('registry'));
const WRONG = { ...ADMIN, password: 'not the password' };
const login = (ip: string, body = ADMIN) => call('POST', '/admin/login', { body, ip });

function sqlIn<T>(fn: (sql: SqlStorage) => T): Promise<T> {
  return runInDurableObject(registry(), async (_instance, state) => fn(state.storage.sql));
}
const throttleRows = () => sqlIn((sql) => sql.exec('SELECT count(*) AS n FROM login_failures').one().n as number);
/** Moves the account's latest failure into the past, as if that much time had gone by. */
const age = (ms: number) =>
  sqlIn((sql) => sql.exec("UPDATE login_failures SET last_failure_at = last_failure_at - ? WHERE scope = 'user'", ms));

beforeEach(async () => {
  await registry().bootstrapAdmin(ADMIN.username, ADMIN.password);
});

describe('sign-in throttling', () => {
  it('locks out the guessing address, not the administrator elsewhere', async () => {
    for (let i = 0; i < ADDRESS_MAX_FAILURES; i++) expect((await login('203.0.113.9', WRONG)).status).toBe(401);
    const refused = await login('203.0.113.9');
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('too_many_attempts');
    expect((await login('198.51.100.7')).status).toBe(200);
  });

  it('counts an IPv6 /64 as one source', async () => {
    for (let i = 1; i <= ADDRESS_MAX_FAILURES; i++) expect((await login(`2001:db8:1:2::${i}`, WRONG)).status).toBe(401);
    expect((await login('2001:db8:1:2:ffff::1')).status).toBe(429);
    expect((await login('2001:db8:1:3::1')).status).toBe(200);
    expect(addressKey('2001:db8:1:2::9')).toBe('2001:db8:1:2::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('2001:db8::')).toBe('2001:db8:0:0::/64');
    expect(addressKey('1:2:3:4:5:6:7:8')).toBe('1:2:3:4::/64');
    expect(addressKey('192.0.2.1')).toBe('192.0.2.1');
  });

  it('slows a guesser rotating addresses with a short, capped account delay that familiar addresses skip', async () => {
    // The administrator's usual address.
    expect((await login('192.0.2.10')).status).toBe(200);
    // A distributed guesser: one failure per address, more than the free allowance in all.
    for (let i = 0; i < ACCOUNT_FREE_FAILURES + 3; i++) {
      if (i >= ACCOUNT_FREE_FAILURES) {
        // Past the allowance, each guess must wait for the previous one's delay.
        expect((await login(`203.0.113.${i + 1}`, WRONG)).status).toBe(429);
        await age(ACCOUNT_MAX_DELAY_MS);
      }
      expect((await login(`203.0.113.${i + 1}`, WRONG)).status).toBe(401);
    }
    // A fresh address waits a little, even with the right password, and is told how long.
    const waiting = await login('198.51.100.1');
    expect(waiting.status).toBe(429);
    expect(waiting.body.error.retry_after_ms).toBeGreaterThan(0);
    expect(waiting.body.error.retry_after_ms).toBeLessThanOrEqual(accountDelayMs(ACCOUNT_FREE_FAILURES + 3));
    // A guess refused by the delay is not counted, so hammering does not lengthen it.
    const failuresBefore = await sqlIn(
      (sql) => sql.exec("SELECT failures FROM login_failures WHERE scope = 'user'").one().failures,
    );
    expect((await login('198.51.100.2', WRONG)).status).toBe(429);
    expect(
      await sqlIn((sql) => sql.exec("SELECT failures FROM login_failures WHERE scope = 'user'").one().failures),
    ).toBe(failuresBefore);
    // The familiar address does not wait at all.
    expect((await login('192.0.2.10')).status).toBe(200);
    // Once the delay has passed, the fresh address gets in with the right password.
    await age(ACCOUNT_MAX_DELAY_MS);
    expect((await login('198.51.100.1')).status).toBe(200);
  });

  it('never delays an account by more than the cap, however many failures', async () => {
    expect(accountDelayMs(ACCOUNT_FREE_FAILURES - 1)).toBe(0);
    expect(accountDelayMs(ACCOUNT_FREE_FAILURES)).toBeGreaterThan(0);
    expect(accountDelayMs(1_000_000)).toBe(ACCOUNT_MAX_DELAY_MS);
    for (let i = 1; i < 40; i++) expect(accountDelayMs(i + 1)).toBeGreaterThanOrEqual(accountDelayMs(i));

    expect((await login('203.0.113.1', WRONG)).status).toBe(401);
    await sqlIn((sql) => sql.exec("UPDATE login_failures SET failures = 100000 WHERE scope = 'user'"));
    const waiting = await login('198.51.100.1');
    expect(waiting.status).toBe(429);
    expect(waiting.body.error.retry_after_ms).toBeLessThanOrEqual(ACCOUNT_MAX_DELAY_MS);
    await age(ACCOUNT_MAX_DELAY_MS);
    expect((await login('198.51.100.1')).status).toBe(200);
  });

  it('does not let concurrent guesses slip past the per-address limit', async () => {
    const answers = await Promise.all(Array.from({ length: 15 }, () => login('203.0.113.50', WRONG)));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(ADDRESS_MAX_FAILURES);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15 - ADDRESS_MAX_FAILURES);
  });

  it('keeps its state bounded when an attacker rotates addresses', async () => {
    const now = Date.now();
    await sqlIn((sql) => {
      // Stale rows carry no information and are swept; fresh ones are capped.
      for (let i = 0; i < 500; i++) {
        sql.exec(
          "INSERT INTO login_failures (scope, subject, failures, window_start, last_failure_at) VALUES ('ip', ?, 1, ?, ?)",
          `stale-${i}`,
          now - 3_600_000,
          now - 3_600_000,
        );
      }
      for (let i = 0; i < MAX_THROTTLE_ROWS; i++) {
        sql.exec(
          "INSERT INTO login_failures (scope, subject, failures, window_start, last_failure_at) VALUES ('ip', ?, 1, ?, ?)",
          `fresh-${i}`,
          now - 1000,
          now - 1000,
        );
      }
    });
    expect(await throttleRows()).toBe(MAX_THROTTLE_ROWS + 500);
    for (let i = 0; i < 3; i++) expect((await login(`203.0.113.${i + 1}`, WRONG)).status).toBe(401);
    expect(await throttleRows()).toBeLessThanOrEqual(MAX_THROTTLE_ROWS);
    const stale = await sqlIn(
      (sql) => sql.exec("SELECT count(*) AS n FROM login_failures WHERE subject LIKE 'stale-%'").one().n,
    );
    expect(stale).toBe(0);
    // The newest counters survive the eviction: the guessing address and the account.
    const kept = await sqlIn((sql) =>
      sql
        .exec("SELECT scope, subject FROM login_failures WHERE subject IN ('203.0.113.3', ?)", ADMIN.username)
        .toArray(),
    );
    expect(kept).toHaveLength(2);
  });

  it('remembers a bounded number of familiar addresses per administrator', async () => {
    for (let i = 0; i < 20; i++) expect((await login(`192.0.2.${i + 1}`)).status).toBe(200);
    const known = await sqlIn((sql) => sql.exec('SELECT count(*) AS n FROM admin_known_addresses').one().n);
    expect(known).toBeLessThanOrEqual(16);
    // A correct password clears its own address's counter.
    expect((await login('203.0.113.60', WRONG)).status).toBe(401);
    expect((await login('203.0.113.60')).status).toBe(200);
    const left = await sqlIn(
      (sql) => sql.exec("SELECT count(*) AS n FROM login_failures WHERE subject = '203.0.113.60'").one().n,
    );
    expect(left).toBe(0);
  });
});
