/**
 * Administrator sign-in: the first administrator (bootstrap password or one-time setup token),
 * password sign-in behind the throttle (throttle.ts, throttle-counters.ts), and sessions with an
 * idle and an absolute expiry (core/domain/admin-session.ts), stored by the keyed hash of their token.
 */
import { eq, lt } from 'drizzle-orm';
import { ApiError } from '../../core/contract/errors.js';
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from '../../core/domain/admin-session.js';
import type { Env } from '../../core/env.js';
import { pepperOf } from '../../core/lib/api-key.js';
import { digestsEqual, hashPassword, keyedHash, randomToken } from '../../core/lib/crypto.js';
import type { SessionView } from '../../core/rpc.js';
import { iso } from '../shared/database.js';
import type { RegistryDb } from './database.js';
import * as schema from './schema.js';
import { addressKey } from './throttle.js';
import { SignInCounters } from './throttle-counters.js';

/** Enough of a User-Agent header to tell browsers and the CLI apart. */
const USER_AGENT_MAX = 256;

export class AdminAuth {
  private readonly counters: SignInCounters;

  constructor(
    private readonly db: RegistryDb,
    private readonly env: Env,
  ) {
    this.counters = new SignInCounters(db);
  }

  async needsSetup(): Promise<boolean> {
    return !this.db.select({ u: schema.admins.username }).from(schema.admins).limit(1).get();
  }

  /** First start with SWITCHBOARD_ADMIN_PASSWORD: creates `admin` unless an administrator exists. */
  async bootstrapAdmin(username: string, password: string): Promise<boolean> {
    if (!(await this.needsSetup())) return false;
    await this.insertAdmin(username, password);
    return true;
  }

  /** A fresh one-time setup token while no administrator exists (replaces any earlier one). */
  async issueSetupToken(): Promise<string | null> {
    if (!(await this.needsSetup())) return null;
    const token = randomToken(24);
    const tokenHash = await keyedHash(pepperOf(this.env), token);
    this.db.transaction((tx) => {
      tx.delete(schema.setupTokens).run();
      tx.insert(schema.setupTokens).values({ tokenHash, createdAt: Date.now() }).run();
    });
    return token;
  }

  async setupAdmin(
    token: string,
    username: string,
    password: string,
    clientIp: string,
    userAgent = '',
  ): Promise<{ token: string; session: SessionView }> {
    const source = addressKey(clientIp);
    this.counters.checkAddress('setup', source);
    const tokenHash = await keyedHash(pepperOf(this.env), token);
    const stored = this.db.select().from(schema.setupTokens).get();
    if (!(await this.needsSetup()))
      throw new ApiError('conflict', 'An administrator already exists.', { reason: 'admin_exists' });
    // On Cloudflare there is no launcher to print a link: the operator sets the SETUP_TOKEN secret.
    const configured = this.env.SETUP_TOKEN;
    const valid =
      (stored !== undefined && digestsEqual(stored.tokenHash, tokenHash)) ||
      (configured !== undefined && configured.length >= 16 && digestsEqual(configured, token));
    if (!valid) {
      this.counters.recordAddressFailure('setup', source);
      throw new ApiError(
        'unauthenticated',
        'The setup link is not valid (it works once; restart the server for a new one).',
      );
    }
    await this.insertAdmin(username, password);
    this.db.delete(schema.setupTokens).run();
    return this.openSession(username, clientIp, userAgent);
  }

  async login(
    username: string,
    password: string,
    clientIp: string,
    userAgent = '',
  ): Promise<{ token: string; session: SessionView }> {
    const source = addressKey(clientIp);
    this.counters.checkAddress('ip', source);
    // A familiar address never waits for the account: an attacker elsewhere cannot delay it.
    const familiar = this.counters.isKnownAddress(username, source);
    if (!familiar) this.counters.checkAccount(username);
    // Counted as failures before the (slow, awaited) hash, so concurrent attempts cannot all pass
    // the checks above; a correct password takes its own counts back.
    this.counters.recordAddressFailure('ip', source);
    this.counters.recordAccountFailure(username);
    const admin = this.db.select().from(schema.admins).where(eq(schema.admins.username, username)).get();
    // Hash even for an unknown user, so the answer takes as long either way.
    const attempt = await hashPassword(password, admin?.salt ?? 'no-such-admin', admin?.iterations);
    if (!admin || !digestsEqual(attempt.hash, admin.passwordHash)) {
      throw new ApiError('unauthenticated', 'Wrong username or password.');
    }
    this.counters.recordSuccess(username, source);
    // Told only to someone who knows the password, so it reveals nothing to a guesser.
    if (admin.disabled) throw new ApiError('unauthenticated', 'This administrator account is disabled.');
    return this.openSession(username, clientIp, userAgent);
  }

  /** Validates a session by its token hash and slides its idle expiry. */
  async touchSession(tokenHash: string): Promise<SessionView | null> {
    const row = this.db.select().from(schema.adminSessions).where(eq(schema.adminSessions.tokenHash, tokenHash)).get();
    if (!row) return null;
    const now = Date.now();
    if (now - row.lastSeenAt > SESSION_IDLE_MS || now - row.createdAt > SESSION_ABSOLUTE_MS) {
      this.db.delete(schema.adminSessions).where(eq(schema.adminSessions.tokenHash, tokenHash)).run();
      return null;
    }
    // One write per minute at most: an idle timeout of 30 minutes does not need more precision.
    if (now - row.lastSeenAt > 60_000) {
      this.db
        .update(schema.adminSessions)
        .set({ lastSeenAt: now })
        .where(eq(schema.adminSessions.tokenHash, tokenHash))
        .run();
    }
    return { username: row.username, sessionHash: tokenHash, expires_at: iso(this.sessionExpiry(row.createdAt, now)) };
  }

  async endSession(tokenHash: string): Promise<void> {
    this.db.delete(schema.adminSessions).where(eq(schema.adminSessions.tokenHash, tokenHash)).run();
  }

  private sessionExpiry(createdAt: number, lastSeenAt: number): number {
    return Math.min(createdAt + SESSION_ABSOLUTE_MS, lastSeenAt + SESSION_IDLE_MS);
  }

  private async insertAdmin(username: string, password: string): Promise<void> {
    const { hash, salt, iterations } = await hashPassword(password);
    this.db
      .insert(schema.admins)
      .values({ username, passwordHash: hash, salt, iterations, createdAt: iso(Date.now()) })
      .run();
  }

  private async openSession(
    username: string,
    clientAddress: string,
    userAgent: string,
  ): Promise<{ token: string; session: SessionView }> {
    const token = randomToken(32);
    const tokenHash = await keyedHash(pepperOf(this.env), token);
    const now = Date.now();
    this.db.transaction((tx) => {
      // Expired sessions are swept as new ones open, so the table stays small.
      tx.delete(schema.adminSessions)
        .where(lt(schema.adminSessions.lastSeenAt, now - SESSION_IDLE_MS))
        .run();
      tx.delete(schema.adminSessions)
        .where(lt(schema.adminSessions.createdAt, now - SESSION_ABSOLUTE_MS))
        .run();
      tx.insert(schema.adminSessions)
        .values({
          tokenHash,
          username,
          createdAt: now,
          lastSeenAt: now,
          clientAddress,
          // Shown in the session list only; capped so a client cannot store a large value.
          userAgent: userAgent.slice(0, USER_AGENT_MAX),
        })
        .run();
    });
    return { token, session: { username, sessionHash: tokenHash, expires_at: iso(this.sessionExpiry(now, now)) } };
  }
}
