import { DurableObject } from 'cloudflare:workers';
import { and, asc, eq, gt, inArray, isNotNull, lt, notLike, or, type SQL, sql } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { ApiError } from '../../core/contract/errors.js';
import type { Limits } from '../../core/contract/models.js';
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from '../../core/domain/admin-session.js';
import type { Env } from '../../core/env.js';
import { issueApiKey, pepperOf, TAGGED_HASH_PREFIX } from '../../core/lib/api-key.js';
import { digestsEqual, hashPassword, keyedHash, newId, randomToken } from '../../core/lib/crypto.js';
import { decodeCursor, encodeCursor } from '../../core/lib/cursor.js';
import { canonicalIp } from '../../core/lib/ip.js';
import { DEFAULT_LIMITS } from '../../core/lib/limits.js';
import migrations from '../../migrations/registry/migrations.js';
import type { AccountSnapshot } from '../agent/agent-do.js';
import { iso, openDatabase } from '../shared/database.js';
import { drainDeletions, recordDeletion, refuseOwner } from './agent-deletion.js';
import * as schema from './schema.js';
import {
  ACCOUNT_RESET_MS,
  ADDRESS_MAX_FAILURES,
  ADDRESS_WINDOW_MS,
  accountDelayMs,
  addressKey,
  KNOWN_ADDRESS_TTL_MS,
  KNOWN_ADDRESSES_PER_ADMIN,
  MAX_THROTTLE_ROWS,
} from './throttle.js';

export interface HostView {
  host_id: string;
  name: string;
  addresses: string[];
  os: string;
  description: string;
  created_at: string;
}

export interface AgentView {
  agent_id: string;
  name: string;
  display_name: string;
  description: string;
  host_id: string;
  enabled: boolean;
  last_access_at: string | null;
  created_at: string;
}

export interface DirectoryEntryView {
  agent_id: string;
  name: string;
  display_name: string;
  description: string;
  last_access_at: string | null;
  host: { host_id: string; name: string; os: string };
}

export interface SessionView {
  username: string;
  sessionHash: string;
  expires_at: string;
}

type Db = ReturnType<typeof openDatabase<typeof schema>>;
type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

function hostView(row: typeof schema.hosts.$inferSelect): HostView {
  return {
    host_id: row.hostId,
    name: row.name,
    addresses: row.addresses,
    os: row.os,
    description: row.description,
    created_at: row.createdAt,
  };
}

function agentView(row: typeof schema.agents.$inferSelect): AgentView {
  return {
    agent_id: row.agentId,
    name: row.name,
    display_name: row.displayName,
    description: row.description,
    host_id: row.hostId,
    enabled: row.enabled,
    last_access_at: row.lastAccessAt,
    created_at: row.createdAt,
  };
}

/** Keyset paging by (name, id): the rows after the cursor's position, in that order. */
function afterNameId(name: SQLiteColumn, id: SQLiteColumn, cursor: string | undefined): SQL | undefined {
  const after = decodeCursor(cursor);
  if (!after) return undefined;
  return or(gt(name, String(after[0])), and(eq(name, String(after[0])), gt(id, String(after[1]))));
}

/** Cuts a `limit + 1` query result into a page and the cursor of the next one. */
function pageOf<R>(rows: R[], limit: number, position: (row: R) => [string, string]) {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { page, next_cursor: rows.length > limit && last ? encodeCursor(position(last)) : null };
}

/**
 * A host's addresses in canonical form, duplicates collapsed. The API validates them already
 * (models.IpAddress); this guards the invariant for every other caller.
 */
function canonicalAddresses(addresses: string[]): string[] {
  const out: string[] = [];
  for (const text of addresses) {
    const ip = canonicalIp(text);
    if (!ip) throw new ApiError('validation_failed', `"${text}" is not an exact IP address.`, { field: 'addresses' });
    if (!out.includes(ip)) out.push(ip);
  }
  return out;
}

/**
 * The one registry: hosts, agents, global settings, administrators and their sessions. It is on
 * the path of admin requests, the directory and settings reads (cached by the worker), but not of
 * agent authentication: each agent's credentials are copied to that agent's own AgentDO.
 */
export class RegistryDO extends DurableObject<Env> {
  private readonly db: Db;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.db = openDatabase(ctx, schema, migrations);
  }

  // Settings

  async getSettings(): Promise<{ limits: Limits; revision: number }> {
    const row = this.db.select().from(schema.settings).where(eq(schema.settings.id, 1)).get();
    if (!row) return { limits: DEFAULT_LIMITS, revision: 1 };
    // Settings added in later releases take their default until an administrator sets them.
    return { limits: { ...DEFAULT_LIMITS, ...(row.limits as Partial<Limits>) }, revision: row.revision };
  }

  async updateSettings(patch: Partial<Limits>): Promise<{ limits: Limits; revision: number; lowered: string[] }> {
    const current = await this.getSettings();
    const limits = { ...current.limits, ...patch };
    const lowered = (Object.keys(patch) as (keyof Limits)[]).filter((k) => limits[k] < current.limits[k]);
    const changed = (Object.keys(patch) as (keyof Limits)[]).some((k) => limits[k] !== current.limits[k]);
    if (!changed) return { ...current, lowered: [] };
    const revision = current.revision + 1;
    this.db
      .insert(schema.settings)
      .values({ id: 1, limits, revision, updatedAt: iso(Date.now()) })
      .onConflictDoUpdate({ target: schema.settings.id, set: { limits, revision, updatedAt: iso(Date.now()) } })
      .run();
    return { limits, revision, lowered };
  }

  // Hosts

  async listHosts(
    cursor: string | undefined,
    limit: number,
  ): Promise<{ hosts: HostView[]; next_cursor: string | null }> {
    const rows = this.db
      .select()
      .from(schema.hosts)
      .where(afterNameId(schema.hosts.name, schema.hosts.hostId, cursor))
      .orderBy(asc(schema.hosts.name), asc(schema.hosts.hostId))
      .limit(limit + 1)
      .all();
    const { page, next_cursor } = pageOf(rows, limit, (row) => [row.name, row.hostId]);
    return { hosts: page.map(hostView), next_cursor };
  }

  async getHost(hostId: string): Promise<HostView> {
    const row = this.db.select().from(schema.hosts).where(eq(schema.hosts.hostId, hostId)).get();
    if (!row) throw new ApiError('not_found', 'No such host.', { target: hostId });
    return hostView(row);
  }

  async createHost(input: { name: string; addresses: string[]; os?: string; description?: string }): Promise<HostView> {
    const addresses = canonicalAddresses(input.addresses);
    if (this.db.select().from(schema.hosts).where(eq(schema.hosts.name, input.name)).get()) {
      throw new ApiError('conflict', `A host named "${input.name}" exists.`, { field: 'name' });
    }
    const row = {
      hostId: newId('hst_'),
      name: input.name,
      addresses,
      os: input.os ?? '',
      description: input.description ?? '',
      createdAt: iso(Date.now()),
    };
    this.db.insert(schema.hosts).values(row).run();
    return hostView(row);
  }

  async updateHost(
    hostId: string,
    patch: { name?: string; addresses?: string[]; os?: string; description?: string },
  ): Promise<HostView> {
    const existing = this.db.select().from(schema.hosts).where(eq(schema.hosts.hostId, hostId)).get();
    if (!existing) throw new ApiError('not_found', 'No such host.', { target: hostId });
    const addresses = patch.addresses ? canonicalAddresses(patch.addresses) : existing.addresses;
    if (patch.name !== undefined && patch.name !== existing.name) {
      if (this.db.select().from(schema.hosts).where(eq(schema.hosts.name, patch.name)).get()) {
        throw new ApiError('conflict', `A host named "${patch.name}" exists.`, { field: 'name' });
      }
    }
    const next = {
      ...existing,
      name: patch.name ?? existing.name,
      addresses,
      os: patch.os ?? existing.os,
      description: patch.description ?? existing.description,
    };
    this.db.transaction((tx) => {
      tx.update(schema.hosts).set(next).where(eq(schema.hosts.hostId, hostId)).run();
      if (patch.addresses) {
        const affected = tx
          .select({ id: schema.agents.agentId })
          .from(schema.agents)
          .where(eq(schema.agents.hostId, hostId))
          .all();
        for (const { id } of affected) this.markForSync(tx, id);
      }
    });
    await this.drainSync();
    return hostView(next);
  }

  async deleteHost(hostId: string): Promise<void> {
    const existing = this.db.select().from(schema.hosts).where(eq(schema.hosts.hostId, hostId)).get();
    if (!existing) throw new ApiError('not_found', 'No such host.', { target: hostId });
    const used = this.db
      .select({ n: sql<number>`count(*)` })
      .from(schema.agents)
      .where(eq(schema.agents.hostId, hostId))
      .get();
    if ((used?.n ?? 0) > 0) {
      throw new ApiError('conflict', 'Agents are registered on this host; move or remove them first.', {
        target: hostId,
      });
    }
    this.db.delete(schema.hosts).where(eq(schema.hosts.hostId, hostId)).run();
  }

  // Agents

  async listAgents(
    filter: { host_id?: string },
    cursor: string | undefined,
    limit: number,
  ): Promise<{ agents: AgentView[]; next_cursor: string | null }> {
    const rows = this.db
      .select()
      .from(schema.agents)
      .where(
        and(
          filter.host_id ? eq(schema.agents.hostId, filter.host_id) : undefined,
          afterNameId(schema.agents.name, schema.agents.agentId, cursor),
        ),
      )
      .orderBy(asc(schema.agents.name), asc(schema.agents.agentId))
      .limit(limit + 1)
      .all();
    const { page, next_cursor } = pageOf(rows, limit, (row) => [row.name, row.agentId]);
    return { agents: page.map(agentView), next_cursor };
  }

  async getAgent(agentId: string): Promise<AgentView | null> {
    const row = this.db.select().from(schema.agents).where(eq(schema.agents.agentId, agentId)).get();
    return row ? agentView(row) : null;
  }

  /** Many agents at once (send targets, group invitees): one call, whatever the fan-out. */
  async getAgents(agentIds: string[]): Promise<AgentView[]> {
    const views: AgentView[] = [];
    // Durable Object SQLite binds at most 100 parameters per statement.
    for (let at = 0; at < agentIds.length; at += 90) {
      const slice = agentIds.slice(at, at + 90);
      views.push(
        ...this.db.select().from(schema.agents).where(inArray(schema.agents.agentId, slice)).all().map(agentView),
      );
    }
    return views;
  }

  async createAgent(input: {
    name: string;
    host_id: string;
    display_name?: string;
    description?: string;
    enabled?: boolean;
  }): Promise<{ agent: AgentView; api_key: string }> {
    this.requireHost(input.host_id, 'host_id');
    this.requireUniqueName(input.host_id, input.name);
    const agentId = newId('agt_');
    const { key: apiKey, hash: keyHash } = await issueApiKey(agentId, pepperOf(this.env));
    const row = {
      agentId,
      name: input.name,
      displayName: input.display_name ?? input.name,
      description: input.description ?? '',
      hostId: input.host_id,
      enabled: input.enabled ?? true,
      keyHash,
      createdAt: iso(Date.now()),
      lastAccessAt: null,
      version: 1,
    };
    this.db.transaction((tx) => {
      tx.insert(schema.agents).values(row).run();
      this.markForSync(tx, agentId);
    });
    await this.drainSync();
    return { agent: agentView(row), api_key: apiKey };
  }

  async updateAgent(
    agentId: string,
    patch: { name?: string; host_id?: string; display_name?: string; description?: string; enabled?: boolean },
  ): Promise<AgentView> {
    const existing = this.requireAgent(agentId);
    const hostId = patch.host_id ?? existing.hostId;
    const name = patch.name ?? existing.name;
    if (patch.host_id !== undefined) this.requireHost(patch.host_id, 'host_id');
    if (hostId !== existing.hostId || name !== existing.name) this.requireUniqueName(hostId, name);
    const next = {
      ...existing,
      name,
      hostId,
      displayName: patch.display_name ?? existing.displayName,
      description: patch.description ?? existing.description,
      enabled: patch.enabled ?? existing.enabled,
      version: existing.version + 1,
    };
    this.db.transaction((tx) => {
      tx.update(schema.agents).set(next).where(eq(schema.agents.agentId, agentId)).run();
      this.markForSync(tx, agentId);
    });
    await this.drainSync();
    return agentView(next);
  }

  async regenerateKey(agentId: string): Promise<string> {
    const existing = this.requireAgent(agentId);
    const { key: apiKey, hash: keyHash } = await issueApiKey(agentId, pepperOf(this.env));
    this.db.transaction((tx) => {
      tx.update(schema.agents)
        .set({ keyHash, version: existing.version + 1 })
        .where(eq(schema.agents.agentId, agentId))
        .run();
      this.markForSync(tx, agentId);
    });
    await this.drainSync();
    return apiKey;
  }

  /** Agents whose live key predates key tags (worker/lib/legacy-keys.ts); empty once all are regenerated. */
  async legacyKeyAgents(): Promise<string[]> {
    return this.db
      .select({ agentId: schema.agents.agentId })
      .from(schema.agents)
      .where(and(isNotNull(schema.agents.keyHash), notLike(schema.agents.keyHash, `${TAGGED_HASH_PREFIX}%`)))
      .all()
      .map((row) => row.agentId);
  }

  async revokeKey(agentId: string): Promise<void> {
    const existing = this.requireAgent(agentId);
    this.db.transaction((tx) => {
      tx.update(schema.agents)
        .set({ keyHash: null, version: existing.version + 1 })
        .where(eq(schema.agents.agentId, agentId))
        .run();
      this.markForSync(tx, agentId);
    });
    await this.drainSync();
  }

  /** Deletes an agent for good (agent-deletion.ts): its key fails and it leaves every channel. */
  async deleteAgent(agentId: string): Promise<void> {
    this.requireAgent(agentId);
    await refuseOwner(this.env, agentId);
    this.requireAgent(agentId);
    recordDeletion(this.db, agentId, iso(Date.now()));
    if (!(await drainDeletions(this.db, this.env))) {
      await this.ctx.storage.setAlarm(Date.now() + 5_000);
      throw new ApiError('unavailable', 'The agent is deleted but not yet removed everywhere; it is being retried.', {
        retryAfterMs: 5_000,
      });
    }
  }

  /** Last access reported by an AgentDO (coalesced there); only ever moves forward. */
  async recordAccess(agentId: string, at: string): Promise<void> {
    this.db
      .update(schema.agents)
      .set({ lastAccessAt: at })
      .where(
        and(
          eq(schema.agents.agentId, agentId),
          or(sql`${schema.agents.lastAccessAt} is null`, lt(schema.agents.lastAccessAt, at)),
        ),
      )
      .run();
  }

  async directory(
    filter: { host_id?: string; name?: string },
    cursor: string | undefined,
    limit: number,
  ): Promise<{ agents: DirectoryEntryView[]; next_cursor: string | null }> {
    const pattern = filter.name ? `%${filter.name.replace(/[\\%_]/g, (m) => `\\${m}`)}%` : null;
    const rows = this.db
      .select({ agent: schema.agents, host: schema.hosts })
      .from(schema.agents)
      .innerJoin(schema.hosts, eq(schema.hosts.hostId, schema.agents.hostId))
      .where(
        and(
          eq(schema.agents.enabled, true),
          filter.host_id ? eq(schema.agents.hostId, filter.host_id) : undefined,
          pattern
            ? or(
                sql`${schema.agents.name} like ${pattern} escape '\\'`,
                sql`${schema.agents.displayName} like ${pattern} escape '\\'`,
              )
            : undefined,
          afterNameId(schema.agents.name, schema.agents.agentId, cursor),
        ),
      )
      .orderBy(asc(schema.agents.name), asc(schema.agents.agentId))
      .limit(limit + 1)
      .all();
    const { page, next_cursor } = pageOf(rows, limit, (row) => [row.agent.name, row.agent.agentId]);
    return {
      agents: page.map(({ agent, host }) => ({
        agent_id: agent.agentId,
        name: agent.name,
        display_name: agent.displayName,
        description: agent.description,
        last_access_at: agent.lastAccessAt,
        host: { host_id: host.hostId, name: host.name, os: host.os },
      })),
      next_cursor,
    };
  }

  // Administrators

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
  ): Promise<{ token: string; session: SessionView }> {
    const source = addressKey(clientIp);
    this.checkAddress('setup', source);
    const tokenHash = await keyedHash(pepperOf(this.env), token);
    const stored = this.db.select().from(schema.setupTokens).get();
    if (!(await this.needsSetup())) throw new ApiError('conflict', 'An administrator already exists.');
    // On Cloudflare there is no launcher to print a link: the operator sets the SETUP_TOKEN secret.
    const configured = this.env.SETUP_TOKEN;
    const valid =
      (stored !== undefined && digestsEqual(stored.tokenHash, tokenHash)) ||
      (configured !== undefined && configured.length >= 16 && digestsEqual(configured, token));
    if (!valid) {
      this.recordAddressFailure('setup', source);
      throw new ApiError(
        'unauthenticated',
        'The setup link is not valid (it works once; restart the server for a new one).',
      );
    }
    await this.insertAdmin(username, password);
    this.db.delete(schema.setupTokens).run();
    return this.openSession(username);
  }

  async login(username: string, password: string, clientIp: string): Promise<{ token: string; session: SessionView }> {
    const source = addressKey(clientIp);
    this.checkAddress('ip', source);
    // A familiar address never waits for the account: an attacker elsewhere cannot delay it.
    const familiar = this.isKnownAddress(username, source);
    if (!familiar) this.checkAccount(username);
    // Counted as failures before the (slow, awaited) hash, so concurrent attempts cannot all pass
    // the checks above; a correct password takes its own counts back.
    this.recordAddressFailure('ip', source);
    this.recordAccountFailure(username);
    const admin = this.db.select().from(schema.admins).where(eq(schema.admins.username, username)).get();
    // Hash even for an unknown user, so the answer takes as long either way.
    const attempt = await hashPassword(password, admin?.salt ?? 'no-such-admin', admin?.iterations);
    if (!admin || !digestsEqual(attempt.hash, admin.passwordHash)) {
      throw new ApiError('unauthenticated', 'Wrong username or password.');
    }
    this.recordSuccess(username, source);
    return this.openSession(username);
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

  // Internals

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

  private async openSession(username: string): Promise<{ token: string; session: SessionView }> {
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
      tx.insert(schema.adminSessions).values({ tokenHash, username, createdAt: now, lastSeenAt: now }).run();
    });
    return { token, session: { username, sessionHash: tokenHash, expires_at: iso(this.sessionExpiry(now, now)) } };
  }

  private failureRow(scope: string, subject: string) {
    return this.db
      .select()
      .from(schema.loginFailures)
      .where(and(eq(schema.loginFailures.scope, scope), eq(schema.loginFailures.subject, subject)))
      .get();
  }

  /** Per source address: after a few failures that address waits out the rest of its window. */
  private checkAddress(scope: 'ip' | 'setup', source: string): void {
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
  private checkAccount(username: string): void {
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

  private isKnownAddress(username: string, source: string): boolean {
    const row = this.db
      .select()
      .from(schema.adminKnownAddresses)
      .where(and(eq(schema.adminKnownAddresses.username, username), eq(schema.adminKnownAddresses.addressKey, source)))
      .get();
    return row !== undefined && Date.now() - row.lastSuccessAt < KNOWN_ADDRESS_TTL_MS;
  }

  private recordAddressFailure(scope: 'ip' | 'setup', source: string): void {
    const now = Date.now();
    const row = this.failureRow(scope, source);
    const fresh = !row || now - row.windowStart >= ADDRESS_WINDOW_MS;
    this.db
      .insert(schema.loginFailures)
      .values({ scope, subject: source, failures: 1, windowStart: now, lastFailureAt: now })
      .onConflictDoUpdate({
        target: [schema.loginFailures.scope, schema.loginFailures.subject],
        set: fresh
          ? { failures: 1, windowStart: now, lastFailureAt: now }
          : { failures: sql`${schema.loginFailures.failures} + 1`, lastFailureAt: now },
      })
      .run();
    this.boundFailureRows(now);
  }

  private recordAccountFailure(username: string): void {
    const now = Date.now();
    const row = this.failureRow('user', username);
    const fresh = !row || now - row.lastFailureAt >= ACCOUNT_RESET_MS;
    this.db
      .insert(schema.loginFailures)
      .values({ scope: 'user', subject: username, failures: 1, windowStart: now, lastFailureAt: now })
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
  private recordSuccess(username: string, source: string): void {
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

  private requireAgent(agentId: string): typeof schema.agents.$inferSelect {
    const row = this.db.select().from(schema.agents).where(eq(schema.agents.agentId, agentId)).get();
    if (!row) throw new ApiError('not_found', 'No such agent.', { target: agentId });
    return row;
  }

  private requireHost(hostId: string, field: string): void {
    if (!this.db.select().from(schema.hosts).where(eq(schema.hosts.hostId, hostId)).get()) {
      throw new ApiError('not_found', 'No such host.', { field, target: hostId });
    }
  }

  private requireUniqueName(hostId: string, name: string): void {
    const clash = this.db
      .select()
      .from(schema.agents)
      .where(and(eq(schema.agents.hostId, hostId), eq(schema.agents.name, name)))
      .get();
    if (clash) throw new ApiError('conflict', `An agent named "${name}" exists on this host.`, { field: 'name' });
  }

  private markForSync(tx: Tx, agentId: string): void {
    tx.update(schema.agents)
      .set({ version: sql`${schema.agents.version} + 1` })
      .where(eq(schema.agents.agentId, agentId))
      .run();
    tx.insert(schema.agentSync).values({ agentId }).onConflictDoNothing().run();
  }

  /**
   * Pushes pending agent changes to the agents' own objects. A change is committed here first
   * (with its outbox row), so a failed push is retried by alarm until the agent's copy matches;
   * the admin request that made the change waits for the push, so it takes effect at once.
   */
  private async drainSync(): Promise<void> {
    const pending = this.db.select().from(schema.agentSync).all();
    let failed = false;
    for (const item of pending) {
      const agent = this.db.select().from(schema.agents).where(eq(schema.agents.agentId, item.agentId)).get();
      if (!agent) {
        this.db.delete(schema.agentSync).where(eq(schema.agentSync.agentId, item.agentId)).run();
        continue;
      }
      const host = this.db.select().from(schema.hosts).where(eq(schema.hosts.hostId, agent.hostId)).get();
      const snapshot: AccountSnapshot = {
        agent_id: agent.agentId,
        name: agent.name,
        display_name: agent.displayName,
        host_id: agent.hostId,
        enabled: agent.enabled,
        key_hash: agent.keyHash,
        addresses: host?.addresses ?? [],
        version: agent.version,
      };
      try {
        await this.env.AGENT.get(this.env.AGENT.idFromName(agent.agentId)).sync(snapshot);
        // A change made while the push was in flight keeps its outbox row for the next drain.
        const current = this.db
          .select({ version: schema.agents.version })
          .from(schema.agents)
          .where(eq(schema.agents.agentId, agent.agentId))
          .get();
        if (current?.version === agent.version) {
          this.db.delete(schema.agentSync).where(eq(schema.agentSync.agentId, agent.agentId)).run();
        }
      } catch (error) {
        failed = true;
        this.db
          .update(schema.agentSync)
          .set({ attempts: item.attempts + 1, lastError: String(error) })
          .where(eq(schema.agentSync.agentId, agent.agentId))
          .run();
      }
    }
    if (failed) {
      await this.ctx.storage.setAlarm(Date.now() + 5_000);
      throw new ApiError('unavailable', 'The change is saved but not yet in force everywhere; it is being retried.', {
        retryAfterMs: 5_000,
      });
    }
  }

  override async alarm(): Promise<void> {
    if (!(await drainDeletions(this.db, this.env))) await this.ctx.storage.setAlarm(Date.now() + 5_000);
    try {
      await this.drainSync();
    } catch {
      // drainSync rescheduled itself.
    }
  }
}
