/**
 * Administrator accounts beyond the first: create, list, enable/disable, delete (never leaving no
 * enabled administrator), a password change that needs the current password, and the list of
 * live sessions, each of which can be ended. Sign-in itself is admin-auth.ts.
 */
import { and, count, desc, eq, gt, ne, sql } from 'drizzle-orm';
import { ApiError } from '../../core/contract/errors.js';
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from '../../core/domain/admin-session.js';
import { digestsEqual, hashPassword } from '../../core/lib/crypto.js';
import type { AdminAccountView, AdminSessionInfoView } from '../../core/rpc.js';
import { iso } from '../shared/database.js';
import type { RegistryDb, RegistryTx } from './database.js';
import * as schema from './schema.js';
import { addressKey } from './throttle.js';
import { SignInCounters } from './throttle-counters.js';

/**
 * A session is named by a prefix of its token's keyed hash: the hash cannot be turned back into
 * the cookie, and 96 bits are unique among the few live sessions, so no extra column is needed.
 */
const SESSION_ID_HEX = 24;

export function sessionIdOf(tokenHash: string): string {
  return `ses_${tokenHash.slice(0, SESSION_ID_HEX)}`;
}

function notFound(username: string): ApiError {
  return new ApiError('not_found', `No administrator named ${username}.`, { target: username });
}

export class AdminAccounts {
  private readonly counters: SignInCounters;

  constructor(private readonly db: RegistryDb) {
    this.counters = new SignInCounters(db);
  }

  /** Sessions still within both their idle and their absolute lifetime. */
  private live(now: number) {
    return and(
      gt(schema.adminSessions.lastSeenAt, now - SESSION_IDLE_MS),
      gt(schema.adminSessions.createdAt, now - SESSION_ABSOLUTE_MS),
    );
  }

  list(): AdminAccountView[] {
    const now = Date.now();
    const sessions = new Map(
      this.db
        .select({ username: schema.adminSessions.username, n: count() })
        .from(schema.adminSessions)
        .where(this.live(now))
        .groupBy(schema.adminSessions.username)
        .all()
        .map((r) => [r.username, r.n]),
    );
    return this.db
      .select()
      .from(schema.admins)
      .orderBy(schema.admins.username)
      .all()
      .map((a) => ({
        username: a.username,
        enabled: !a.disabled,
        created_at: a.createdAt,
        active_sessions: sessions.get(a.username) ?? 0,
      }));
  }

  private account(username: string): AdminAccountView {
    const found = this.list().find((a) => a.username === username);
    if (!found) throw notFound(username);
    return found;
  }

  async create(username: string, password: string): Promise<AdminAccountView> {
    const { hash, salt, iterations } = await hashPassword(password);
    const inserted = this.db
      .insert(schema.admins)
      .values({ username, passwordHash: hash, salt, iterations, createdAt: iso(Date.now()) })
      .onConflictDoNothing()
      .returning({ username: schema.admins.username })
      .all();
    if (inserted.length === 0) {
      throw new ApiError('conflict', `An administrator named ${username} already exists.`, { field: 'username' });
    }
    return this.account(username);
  }

  /** Refuses a change that would leave no enabled administrator (whoever asks). */
  private keepOneEnabled(tx: RegistryTx, username: string): void {
    const others = tx
      .select({ n: count() })
      .from(schema.admins)
      .where(and(ne(schema.admins.username, username), eq(schema.admins.disabled, false)))
      .get();
    if ((others?.n ?? 0) === 0) {
      throw new ApiError('conflict', 'This is the last enabled administrator; create or enable another first.', {
        target: username,
      });
    }
  }

  setEnabled(username: string, enabled: boolean): AdminAccountView {
    this.db.transaction((tx) => {
      const row = tx.select().from(schema.admins).where(eq(schema.admins.username, username)).get();
      if (!row) throw notFound(username);
      if (!enabled && !row.disabled) this.keepOneEnabled(tx, username);
      tx.update(schema.admins).set({ disabled: !enabled }).where(eq(schema.admins.username, username)).run();
      // Disabling takes effect at once: every session of that administrator ends with it.
      if (!enabled) tx.delete(schema.adminSessions).where(eq(schema.adminSessions.username, username)).run();
    });
    return this.account(username);
  }

  delete(username: string): void {
    this.db.transaction((tx) => {
      const row = tx.select().from(schema.admins).where(eq(schema.admins.username, username)).get();
      if (!row) throw notFound(username);
      if (!row.disabled) this.keepOneEnabled(tx, username);
      tx.delete(schema.adminSessions).where(eq(schema.adminSessions.username, username)).run();
      tx.delete(schema.adminKnownAddresses).where(eq(schema.adminKnownAddresses.username, username)).run();
      tx.delete(schema.admins).where(eq(schema.admins.username, username)).run();
    });
  }

  /**
   * A wrong current password counts like a failed sign-in (per address and per account), so a
   * stolen session cannot be used to guess the password faster than the sign-in form allows.
   */
  async changePassword(input: {
    username: string;
    sessionHash: string;
    current: string;
    next: string;
    endOtherSessions: boolean;
    clientIp: string;
  }): Promise<{ ended_sessions: number }> {
    const source = addressKey(input.clientIp);
    this.counters.checkAddress('ip', source);
    if (!this.counters.isKnownAddress(input.username, source)) this.counters.checkAccount(input.username);
    this.counters.recordAddressFailure('ip', source);
    this.counters.recordAccountFailure(input.username);
    const admin = this.db.select().from(schema.admins).where(eq(schema.admins.username, input.username)).get();
    if (!admin) throw new ApiError('unauthenticated', 'The session has ended; sign in again.');
    const attempt = await hashPassword(input.current, admin.salt, admin.iterations);
    if (!digestsEqual(attempt.hash, admin.passwordHash)) {
      throw new ApiError('forbidden', 'The current password is wrong.', { field: 'current_password' });
    }
    this.counters.recordSuccess(input.username, source);
    const { hash, salt, iterations } = await hashPassword(input.next);
    let ended = 0;
    this.db.transaction((tx) => {
      tx.update(schema.admins)
        .set({ passwordHash: hash, salt, iterations })
        .where(eq(schema.admins.username, input.username))
        .run();
      if (input.endOtherSessions) {
        ended = tx
          .delete(schema.adminSessions)
          .where(
            and(
              eq(schema.adminSessions.username, input.username),
              ne(schema.adminSessions.tokenHash, input.sessionHash),
            ),
          )
          .returning({ tokenHash: schema.adminSessions.tokenHash })
          .all().length;
      }
    });
    return { ended_sessions: ended };
  }

  listSessions(username: string | undefined, currentHash: string): AdminSessionInfoView[] {
    const now = Date.now();
    const filter =
      username === undefined ? this.live(now) : and(this.live(now), eq(schema.adminSessions.username, username));
    return this.db
      .select()
      .from(schema.adminSessions)
      .where(filter)
      .orderBy(desc(schema.adminSessions.createdAt))
      .all()
      .map((s) => ({
        session_id: sessionIdOf(s.tokenHash),
        username: s.username,
        created_at: iso(s.createdAt),
        last_seen_at: iso(s.lastSeenAt),
        expires_at: iso(Math.min(s.createdAt + SESSION_ABSOLUTE_MS, s.lastSeenAt + SESSION_IDLE_MS)),
        client_address: s.clientAddress,
        user_agent: s.userAgent,
        current: s.tokenHash === currentHash,
      }));
  }

  /** Ends one session by its ID; `signed_out` when it was the caller's own. */
  endSession(sessionId: string, currentHash: string): { signed_out: boolean } {
    const prefix = sessionId.slice('ses_'.length);
    const ended = this.db
      .delete(schema.adminSessions)
      .where(
        and(
          sql`substr(${schema.adminSessions.tokenHash}, 1, ${SESSION_ID_HEX}) = ${prefix}`,
          sql`length(${prefix}) = ${SESSION_ID_HEX}`,
        ),
      )
      .returning({ tokenHash: schema.adminSessions.tokenHash })
      .all();
    if (ended.length === 0) {
      throw new ApiError('not_found', 'No such session (it may have ended already).', { target: sessionId });
    }
    return { signed_out: ended.some((e) => e.tokenHash === currentHash) };
  }
}
