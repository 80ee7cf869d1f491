/**
 * The channel as the administrators see it (REQ-54): read-only, whoever takes part; never a claim,
 * never a read mark. History without the membership check (with the messages a page answers),
 * the summary behind the administrators' channel list and its filters, and the count of messages
 * containing a text. Cold paths: drizzle, except the history pages, which are history.ts's.
 */
import { asc, count } from 'drizzle-orm';
import {
  type AdminChannelFilter,
  type ChannelAdminSummary,
  matchesIdentity,
} from '../../core/domain/admin-channels.js';
import { SEARCH_BUDGET, type SearchBudget } from '../../core/domain/search.js';
import { searchSnippet } from '../../core/domain/search-snippet.js';
import type { ChannelHistory, HistoryPage } from './history.js';
import * as schema from './schema.js';
import type { ChannelSql, Db } from './shared-sql.js';

const { participants, messages } = schema;

export type AdminHistoryPage = HistoryPage & { replied: { message_id: string; seq: number | null }[] };

export class ChannelAdminView {
  constructor(
    private readonly db: Db,
    private readonly sql: ChannelSql,
    private readonly reading: ChannelHistory,
  ) {}

  /** History as an agent reads it, without the membership check; null when there is no channel. */
  history(afterSeq: number | null, limit: number, order: 'asc' | 'desc', threadId?: string): AdminHistoryPage | null {
    if (!this.sql.channelRow()) return null;
    const page = this.reading.page(afterSeq, limit, order, threadId);
    // The messages this page answers, retained (their seq, to link to) or deleted (null): at most one lookup per message of the page.
    const answered = [...new Set(page.messages.flatMap((m) => (m.reply_to ? [m.reply_to] : [])))];
    const replied = answered.map((id) => ({ message_id: id, seq: this.sql.messageById(id)?.seq ?? null }));
    return { ...page, replied };
  }

  /**
   * The channel as an administrator's list shows it, and whether it passes `filter`: the identity
   * filters first (cheap), then, only if they pass, the content search. Null: no channel here.
   */
  summary(filter: AdminChannelFilter, budget: SearchBudget = SEARCH_BUDGET): ChannelAdminSummary | null {
    const row = this.sql.channelRow();
    if (!row) return null;
    const people = this.db
      .select()
      .from(participants)
      .orderBy(asc(participants.since), asc(participants.agentId))
      .all()
      .map((p) => ({ agent_id: p.agentId, state: p.state, role: p.role }));
    const summary: ChannelAdminSummary = {
      channel_id: row.channelId,
      kind: row.kind,
      name: row.name,
      status: row.status,
      created_at: row.createdAt,
      participants: people,
      message_count: this.db.select({ n: count() }).from(messages).get()?.n ?? 0,
      file_count: this.db.select({ n: count() }).from(schema.files).get()?.n ?? 0,
      last_message_at: row.lastSeq > 0 ? row.lastCreatedAt : null,
      matches: false,
    };
    if (!matchesIdentity(row.kind, people, filter)) return summary;
    if (filter.q === undefined) return { ...summary, matches: true };
    const found = this.reading.contentSearch(filter.q, budget);
    const complete = found.complete;
    if (found.matching === 0) return { ...summary, matching_messages: 0, search_complete: complete, matches: false };
    const snippet = found.newest && {
      message_id: found.newest.message_id,
      seq: found.newest.seq,
      ...searchSnippet(found.newest.body, filter.q),
    };
    return {
      ...summary,
      matching_messages: found.matching,
      search_complete: complete,
      matches: true,
      ...(snippet ? { snippet } : {}),
    };
  }

  /** How many retained messages contain `needle` (contentSearch; at least that many when the budget ends it). */
  countContaining(needle: string, budget: SearchBudget = SEARCH_BUDGET): number {
    return this.reading.contentSearch(needle, budget).matching;
  }
}
