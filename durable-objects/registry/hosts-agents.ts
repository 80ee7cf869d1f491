/**
 * Hosts and the agents registered on them: the administrators' CRUD, the agents' directory, and
 * last access. Every change an agent's own object must learn goes through the agent-sync outbox
 * (agent-sync-outbox.ts) in the same transaction. Every write to agents or hosts runs inside
 * `snapshot.changing`, which drops the in-memory copy that getAgents and the directory read
 * (agent-snapshot.ts); a write that skipped it would leave those two answering stale rows.
 */
import { and, asc, eq, gt, inArray, isNotNull, notLike, or, type SQL, sql } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { ApiError } from '../../core/contract/errors.js';
import type { Env } from '../../core/env.js';
import { issueApiKey, keyPrefix, pepperOf, TAGGED_HASH_PREFIX } from '../../core/lib/api-key.js';
import { newId } from '../../core/lib/crypto.js';
import { decodeCursor, encodeCursor } from '../../core/lib/cursor.js';
import { canonicalIp } from '../../core/lib/ip.js';
import type { AgentView, DirectoryEntryView, HostView } from '../../core/rpc.js';
import { iso } from '../shared/database.js';
import { chunks } from '../shared/in-chunks.js';
import { type AgentListQuery, listAgentsPage } from './agent-list.js';
import type { AgentSnapshot } from './agent-snapshot.js';
import type { AgentSyncOutbox } from './agent-sync-outbox.js';
import type { RegistryDb } from './database.js';
import * as schema from './schema.js';

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

export function agentView(row: typeof schema.agents.$inferSelect): AgentView {
  return {
    agent_id: row.agentId,
    name: row.name,
    display_name: row.displayName,
    description: row.description,
    host_id: row.hostId,
    enabled: row.enabled,
    last_access_at: row.lastAccessAt,
    created_at: row.createdAt,
    key_status: row.keyHash ? 'active' : row.keyRevokedAt ? 'revoked' : 'none',
    key_prefix: row.keyHash ? row.keyPrefix : null,
    key_issued_at: row.keyHash ? row.keyIssuedAt : null,
    key_revoked_at: row.keyHash ? null : row.keyRevokedAt,
    last_access_address: row.lastAccessAddress,
  };
}

/**
 * A new agent's row with a fresh key (only its hash is stored), for createAgent and the import:
 * one place decides what a new agent starts as.
 */
export async function newAgentRow(
  input: { name: string; host_id: string; display_name?: string; description?: string; enabled?: boolean },
  pepper: string,
  now: string,
): Promise<{ row: typeof schema.agents.$inferSelect; apiKey: string }> {
  const agentId = newId('agt_');
  const { key: apiKey, hash: keyHash } = await issueApiKey(agentId, pepper);
  const row = {
    agentId,
    name: input.name,
    displayName: input.display_name || input.name,
    description: input.description ?? '',
    hostId: input.host_id,
    enabled: input.enabled ?? true,
    keyHash,
    keyPrefix: keyPrefix(apiKey),
    keyIssuedAt: now,
    keyRevokedAt: null,
    createdAt: now,
    lastAccessAt: null,
    lastAccessAddress: null,
    version: 1,
  };
  return { row, apiKey };
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

export class HostsAndAgents {
  constructor(
    private readonly db: RegistryDb,
    private readonly env: Env,
    private readonly outbox: AgentSyncOutbox,
    /** The in-memory copy of agents and hosts: every write below goes through `snapshot.changing`. */
    private readonly snapshot: AgentSnapshot,
    /** Drains the outbox; throws `unavailable` when a push failed (the alarm retries it). */
    private readonly pushChanges: () => Promise<void>,
  ) {}

  async listHosts(
    cursor: string | undefined,
    limit: number,
  ): Promise<{ hosts: HostView[]; next_cursor: string | null; agent_counts: Record<string, number> }> {
    const rows = this.db
      .select()
      .from(schema.hosts)
      .where(afterNameId(schema.hosts.name, schema.hosts.hostId, cursor))
      .orderBy(asc(schema.hosts.name), asc(schema.hosts.hostId))
      .limit(limit + 1)
      .all();
    const { page, next_cursor } = pageOf(rows, limit, (row) => [row.name, row.hostId]);
    const agent_counts: Record<string, number> = Object.fromEntries(page.map((h) => [h.hostId, 0]));
    // The page's hosts only (a page is at most max_page_size), each counted on the (host, name) index.
    for (const part of chunks(page.map((h) => h.hostId))) {
      const counted = this.db
        .select({ hostId: schema.agents.hostId, n: sql<number>`count(*)` })
        .from(schema.agents)
        .where(inArray(schema.agents.hostId, part))
        .groupBy(schema.agents.hostId)
        .all();
      for (const { hostId, n } of counted) agent_counts[hostId] = n;
    }
    return { hosts: page.map(hostView), next_cursor, agent_counts };
  }

  async getHost(hostId: string): Promise<HostView> {
    const row = this.db.select().from(schema.hosts).where(eq(schema.hosts.hostId, hostId)).get();
    if (!row) throw new ApiError('not_found', 'No such host.', { target: hostId });
    return hostView(row);
  }

  async createHost(input: { name: string; addresses: string[]; os?: string; description?: string }): Promise<HostView> {
    const addresses = canonicalAddresses(input.addresses);
    if (this.db.select().from(schema.hosts).where(eq(schema.hosts.name, input.name)).get()) {
      throw new ApiError('conflict', `A host named "${input.name}" exists.`, {
        field: 'name',
        reason: 'host_name_taken',
      });
    }
    const row = {
      hostId: newId('hst_'),
      name: input.name,
      addresses,
      os: input.os ?? '',
      description: input.description ?? '',
      createdAt: iso(Date.now()),
    };
    this.snapshot.changing(() => this.db.insert(schema.hosts).values(row).run());
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
        throw new ApiError('conflict', `A host named "${patch.name}" exists.`, {
          field: 'name',
          reason: 'host_name_taken',
        });
      }
    }
    const next = {
      ...existing,
      name: patch.name ?? existing.name,
      addresses,
      os: patch.os ?? existing.os,
      description: patch.description ?? existing.description,
    };
    this.snapshot.changing(() =>
      this.db.transaction((tx) => {
        tx.update(schema.hosts).set(next).where(eq(schema.hosts.hostId, hostId)).run();
        if (patch.addresses) {
          const affected = tx
            .select({ id: schema.agents.agentId })
            .from(schema.agents)
            .where(eq(schema.agents.hostId, hostId))
            .all();
          for (const { id } of affected) this.outbox.mark(tx, id);
        }
      }),
    );
    await this.pushChanges();
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
        reason: 'host_has_agents',
      });
    }
    this.snapshot.changing(() => this.db.delete(schema.hosts).where(eq(schema.hosts.hostId, hostId)).run());
  }

  async listAgents(
    query: AgentListQuery,
    cursor: string | undefined,
    limit: number,
  ): Promise<{ agents: AgentView[]; next_cursor: string | null; total: number }> {
    const { rows, next_cursor, total } = listAgentsPage(this.db, query, cursor, limit);
    return { agents: rows.map(agentView), next_cursor, total };
  }

  async getAgent(agentId: string): Promise<AgentView | null> {
    const row = this.db.select().from(schema.agents).where(eq(schema.agents.agentId, agentId)).get();
    return row ? agentView(row) : null;
  }

  /** Many agents at once (send targets, group invitees): one call, whatever the fan-out. */
  async getAgents(agentIds: string[]): Promise<AgentView[]> {
    return this.snapshot.agents(agentIds);
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
    const { row, apiKey } = await newAgentRow(input, pepperOf(this.env), iso(Date.now()));
    this.snapshot.changing(() =>
      this.db.transaction((tx) => {
        tx.insert(schema.agents).values(row).run();
        this.outbox.mark(tx, row.agentId);
      }),
    );
    await this.pushChanges();
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
    this.snapshot.changing(() =>
      this.db.transaction((tx) => {
        tx.update(schema.agents).set(next).where(eq(schema.agents.agentId, agentId)).run();
        this.outbox.mark(tx, agentId);
      }),
    );
    await this.pushChanges();
    return agentView(next);
  }

  async regenerateKey(agentId: string): Promise<string> {
    const existing = this.requireAgent(agentId);
    const { key: apiKey, hash: keyHash } = await issueApiKey(agentId, pepperOf(this.env));
    this.snapshot.changing(() =>
      this.db.transaction((tx) => {
        tx.update(schema.agents)
          .set({
            keyHash,
            keyPrefix: keyPrefix(apiKey),
            keyIssuedAt: iso(Date.now()),
            keyRevokedAt: null,
            version: existing.version + 1,
          })
          .where(eq(schema.agents.agentId, agentId))
          .run();
        this.outbox.mark(tx, agentId);
      }),
    );
    await this.pushChanges();
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
    this.snapshot.changing(() =>
      this.db.transaction((tx) => {
        tx.update(schema.agents)
          .set({
            keyHash: null,
            keyPrefix: null,
            keyIssuedAt: null,
            keyRevokedAt: iso(Date.now()),
            version: existing.version + 1,
          })
          .where(eq(schema.agents.agentId, agentId))
          .run();
        this.outbox.mark(tx, agentId);
      }),
    );
    await this.pushChanges();
  }

  /**
   * Last access (and its source address) reported by an AgentDO (coalesced there); only ever moves
   * forward. `address` is optional for an object still running code from before it was reported.
   */
  async recordAccess(agentId: string, at: string, address?: string): Promise<void> {
    this.snapshot.accessed(agentId, at, address);
  }

  async directory(
    filter: { host_id?: string; name?: string },
    cursor: string | undefined,
    limit: number,
  ): Promise<{ agents: DirectoryEntryView[]; next_cursor: string | null }> {
    const after = decodeCursor(cursor);
    const rows = this.snapshot.directory(filter, after && [String(after[0]), String(after[1])], limit + 1);
    const { page, next_cursor } = pageOf(rows, limit, (row) => row.position);
    return { agents: page.map((row) => row.entry), next_cursor };
  }

  requireAgent(agentId: string): typeof schema.agents.$inferSelect {
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
    if (clash)
      throw new ApiError('conflict', `An agent named "${name}" exists on this host.`, {
        field: 'name',
        reason: 'agent_name_taken',
      });
  }
}
