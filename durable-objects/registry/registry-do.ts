import { DurableObject } from 'cloudflare:workers';
import { ApiError } from '../../core/contract/errors.js';
import type { Limits } from '../../core/contract/models.js';
import type { BulkAgentAction } from '../../core/contract/operations/admin-bulk.js';
import { type FieldChange, fieldChanges } from '../../core/domain/audit-changes.js';
import type { Env } from '../../core/env.js';
import { DEFAULT_LIMITS } from '../../core/lib/limits.js';
import type {
  AdminAccountView,
  AdminSessionInfoView,
  AgentView,
  AuditEntryView,
  AuditFilter,
  BulkAgentResultView,
  DirectoryEntryView,
  HostView,
  ScrapeAnswer,
  SessionView,
} from '../../core/rpc.js';
import migrations from '../../migrations/registry/migrations.js';
import type { AccountSnapshot } from '../agent/agent-do.js';
import { AlarmScheduler } from '../shared/alarm-scheduler.js';
import { iso, openDatabase } from '../shared/database.js';
import { backoffMs, DELIVERY_RETRY } from '../shared/outbox.js';
import { AdminAccounts } from './admin-accounts.js';
import { AdminAuth } from './admin-auth.js';
import { drainDeletions, recordDeletion, refuseOwner } from './agent-deletion.js';
import type { AgentListQuery } from './agent-list.js';
import { AgentSnapshot } from './agent-snapshot.js';
import { AgentSyncOutbox } from './agent-sync-outbox.js';
import { AUDIT_PRUNE_INTERVAL_MS, AuditLog, type AuditRecord, type RefusalRecord } from './audit-log.js';
import { BulkAgents, type ImportedAgent, type ImportRowInput } from './bulk-agents.js';
import type { RegistryDb } from './database.js';
import { type FleetAgentFigures, fleetAgentFigures } from './fleet-summary.js';
import { HostsAndAgents } from './hosts-agents.js';
import { MetricsToken } from './metrics-token.js';
import { type RefusalFigures, type RefusalReport, recordRefusals, refusalFigures } from './refusal-counts.js';
import * as schema from './schema.js';
import { readSettings, writeSettings } from './settings.js';

/** The fields whose old and new values an agent's, a host's or the settings' audit entry records. */
const AGENT_AUDITED_FIELDS = ['name', 'host_id', 'display_name', 'description', 'enabled'] as const;
const HOST_AUDITED_FIELDS = ['name', 'addresses', 'os', 'description'] as const;
const LIMIT_KEYS = Object.keys(DEFAULT_LIMITS) as (keyof Limits)[];

/**
 * The one registry: hosts, agents, global settings, administrators and their sessions. It is on
 * the path of admin requests, the directory and settings reads (cached by the worker), but not of
 * agent authentication: each agent's credentials are copied to that agent's own AgentDO.
 *
 * A thin shell over one module per job: settings.ts, hosts-agents.ts, admin-auth.ts (with
 * throttle.ts and throttle-counters.ts) and agent-sync-outbox.ts, whose retries its alarm runs.
 */
export class RegistryDO extends DurableObject<Env> {
  private readonly db: RegistryDb;
  private readonly outbox: AgentSyncOutbox;
  /** Agents and hosts in memory for getAgents and the directory; every write to them drops it. */
  private readonly snapshot: AgentSnapshot;
  private readonly hostsAndAgents: HostsAndAgents;
  private readonly bulk: BulkAgents;
  private readonly auth: AdminAuth;
  private readonly accounts: AdminAccounts;
  private readonly audit: AuditLog;
  private readonly alarms: AlarmScheduler;
  private readonly metricsToken: MetricsToken;
  /** Whether this instance has made sure a prune of the audit log is scheduled. */
  private auditPruneArmed = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.db = openDatabase(ctx, schema, migrations);
    this.outbox = new AgentSyncOutbox(this.db, env);
    this.snapshot = new AgentSnapshot(ctx.storage.sql);
    this.hostsAndAgents = new HostsAndAgents(this.db, env, this.outbox, this.snapshot, () => this.pushAgentChanges());
    this.bulk = new BulkAgents(this.db, env, this.outbox, this.snapshot, {
      // Both arm the alarm for what is left before they throw; the bulk answer reports it as pending.
      sync: () =>
        this.pushAgentChanges().then(
          () => true,
          () => false,
        ),
      deletions: () =>
        this.finishDeletions().then(
          () => true,
          () => false,
        ),
    });
    this.auth = new AdminAuth(this.db, env);
    this.accounts = new AdminAccounts(this.db);
    this.audit = new AuditLog(this.db);
    this.metricsToken = new MetricsToken(this.db, env);
    this.alarms = new AlarmScheduler(ctx, () => Date.now(), 'registry')
      .register('agent-sync', {
        run: async () => {
          // A failure re-arms the alarm (pushAgentChanges); the error is for the waiting request only.
          await this.pushAgentChanges().catch(() => {});
        },
      })
      .register('agent-deletions', {
        run: async () => {
          await this.finishDeletions().catch(() => {});
        },
      })
      .register('audit-prune', {
        // No due(): the other jobs arm the alarm by asking, so this one asks too (noLaterThan
        // keeps an earlier alarm), once a day while the log has entries.
        run: async (now) => {
          if (this.audit.prune(now)) await this.alarms.noLaterThan(now + AUDIT_PRUNE_INTERVAL_MS);
        },
      });
  }

  /** `/readyz`: the object opened (migrations applied) and its database answers a read. */
  async ready(): Promise<true> {
    this.ctx.storage.sql.exec('SELECT 1').toArray();
    return true;
  }

  // The /metrics token (metrics-token.ts)

  createMetricsToken(): Promise<string> {
    return this.metricsToken.create(Date.now());
  }

  async deleteMetricsToken(): Promise<boolean> {
    return this.metricsToken.delete();
  }

  /** Checks a scrape's bearer token and answers the registry's figures with it. */
  scrapeMetrics(presented: string | null): Promise<ScrapeAnswer> {
    return this.metricsToken.scrape(presented);
  }

  // Settings

  async getSettings(): Promise<{ limits: Limits; revision: number }> {
    return readSettings(this.db);
  }

  /** The new settings, and each limit's old and new value for the audit log. */
  async updateSettings(
    patch: Partial<Limits>,
  ): Promise<{ limits: Limits; revision: number; lowered: string[]; changes: FieldChange[] }> {
    const before = readSettings(this.db).limits;
    const written = writeSettings(this.db, patch);
    return { ...written, changes: fieldChanges(before, written.limits, LIMIT_KEYS) };
  }

  /** The fleet view's agent figures: one query, no agent's object asked (fleet-summary.ts). */
  async fleetAgents(): Promise<FleetAgentFigures> {
    return fleetAgentFigures(this.db, Date.now());
  }

  /** An agent's object reports the refusals it counted (refusal-counts.ts). */
  async recordRefusals(agentId: string, entries: RefusalReport[]): Promise<void> {
    recordRefusals(this.db, agentId, entries, Date.now());
  }

  /** The fleet view's refused requests: the last hour and day by reason, the top agents and addresses. */
  async fleetRefusals(top: number): Promise<RefusalFigures> {
    return refusalFigures(this.db, Date.now(), Math.min(Math.max(1, top), 50));
  }

  // Hosts and agents (hosts-agents.ts)

  listHosts(
    cursor: string | undefined,
    limit: number,
  ): Promise<{ hosts: HostView[]; next_cursor: string | null; agent_counts: Record<string, number> }> {
    return this.hostsAndAgents.listHosts(cursor, limit);
  }

  getHost(hostId: string): Promise<HostView> {
    return this.hostsAndAgents.getHost(hostId);
  }

  createHost(input: { name: string; addresses: string[]; os?: string; description?: string }): Promise<HostView> {
    return this.hostsAndAgents.createHost(input);
  }

  /** The host as changed, and each field's old and new value for the audit log. */
  async updateHost(
    hostId: string,
    patch: { name?: string; addresses?: string[]; os?: string; description?: string },
  ): Promise<{ host: HostView; changes: FieldChange[] }> {
    // Read and write run in one turn of this object (no storage wait between), so no other
    // request's change can fall between the two.
    const before = await this.hostsAndAgents.getHost(hostId);
    const host = await this.hostsAndAgents.updateHost(hostId, patch);
    return { host, changes: fieldChanges(before, host, HOST_AUDITED_FIELDS) };
  }

  /** Deletes the host; answers the name it had, for the audit log. */
  async deleteHost(hostId: string): Promise<{ name: string }> {
    const { name } = await this.hostsAndAgents.getHost(hostId);
    await this.hostsAndAgents.deleteHost(hostId);
    return { name };
  }

  listAgents(
    query: AgentListQuery,
    cursor: string | undefined,
    limit: number,
  ): Promise<{ agents: AgentView[]; next_cursor: string | null; total: number }> {
    return this.hostsAndAgents.listAgents(query, cursor, limit);
  }

  getAgent(agentId: string): Promise<AgentView | null> {
    return this.hostsAndAgents.getAgent(agentId);
  }

  /** Many agents at once (send targets, group invitees): one call, whatever the fan-out. */
  getAgents(agentIds: string[]): Promise<AgentView[]> {
    return this.hostsAndAgents.getAgents(agentIds);
  }

  createAgent(input: Parameters<HostsAndAgents['createAgent']>[0]): Promise<{ agent: AgentView; api_key: string }> {
    return this.hostsAndAgents.createAgent(input);
  }

  /** The agent as changed, and each field's old and new value for the audit log. */
  async updateAgent(
    agentId: string,
    patch: { name?: string; host_id?: string; display_name?: string; description?: string; enabled?: boolean },
  ): Promise<{ agent: AgentView; changes: FieldChange[] }> {
    const before = await this.hostsAndAgents.getAgent(agentId);
    const agent = await this.hostsAndAgents.updateAgent(agentId, patch);
    return { agent, changes: before ? fieldChanges(before, agent, AGENT_AUDITED_FIELDS) : [] };
  }

  regenerateKey(agentId: string): Promise<string> {
    return this.hostsAndAgents.regenerateKey(agentId);
  }

  /** Agents whose live key predates key tags (worker/lib/legacy-keys.ts); empty once all are regenerated. */
  legacyKeyAgents(): Promise<string[]> {
    return this.hostsAndAgents.legacyKeyAgents();
  }

  revokeKey(agentId: string): Promise<void> {
    return this.hostsAndAgents.revokeKey(agentId);
  }

  /** Deletes an agent for good (agent-deletion.ts): its key fails and it leaves every channel. */
  /** Deletes the agent; answers the name it had, for the audit log. */
  async deleteAgent(agentId: string): Promise<{ name: string }> {
    this.hostsAndAgents.requireAgent(agentId);
    await refuseOwner(this.env, agentId);
    const { name } = this.hostsAndAgents.requireAgent(agentId);
    this.snapshot.changing(() => recordDeletion(this.db, agentId, iso(Date.now())));
    await this.finishDeletions();
    return { name };
  }

  /** One action on many agents, each all-or-nothing, reported per agent (bulk-agents.ts). */
  bulkAgents(action: BulkAgentAction, agentIds: string[]): Promise<BulkAgentResultView[]> {
    return this.bulk.apply(action, agentIds);
  }

  /** Creates every row's agent, or none when a row is refused (bulk-agents.ts). */
  importAgents(rows: ImportRowInput[]): Promise<ImportedAgent[]> {
    return this.bulk.import(rows);
  }

  /** An agent's current account for its own object, which asks on first use (AgentDO.accountFor). */
  async agentSnapshot(agentId: string): Promise<AccountSnapshot | null> {
    return this.outbox.snapshotOf(agentId);
  }

  /** Last access and its address, reported by an AgentDO (coalesced there); only ever moves forward. */
  recordAccess(agentId: string, at: string, address?: string): Promise<void> {
    return this.hostsAndAgents.recordAccess(agentId, at, address);
  }

  directory(
    filter: { host_id?: string; name?: string },
    cursor: string | undefined,
    limit: number,
  ): Promise<{ agents: DirectoryEntryView[]; next_cursor: string | null }> {
    return this.hostsAndAgents.directory(filter, cursor, limit);
  }

  // Administrators (admin-auth.ts)

  needsSetup(): Promise<boolean> {
    return this.auth.needsSetup();
  }

  /** First start with SWITCHBOARD_ADMIN_PASSWORD: creates `admin` unless an administrator exists. */
  bootstrapAdmin(username: string, password: string): Promise<boolean> {
    return this.auth.bootstrapAdmin(username, password);
  }

  /** A fresh one-time setup token while no administrator exists (replaces any earlier one). */
  issueSetupToken(): Promise<string | null> {
    return this.auth.issueSetupToken();
  }

  setupAdmin(
    token: string,
    username: string,
    password: string,
    clientIp: string,
    userAgent?: string,
  ): Promise<{ token: string; session: SessionView }> {
    return this.auth.setupAdmin(token, username, password, clientIp, userAgent);
  }

  login(
    username: string,
    password: string,
    clientIp: string,
    userAgent?: string,
  ): Promise<{ token: string; session: SessionView }> {
    return this.auth.login(username, password, clientIp, userAgent);
  }

  /** Validates a session by its token hash and slides its idle expiry. */
  touchSession(tokenHash: string): Promise<SessionView | null> {
    return this.auth.touchSession(tokenHash);
  }

  endSession(tokenHash: string): Promise<void> {
    return this.auth.endSession(tokenHash);
  }

  // Administrator accounts and sessions (admin-accounts.ts)

  async listAdmins(): Promise<AdminAccountView[]> {
    return this.accounts.list();
  }

  createAdmin(username: string, password: string): Promise<AdminAccountView> {
    return this.accounts.create(username, password);
  }

  async setAdminEnabled(username: string, enabled: boolean): Promise<AdminAccountView> {
    return this.accounts.setEnabled(username, enabled);
  }

  async deleteAdmin(username: string): Promise<void> {
    this.accounts.delete(username);
  }

  changeAdminPassword(input: Parameters<AdminAccounts['changePassword']>[0]): Promise<{ ended_sessions: number }> {
    return this.accounts.changePassword(input);
  }

  async listAdminSessions(username: string | undefined, currentHash: string): Promise<AdminSessionInfoView[]> {
    return this.accounts.listSessions(username, currentHash);
  }

  async endAdminSessionById(sessionId: string, currentHash: string): Promise<{ signed_out: boolean }> {
    return this.accounts.endSession(sessionId, currentHash);
  }

  // The audit log (audit-log.ts)

  async recordAudit(entry: AuditRecord): Promise<void> {
    this.audit.record(entry);
    await this.armAuditPrune();
  }

  /** A bulk request's entries, one per agent, in one transaction. */
  async recordAudits(entries: AuditRecord[]): Promise<void> {
    this.db.transaction(() => {
      for (const entry of entries) this.audit.record(entry);
    });
    await this.armAuditPrune();
  }

  private async armAuditPrune(): Promise<void> {
    if (this.auditPruneArmed) return;
    await this.alarms.noLaterThan(Date.now() + AUDIT_PRUNE_INTERVAL_MS);
    this.auditPruneArmed = true;
  }

  async recordRefusedSignIn(refusal: RefusalRecord): Promise<void> {
    this.audit.recordRefusal(refusal);
    await this.armAuditPrune();
  }

  async listAudit(
    filter: AuditFilter,
    cursor: string | undefined,
    limit: number,
  ): Promise<{ entries: AuditEntryView[]; next_cursor: string | null }> {
    return this.audit.list(filter, cursor, limit);
  }

  // Agent sync (agent-sync-outbox.ts)

  /**
   * Pushes pending agent changes to the agents' own objects. A failed push stays in the outbox and
   * the alarm retries it; the admin request that made the change is told it is not yet in force.
   */
  private async pushAgentChanges(): Promise<void> {
    if (await this.outbox.drain()) return;
    const retryMs = backoffMs(1, DELIVERY_RETRY);
    await this.alarms.within(retryMs);
    throw new ApiError('unavailable', 'The change is saved but not yet in force everywhere; it is being retried.', {
      retryAfterMs: retryMs,
      reason: 'change_pending',
    });
  }

  /** Drains the agent-deletion outbox; what failed is retried by the alarm. */
  private async finishDeletions(): Promise<void> {
    if (await drainDeletions(this.db, this.env)) return;
    const retryMs = backoffMs(1, DELIVERY_RETRY);
    await this.alarms.within(retryMs);
    throw new ApiError('unavailable', 'The agent is deleted but not yet removed everywhere; it is being retried.', {
      retryAfterMs: retryMs,
      reason: 'deletion_pending',
    });
  }

  override async alarm(): Promise<void> {
    await this.alarms.run();
  }
}
