/**
 * Many agents in one request (POST /admin/agents/bulk and /admin/agents/import). Each agent of a
 * bulk action is all-or-nothing: its change commits in one transaction with its agent-sync row
 * (or its deletion row), and a refusal (unknown, owns a group) leaves it untouched while the
 * others go ahead. An import checks every row before it writes anything, then creates them all in
 * one transaction: a refused row refuses the whole import. A bulk action pushes what changed before
 * answering, like the one-agent operations, and reports an agent still being pushed as `pending`;
 * an import pushes nothing (its agents' objects fetch their accounts on first use).
 * The request's lists are bounded by the operations' schemas (admin-bulk.ts).
 */
import { and, eq, inArray } from 'drizzle-orm';
import { ApiError, type ImportRowRefusal, reviveApiError } from '../../core/contract/errors.js';
import { AgentInput } from '../../core/contract/models.js';
import type { BulkAgentAction } from '../../core/contract/operations/admin-bulk.js';
import type { Env } from '../../core/env.js';
import { issueApiKey, keyPrefix, pepperOf } from '../../core/lib/api-key.js';
import type { AgentView, BulkAgentResultView } from '../../core/rpc.js';
import { iso } from '../shared/database.js';
import { chunks } from '../shared/in-chunks.js';
import { recordDeletion, refuseOwner } from './agent-deletion.js';
import type { AgentSnapshot } from './agent-snapshot.js';
import type { AgentSyncOutbox } from './agent-sync-outbox.js';
import type { RegistryDb } from './database.js';
import { agentView, newAgentRow } from './hosts-agents.js';
import * as schema from './schema.js';

export interface ImportRowInput {
  name: string;
  host: string;
  display_name?: string;
  description?: string;
}

export interface ImportedAgent {
  agent: AgentView;
  api_key: string;
  pending: boolean;
}

function refusal(error: unknown): BulkAgentResultView['error'] {
  const revived = reviveApiError(error);
  if (revived instanceof ApiError) {
    return {
      code: revived.code,
      message: revived.text,
      ...(revived.details.reason !== undefined && { reason: revived.details.reason }),
    };
  }
  return { code: 'internal_error', message: 'The change failed.' };
}

export class BulkAgents {
  constructor(
    private readonly db: RegistryDb,
    private readonly env: Env,
    private readonly outbox: AgentSyncOutbox,
    private readonly snapshot: AgentSnapshot,
    /** Drain the agent-sync and agent-deletion outboxes; false when something is left for the alarm. */
    private readonly push: { sync: () => Promise<boolean>; deletions: () => Promise<boolean> },
  ) {}

  private existing(agentIds: readonly string[]): Map<string, typeof schema.agents.$inferSelect> {
    const found = new Map<string, typeof schema.agents.$inferSelect>();
    for (const part of chunks(agentIds)) {
      for (const row of this.db.select().from(schema.agents).where(inArray(schema.agents.agentId, part)).all()) {
        found.set(row.agentId, row);
      }
    }
    return found;
  }

  /** The agents of `agentIds` that still have a row in `table` (their push is still to come). */
  private stillPending(table: typeof schema.agentSync | typeof schema.agentDeletions, agentIds: string[]): Set<string> {
    const left = new Set<string>();
    for (const part of chunks(agentIds)) {
      for (const row of this.db.select({ id: table.agentId }).from(table).where(inArray(table.agentId, part)).all()) {
        left.add(row.id);
      }
    }
    return left;
  }

  async apply(action: BulkAgentAction, agentIds: readonly string[]): Promise<BulkAgentResultView[]> {
    const rows = this.existing(agentIds);
    const results = new Map<string, BulkAgentResultView>();
    for (const id of agentIds) {
      if (!rows.has(id)) {
        results.set(id, {
          agent_id: id,
          status: 'rejected',
          error: { code: 'not_found', message: 'No such agent.' },
        });
      }
    }
    const known = agentIds.filter((id) => rows.has(id));
    const changed: { id: string; apiKey?: string }[] =
      action === 'delete' ? await this.delete(known, results) : await this.update(action, known, rows);
    const done = changed.map((c) => c.id);
    const pending =
      action === 'delete'
        ? (await this.push.deletions())
          ? new Set<string>()
          : this.stillPending(schema.agentDeletions, done)
        : (await this.push.sync())
          ? new Set<string>()
          : this.stillPending(schema.agentSync, done);
    for (const { id, apiKey } of changed) {
      results.set(id, {
        agent_id: id,
        status: pending.has(id) ? 'pending' : 'done',
        ...(apiKey !== undefined && { api_key: apiKey }),
      });
    }
    // The name it had (a deleted agent's too), for the answer and the audit log.
    return agentIds.map((id) => {
      const result = results.get(id) as BulkAgentResultView;
      const name = rows.get(id)?.name;
      return name === undefined ? result : { ...result, name };
    });
  }

  private async update(
    action: Exclude<BulkAgentAction, 'delete'>,
    agentIds: string[],
    rows: Map<string, typeof schema.agents.$inferSelect>,
  ): Promise<{ id: string; apiKey?: string }[]> {
    const pepper = pepperOf(this.env);
    const keys =
      action === 'regenerate_key'
        ? await Promise.all(agentIds.map((id) => issueApiKey(id, pepper)))
        : agentIds.map(() => null);
    const now = iso(Date.now());
    this.snapshot.changing(() =>
      this.db.transaction((tx) => {
        agentIds.forEach((id, i) => {
          const key = keys[i];
          const set =
            action === 'disable' || action === 'enable'
              ? { enabled: action === 'enable' }
              : key
                ? { keyHash: key.hash, keyPrefix: keyPrefix(key.key), keyIssuedAt: now, keyRevokedAt: null }
                : // A revoked key stays revoked: its revocation time is kept.
                  rows.get(id)?.keyHash
                  ? { keyHash: null, keyPrefix: null, keyIssuedAt: null, keyRevokedAt: now }
                  : { keyHash: null, keyPrefix: null, keyIssuedAt: null };
          tx.update(schema.agents).set(set).where(eq(schema.agents.agentId, id)).run();
          this.outbox.mark(tx, id);
        });
      }),
    );
    return agentIds.map((id, i) => ({ id, ...(keys[i] && { apiKey: keys[i].key }) }));
  }

  /** Deletes those that own no active group; an owner is refused (conflict) and stays as it was. */
  private async delete(agentIds: string[], results: Map<string, BulkAgentResultView>): Promise<{ id: string }[]> {
    const checks = await Promise.allSettled(agentIds.map((id) => refuseOwner(this.env, id)));
    const allowed: string[] = [];
    checks.forEach((check, i) => {
      const id = agentIds[i] as string;
      if (check.status === 'fulfilled') allowed.push(id);
      else results.set(id, { agent_id: id, status: 'rejected', error: refusal(check.reason) });
    });
    // Another request may have deleted some while the groups were asked.
    const still = this.existing(allowed);
    const now = iso(Date.now());
    const gone: { id: string }[] = [];
    this.snapshot.changing(() => {
      for (const id of allowed) {
        if (!still.has(id)) {
          results.set(id, {
            agent_id: id,
            status: 'rejected',
            error: { code: 'not_found', message: 'No such agent.' },
          });
          continue;
        }
        recordDeletion(this.db, id, now);
        gone.push({ id });
      }
    });
    return gone;
  }

  /**
   * Checks every row, then creates them all in one transaction, or throws `validation_failed`
   * naming every refused row (nothing written).
   */
  async import(rows: readonly ImportRowInput[]): Promise<ImportedAgent[]> {
    const refused: ImportRowRefusal[] = [];
    const hostIds = new Map<string, string | null>();
    const hostOf = (text: string): string | null => {
      if (!hostIds.has(text)) {
        const found = this.db
          .select({ id: schema.hosts.hostId })
          .from(schema.hosts)
          .where(text.startsWith('hst_') ? eq(schema.hosts.hostId, text) : eq(schema.hosts.name, text))
          .get();
        hostIds.set(text, found?.id ?? null);
      }
      return hostIds.get(text) ?? null;
    };
    const seen = new Map<string, number>();
    const valid: { row: number; name: string; hostId: string; display_name?: string; description?: string }[] = [];
    rows.forEach((input, index) => {
      const row = index + 1;
      const before = refused.length;
      for (const field of ['name', 'display_name', 'description'] as const) {
        const value = input[field];
        // An empty optional column is no value (a CSV has no other way to leave it out).
        if (value === undefined || (value === '' && field !== 'name')) continue;
        const checked = AgentInput.shape[field].safeParse(value);
        const issue = checked.success ? undefined : checked.error.issues[0];
        if (issue) {
          const limit =
            issue.code === 'too_big' || issue.code === 'too_small'
              ? Number(issue.code === 'too_big' ? issue.maximum : issue.minimum)
              : undefined;
          refused.push({
            row,
            field,
            code: 'validation_failed',
            reason: issue.code,
            ...(limit !== undefined && { limit }),
            message: `${field}: ${issue.message}`,
          });
        }
      }
      const hostId = hostOf(input.host);
      if (hostId === null) {
        refused.push({
          row,
          field: 'host',
          code: 'not_found',
          reason: 'unknown_host',
          message: `No host "${input.host}" (give a host ID or a host name).`,
        });
      }
      if (refused.length > before || hostId === null) return;
      const key = JSON.stringify([hostId, input.name]);
      const first = seen.get(key);
      if (first !== undefined) {
        refused.push({
          row,
          field: 'name',
          code: 'conflict',
          reason: 'duplicate_row',
          message: `Row ${first} already names "${input.name}" on this host.`,
        });
        return;
      }
      seen.set(key, row);
      const taken = this.db
        .select({ id: schema.agents.agentId })
        .from(schema.agents)
        .where(and(eq(schema.agents.hostId, hostId), eq(schema.agents.name, input.name)))
        .get();
      if (taken) {
        refused.push({
          row,
          field: 'name',
          code: 'conflict',
          reason: 'agent_name_taken',
          message: `An agent named "${input.name}" exists on this host.`,
        });
        return;
      }
      valid.push({ row, name: input.name, hostId, display_name: input.display_name, description: input.description });
    });
    if (refused.length > 0) {
      // A row can be refused for several columns: the count is of rows. Refusals that only the
      // current hosts and agents explain (unknown host, name taken, repeated) are a conflict.
      const refusedRows = new Set(refused.map((r) => r.row)).size;
      const code = refused.some((r) => r.code === 'validation_failed') ? 'validation_failed' : 'conflict';
      throw new ApiError(code, `${refusedRows} of ${rows.length} rows refused; nothing was imported.`, {
        reason: 'import_rows_refused',
        params: { refused: refusedRows, rows: rows.length },
        rows: refused,
      });
    }
    const pepper = pepperOf(this.env);
    const now = iso(Date.now());
    const created = await Promise.all(
      valid.map(({ name, hostId, display_name, description }) =>
        newAgentRow({ name, host_id: hostId, display_name, description }, pepper, now),
      ),
    );
    // No push: an imported agent's own object is made on its first use and asks the registry for
    // the account then (AgentDO.accountFor), so each key works as soon as this commits. Making
    // the objects here cost the one thread about 10 ms per agent (a new SQLite database each).
    this.snapshot.changing(() =>
      this.db.transaction((tx) => {
        for (const { row } of created) tx.insert(schema.agents).values(row).run();
      }),
    );
    return created.map(({ row, apiKey }) => ({ agent: agentView(row), api_key: apiKey, pending: false }));
  }
}
