import { DurableObject } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import type { ChannelKind } from '../../core/domain/ids.js';
import type { AuthedAgent } from '../../core/domain/principals.js';
import type { Env } from '../../core/env.js';
import { digestsEqual } from '../../core/lib/crypto.js';
import type { RejectionView } from '../../core/rpc.js';
import { registry } from '../../core/stubs.js';
import migrations from '../../migrations/agent/migrations.js';
import { AlarmScheduler } from '../shared/alarm-scheduler.js';
import { openDatabase } from '../shared/database.js';
import * as inbox from './inbox-index.js';
import { type CountedRejection, RejectionLog, type RejectionReason } from './rejections.js';
import * as schema from './schema.js';

/** What an authentication call also does for the route, in the same round trip (worker/middleware/auth-extras.ts). */
export interface AuthExtras {
  /** Answer the channels with a pending hint (GET /inbox, POST /inbox/claim without channel_id). */
  pending?: boolean;
  /**
   * Stale hints found by earlier polls, cleared (compare-and-delete on `gen`) before `pending` is
   * read: in memory, written with the next note or by the alarm (inbox.ClearedHints).
   */
  clear?: { channel_id: string; gen: number }[];
}

export type AuthResult =
  /**
   * `channels`: those of the asked channel/group IDs that this agent's index knows; `pending`: the
   * channels with a pending hint, when asked.
   */
  | { status: 'ok'; agent: AuthedAgent; channels: string[]; pending?: inbox.PendingChannel[] }
  | { status: 'unauthenticated' }
  | { status: 'source_ip_denied' };

export interface AccountSnapshot {
  agent_id: string;
  name: string;
  display_name: string;
  host_id: string;
  enabled: boolean;
  key_hash: string | null;
  addresses: string[];
  version: number;
}

/** How stale the directory's last_access_at may get: one registry write per agent per window. */
/** A refusal report the registry did not take is sent again by the alarm this long after. */
const REPORT_RETRY_MS = 5_000;
const LAST_ACCESS_FLUSH_MS = 60_000;

/**
 * Hint clears held in memory (inbox.ClearedHints) are written by the alarm at the latest this long
 * after the first of them, unless a note writes them sooner. The last-access window, so the alarm
 * that reports an active agent's access usually does it and no alarm is set for it.
 */
const CLEARS_FLUSH_MS = LAST_ACCESS_FLUSH_MS;

/** Refusal entries held for the registry while it cannot be reached. */
const UNREPORTED_MAX = 50;

type Account = typeof schema.account.$inferSelect;

/** The account version of a deleted agent: above any the registry can issue. */
const RETIRED_VERSION = Number.MAX_SAFE_INTEGER;

/**
 * One per agent. It answers every authentication of that agent from memory (credentials and the
 * host allowlist, copied here by the registry), so authentication spreads over as many objects as
 * there are agents instead of funnelling through one. It also holds the agent's inbox index
 * (inbox-index.ts): its channels, and which of them may have unread deliveries for it.
 */
export class AgentDO extends DurableObject<Env> {
  private readonly db;
  private readonly alarms: AlarmScheduler;
  private account: Account | null = null;
  /** The registry's answer to accountFor, while it is on its way. */
  private fetchingAccount: Promise<void> | undefined;
  private lastAccessMs = 0;
  /** The source address of the access at lastAccessMs, reported with it. */
  private lastAccessIp = '';
  private lastFlushedMs = 0;
  private flushedAccessMs = 0;
  private flushScheduled = false;
  private readonly rejections: RejectionLog;
  /** The report to the registry in flight, if any (reportRefusals). */
  private reporting: Promise<void> | undefined;
  /** Refusal counts the registry has not taken yet (reportRefusals). */
  private readonly unreportedRefusals: CountedRejection[] = [];
  /** Hint clears applied in memory only, written with the next note or by the alarm (inbox-index.ts). */
  private readonly cleared = new inbox.ClearedHints();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.db = openDatabase(ctx, schema, migrations);
    this.alarms = new AlarmScheduler(ctx, () => Date.now(), 'agent')
      .register('last-access', {
        run: () => this.flushAccess(),
      })
      .register('rejections', {
        // The report is awaited here: an RPC the alarm only starts may be cut when the alarm ends.
        run: async () => {
          this.rejections.flush(Date.now());
          if (!this.reporting && this.unreportedRefusals.length > 0) this.startReport([]);
          await this.reporting;
        },
      })
      .register('inbox-clears', {
        run: async () => this.writeClears(),
      });
    this.rejections = new RejectionLog(
      this.db,
      // A microtask later: the refusal is answered first, the write never delays it.
      (write) => ctx.waitUntil(Promise.resolve().then(() => write())),
      (at) => ctx.waitUntil(this.alarms.noLaterThan(at)),
      (entries) => ctx.waitUntil(this.startReport(entries)),
    );
    void ctx.blockConcurrencyWhile(async () => {
      this.account = this.db.select().from(schema.account).get() ?? null;
    });
  }

  /**
   * `channelIds`: the channel or group IDs the request names (path or query). They are checked
   * against this agent's index in the same call, so a request about a channel the agent has never
   * been in is refused without opening (and so creating) that channel's object, at no extra hop.
   * `extras` saves the route its own calls to this object (the pending list, stale-hint clears);
   * they touch the index only once the key and the address passed, so a refused request writes
   * nothing but its rejection count.
   */
  async authenticate(
    agentId: string,
    keyHash: string,
    clientIp: string,
    channelIds: string[] = [],
    extras: AuthExtras = {},
  ): Promise<AuthResult> {
    // Read directly when loaded: the common case pays no extra await.
    const account = this.account ?? (await this.accountFor(agentId));
    const keyMatches = !!account?.keyHash && digestsEqual(account.keyHash, keyHash);
    if (!account?.enabled || !keyMatches) {
      if (account)
        this.noteRejection(keyMatches ? 'agent_disabled' : account.keyHash ? 'wrong_key' : 'key_revoked', clientIp);
      return { status: 'unauthenticated' };
    }
    if (!account.addresses.includes(clientIp)) {
      this.noteRejection('wrong_address', clientIp);
      return { status: 'source_ip_denied' };
    }
    this.noteAccess(clientIp);
    if (extras.clear && extras.clear.length > 0) this.applyClears(extras.clear);
    return {
      status: 'ok',
      agent: {
        agent_id: account.agentId,
        name: account.name,
        display_name: account.displayName,
        host_id: account.hostId,
      },
      channels: inbox.knownChannels(this.db, channelIds),
      ...(extras.pending && { pending: inbox.pendingChannels(this.db, undefined, this.cleared) }),
    };
  }

  /**
   * The account, asked of the registry when this object has none yet: the object of an imported
   * agent is made on the agent's first use, not by the import (registry/bulk-agents.ts). Only a
   * key this server issued for this agent ID gets here (the worker checks its tag first). Requests
   * arriving while the answer is on its way share it; a push (sync) that lands meanwhile wins over
   * an older answer. Null when the registry knows no such agent.
   */
  private async accountFor(agentId: string): Promise<Account | null> {
    if (this.account) return this.account;
    this.fetchingAccount ??= registry(this.env)
      .agentSnapshot(agentId)
      .then((snapshot) => {
        if (snapshot) this.install(snapshot);
      })
      .finally(() => {
        this.fetchingAccount = undefined;
      });
    await this.fetchingAccount;
    return this.account;
  }

  /** Installs the registry's current view of this agent; older snapshots are ignored. */
  async sync(snapshot: AccountSnapshot): Promise<void> {
    this.install(snapshot);
  }

  private install(snapshot: AccountSnapshot): void {
    if (this.account && this.account.version > snapshot.version) return;
    const row = {
      agentId: snapshot.agent_id,
      name: snapshot.name,
      displayName: snapshot.display_name,
      hostId: snapshot.host_id,
      enabled: snapshot.enabled,
      keyHash: snapshot.key_hash,
      addresses: snapshot.addresses,
      version: snapshot.version,
    };
    this.db.transaction((tx) => {
      tx.delete(schema.account).where(eq(schema.account.agentId, snapshot.agent_id)).run();
      tx.insert(schema.account).values(row).run();
    });
    this.account = row;
  }

  /**
   * The agent was deleted (durable-objects/registry/agent-deletion.ts): no key, disabled, and a
   * version no snapshot can reach, so a push still in flight can never bring the key back. Answers
   * every channel and group the index knows, for the registry to remove the agent from.
   */
  async retire(agentId: string): Promise<string[]> {
    const row = {
      agentId,
      name: this.account?.name ?? '',
      displayName: this.account?.displayName ?? '',
      hostId: this.account?.hostId ?? '',
      enabled: false,
      keyHash: null,
      addresses: [],
      version: RETIRED_VERSION,
    };
    this.db.transaction((tx) => {
      tx.delete(schema.account).run();
      tx.insert(schema.account).values(row).run();
    });
    this.account = row;
    return inbox.everyChannel(this.db);
  }

  // Refused requests (rejections.ts)

  /**
   * A refusal the worker decided itself (a key without this server's tag that names this agent).
   * The worker calls this only after the registry confirmed the agent exists, so no object is
   * created for an agent ID someone made up.
   */
  async noteRefusedKey(agentId: string, clientIp: string): Promise<void> {
    await this.accountFor(agentId);
    this.noteRejection('wrong_key', clientIp);
  }

  /** Newest first; for the console's agent page. */
  async listRejections(): Promise<RejectionView[]> {
    return this.rejections.list(Date.now());
  }

  /**
   * The fleet-wide counts (registry/refusal-counts.ts) hear of every write of the log. A failed
   * report is kept in memory and sent with the next one; only an eviction in between loses it.
   */
  private async reportRefusals(entries: CountedRejection[]): Promise<void> {
    const agentId = this.account?.agentId;
    if (!agentId) return;
    const batch = [...this.unreportedRefusals.splice(0), ...entries];
    try {
      await registry(this.env).recordRefusals(agentId, batch);
    } catch {
      // Bounded: the oldest go first when the registry stays unreachable. The alarm tries again
      // (rejections job), so a count never waits for the agent's next refusal.
      this.unreportedRefusals.push(...batch.slice(-UNREPORTED_MAX));
      this.ctx.waitUntil(this.alarms.within(REPORT_RETRY_MS));
    }
  }

  /** Starts a report and keeps it as the one in flight until it settles (a newer one replaces it). */
  private startReport(entries: CountedRejection[]): Promise<void> {
    const report: Promise<void> = this.reportRefusals(entries).finally(() => {
      if (this.reporting === report) this.reporting = undefined;
    });
    this.reporting = report;
    return report;
  }

  /** Counted in memory, written at most once per window (rejections.ts); never for a deleted agent. */
  private noteRejection(reason: RejectionReason, clientIp: string): void {
    if (!this.account || this.account.version === RETIRED_VERSION) return;
    this.rejections.note(reason, clientIp, Date.now());
  }

  // Inbox index (written by channels' outboxes, read by polls)

  /** Applies the notes, writing the hint clears held in memory in the same transaction first. */
  async noteChannels(notes: inbox.ChannelNote[]): Promise<void> {
    inbox.noteChannels(this.db, notes, this.cleared);
  }

  async pendingChannels(kind?: ChannelKind): Promise<inbox.PendingChannel[]> {
    return inbox.pendingChannels(this.db, kind, this.cleared);
  }

  async clearPending(entries: { channel_id: string; gen: number }[]): Promise<void> {
    this.applyClears(entries);
  }

  /**
   * Compare-and-delete of hints, in memory: every read of `pending` leaves them out at once, and
   * they are written with the next note's transaction or by the alarm (at most CLEARS_FLUSH_MS
   * later), so an authentication that carries clears commits nothing for them.
   */
  private applyClears(entries: readonly { channel_id: string; gen: number }[]): void {
    const first = this.cleared.size === 0;
    this.cleared.add(entries);
    if (first && this.cleared.size > 0) this.ctx.waitUntil(this.alarms.noLaterThan(Date.now() + CLEARS_FLUSH_MS));
  }

  /** The alarm's part: the clears no note has written yet. */
  private writeClears(): void {
    if (this.cleared.size > 0) inbox.clearPending(this.db, this.cleared.take());
  }

  /** Those of `channelIds` this agent is or was in, or was invited to (see inbox.knownChannels). */
  async knownChannels(channelIds: string[]): Promise<string[]> {
    return inbox.knownChannels(this.db, channelIds);
  }

  async listChannels(kind?: ChannelKind): Promise<inbox.ChannelEntry[]> {
    return inbox.listChannels(this.db, kind);
  }

  /** Groups this agent is in or invited to (GET /groups asks each of them for its view). */
  async groupMemberships(): Promise<inbox.GroupMembershipEntry[]> {
    return inbox.groupMembershipList(this.db);
  }

  /**
   * Last access is kept in memory and written to the registry at most once per window (the first
   * access at once, the latest one of a busy window by alarm), so an agent polling every second
   * costs one registry write a minute, not one per request.
   */
  private noteAccess(clientIp: string): void {
    const now = Date.now();
    this.lastAccessMs = now;
    this.lastAccessIp = clientIp;
    if (now - this.lastFlushedMs >= LAST_ACCESS_FLUSH_MS) {
      this.ctx.waitUntil(this.flushAccess());
    } else if (!this.flushScheduled) {
      this.flushScheduled = true;
      this.ctx.waitUntil(this.alarms.noLaterThan(this.lastFlushedMs + LAST_ACCESS_FLUSH_MS));
    }
  }

  private async flushAccess(): Promise<void> {
    if (!this.account || this.lastAccessMs <= this.flushedAccessMs) return;
    const at = this.lastAccessMs;
    const address = this.lastAccessIp;
    this.lastFlushedMs = Date.now();
    try {
      await registry(this.env).recordAccess(this.account.agentId, new Date(at).toISOString(), address);
      this.flushedAccessMs = Math.max(this.flushedAccessMs, at);
    } catch {
      this.lastFlushedMs = 0; // try again on the next request
    }
  }

  override async alarm(): Promise<void> {
    this.flushScheduled = false;
    await this.alarms.run();
  }
}
