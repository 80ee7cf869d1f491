/**
 * Results of Durable Object RPC methods that are not wire models themselves, derived from the
 * wire models (core/contract) so that a field is spelled once. Type-only: the objects return
 * them, the worker's handlers shape them into responses.
 */
import type { z } from '@hono/zod-openapi';
import type { Agent, Host, Message } from './contract/models.js';
import type { AdminSession, CleanupStatus } from './contract/operations/admin.js';
import type { AgentRejection } from './contract/operations/admin-agent.js';
import type { BulkAgentResult, SettingsImpact } from './contract/operations/admin-bulk.js';
import type { AdminAccount, AdminSessionInfo, AuditEntry, listAuditLog } from './contract/operations/admins.js';
import type { AdminGroup } from './contract/operations/groups.js';
import type { DirectoryEntry } from './contract/operations/identity.js';
import type { ChannelListEntry, Claim } from './contract/operations/messaging.js';
import type { SearchHit } from './contract/operations/search.js';

/** One search hit inside one channel; `created_at` in ms, by which the handler merges channels. */
export type ChannelSearchHit = Omit<z.infer<typeof SearchHit>, 'kind' | 'created_at'> & { created_at: number };

/**
 * One channel's answer to a search: its hits, and where it stopped examining rows (null: at its
 * end), so a merge knows how far its answer is complete.
 */
export interface ChannelSearchPage {
  hits: ChannelSearchHit[];
  resume: { created_at: number; seq: number } | null;
}

// Registry (durable-objects/registry): hosts and agents are the wire models themselves.

export type HostView = z.infer<typeof Host>;
export type AgentView = z.infer<typeof Agent>;
/** POST /admin/agents/bulk: what happened to one agent. */
export type BulkAgentResultView = z.infer<typeof BulkAgentResult>;
/** POST /admin/settings/preview: what a patch would delete. */
export type SettingsImpactView = z.infer<typeof SettingsImpact>;
export type DirectoryEntryView = z.infer<typeof DirectoryEntry>;

/** A live administrator session: the wire model plus the keyed hash of its token, to end it on logout. */
export type SessionView = z.infer<typeof AdminSession> & { sessionHash: string };

/** A refused request naming an agent, as its AgentDO keeps it (the wire model). */
export type RejectionView = z.infer<typeof AgentRejection>;
/** Administrator accounts, their sessions and the audit log are the wire models themselves. */
export type AdminAccountView = z.infer<typeof AdminAccount>;
export type AdminSessionInfoView = z.infer<typeof AdminSessionInfo>;
export type AuditEntryView = z.infer<typeof AuditEntry>;

// Retention (durable-objects/retention): the cleanup status is the wire model itself.

export type CleanupStatusView = z.infer<typeof CleanupStatus>;

// Channels (durable-objects/channel) and agents' inbox indexes (durable-objects/agent)

/**
 * A message as the channel store reads it: the wire model, except that the sender's display name
 * is null for messages stored before names were kept (ChannelDO fills those in before answering).
 */
export type MessageView = Omit<z.infer<typeof Message>, 'sender_display_name'> & { sender_display_name: string | null };

/** A claim as the channel store makes it: the wire model around a MessageView. */
export type ClaimView = Omit<z.infer<typeof Claim>, 'message'> & { message: MessageView };

/** One of an agent's channels for GET /channels (the wire model). */
export type ChannelEntry = z.infer<typeof ChannelListEntry>;

/** A channel whose pending hint is set in an agent's index, with the hint's generation (for compare-and-delete). */
export type PendingChannel = Pick<ChannelEntry, 'channel_id' | 'kind'> & { gen: number };

// Group catalog (durable-objects/group-catalog): the administrators' group is the wire model.

export type CatalogGroup = z.infer<typeof AdminGroup>;

/** GET /metrics: agents counted by key state (AgentView.key_status) and enabled flag. */
export interface AgentKeyCount {
  key_status: 'active' | 'revoked' | 'none';
  enabled: boolean;
  agents: number;
}

/** The registry's answer to a scrape: metrics off, the token refused, or its figures. */
export type ScrapeAnswer =
  | { state: 'off' }
  | { state: 'refused' }
  | { state: 'ok'; agents: AgentKeyCount[]; refusals: Record<RejectionView['reason'], number> };

/** The audit log's filters as GET /admin/audit takes them: the registry's query and the console's address. */
export type AuditFilter = Omit<z.infer<NonNullable<(typeof listAuditLog)['query']>>, 'cursor' | 'limit'>;
