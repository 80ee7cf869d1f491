/**
 * Reading the channel: history pages by seq (optionally of one thread), the search of GET /search
 * and the content search behind the administrators' list filter, both over the channel's
 * full-text index (migrations/channel/0005, 0006), and the names written into messages stored
 * before sender names were kept. Only active participants read (history, search); the
 * administrators' reads (admin-view.ts) use the same pages without that check.
 *
 * History runs on every GET of a channel's messages, so its statements are fixed SQL text, one
 * per shape (shared-sql.ts says why). Search and the name backfill are bounded cold paths and
 * stay on drizzle.
 */
import { and, asc, eq, gte, isNull, sql } from 'drizzle-orm';
import { contentCheck } from '../../core/domain/admin-channels.js';
import { matchesTerms, type SearchBudget, searchPlan, searchTerms, seqBoundBefore } from '../../core/domain/search.js';
import { hitSnippet } from '../../core/domain/search-snippet.js';
import type { ChannelSearchHit, ChannelSearchPage, MessageView } from '../../core/rpc.js';
import * as schema from './schema.js';
import { type ChannelSql, type Db, MESSAGE_COLUMNS, type MessageRow, messageRow, messageView } from './shared-sql.js';

const { messages } = schema;

export interface HistoryPage {
  messages: MessageView[];
  /** The seq after which (asc) or before which (desc) the next page starts; null at the end. */
  next_seq: number | null;
}

/** What a content search found: how many, whether that is all of them, and the newest. */
export interface ContentMatches {
  matching: number;
  complete: boolean;
  newest: { message_id: string; seq: number; body: string } | null;
}

interface SearchRow {
  seq: number;
  message_id: string;
  sender_id: string;
  created_at: number;
  body: string;
}

/** Candidate rows one statement of a search reads at most (the budget may allow fewer). */
const SEARCH_PAGE_ROWS = 100;

/**
 * History's statements by shape: order, with or without a cursor, with or without a thread (the
 * root, thread_id null with its own ID, and its replies). One fixed text per shape, so each keeps
 * its own plan: the seq range on the primary key, the thread on messages_thread and the
 * message_id index.
 */
type HistoryShape = `${'asc' | 'desc'}${'' | '-after'}${'' | '-thread'}`;
const HISTORY = {} as Record<HistoryShape, string>;
for (const order of ['asc', 'desc'] as const) {
  for (const after of [false, true]) {
    for (const thread of [false, true]) {
      const where = [
        after ? (order === 'asc' ? 'm.seq > ?' : 'm.seq < ?') : null,
        thread ? '(m.thread_id = ? or (m.message_id = ? and m.thread_id is null))' : null,
      ].filter((w) => w !== null);
      HISTORY[`${order}${after ? '-after' : ''}${thread ? '-thread' : ''}` as const] =
        `select ${MESSAGE_COLUMNS} from messages m${where.length > 0 ? ` where ${where.join(' and ')}` : ''}
          order by m.seq ${order} limit ?`;
    }
  }
}

export class ChannelHistory {
  constructor(
    private readonly db: Db,
    private readonly sql: ChannelSql,
  ) {}

  /**
   * A page of retained messages by seq, optionally of one thread only (`threadId`: the root's ID,
   * whether the root is retained or not); null when the agent is not an active participant.
   */
  history(
    agentId: string,
    afterSeq: number | null,
    limit: number,
    order: 'asc' | 'desc',
    threadId?: string,
  ): HistoryPage | null {
    if (!this.sql.isActive(agentId)) return null;
    return this.page(afterSeq, limit, order, threadId);
  }

  /** A history page, whoever asks (the callers check who may read). */
  page(afterSeq: number | null, limit: number, order: 'asc' | 'desc', threadId?: string): HistoryPage {
    const where = this.sql.label();
    const rows = this.rows(afterSeq, limit + 1, order, threadId);
    const page = rows.slice(0, limit);
    return {
      messages: page.map((m) => messageView(where, m)),
      next_seq: rows.length > limit ? (page.at(-1)?.seq ?? null) : null,
    };
  }

  private rows(afterSeq: number | null, limit: number, order: 'asc' | 'desc', threadId?: string): MessageRow[] {
    const text = HISTORY[`${order}${afterSeq === null ? '' : '-after'}${threadId === undefined ? '' : '-thread'}`];
    const params: SqlStorageValue[] = [];
    if (afterSeq !== null) params.push(afterSeq);
    if (threadId !== undefined) params.push(threadId, threadId);
    return this.sql.all(text, ...params, limit).map(messageRow);
  }

  /** Writes registry names into messages stored before names were kept (channel-do.ts `named`). */
  backfillSenderNames(names: ReadonlyMap<string, string>): void {
    this.db.transaction((tx) => {
      for (const [senderId, name] of names) {
        tx.update(messages)
          .set({ senderName: name })
          .where(and(eq(messages.senderId, senderId), isNull(messages.senderName)))
          .run();
      }
    });
  }

  // Search (GET /search): the same rule as history, then the channel's full-text index.

  /**
   * Up to `want` retained messages matching `query` (every term, see core/domain/search.ts),
   * newest first, strictly after `before` in that order (created_at desc, seq desc), examining at
   * most `budget` (rows and body characters, at least one row). `resume` is the position of the
   * last row examined when the channel stopped before its end (a full page or a spent budget):
   * everything up to it is decided, nothing after it. Every hit's snippet is cut from a window
   * around its match (hitSnippet), so that work is bounded by the same budget. Null when the
   * agent is not an active participant: exactly the rule of history(), so search never shows what
   * history would not.
   */
  search(
    agentId: string,
    query: string,
    before: { created_at: number; seq: number } | null,
    want: number,
    budget: SearchBudget,
  ): ChannelSearchPage | null {
    if (!this.sql.isActive(agentId)) return null;
    const channel = this.sql.channelRow();
    if (!channel) return { hits: [], resume: null };
    const plan = searchPlan(query);
    const terms = searchTerms(query);
    const bound = before
      ? seqBoundBefore(before, channel.lastSeq, (seq) => this.firstFrom(seq))
      : Number.MAX_SAFE_INTEGER;
    const hits: ChannelSearchHit[] = [];
    const stop = this.scanNewestFirst(plan.match, channel.indexedSeq, bound, budget, (r) => {
      if (matchesTerms(r.body, plan.terms)) {
        hits.push({
          channel_id: channel.channelId,
          message_id: r.message_id,
          sender_id: r.sender_id,
          created_at: r.created_at,
          seq: r.seq,
          snippet: hitSnippet(r.body, terms),
        });
      }
      return hits.length < want;
    });
    return { hits, resume: stop && { created_at: stop.created_at, seq: stop.seq } };
  }

  /**
   * Retained messages whose body contains `needle`, ignoring case, newest first, examining at most
   * `budget`: how many were found, whether that is all of them (the channel was examined to its
   * end), and the newest one. A needle of three characters or more is narrowed by the full-text
   * index and decided on the folded body (core/domain/search.ts: also accents, İ, decomposed
   * letters, ß as ss); a shorter one has no trigram and every body is decided the way
   * contentSearchPlan says.
   */
  contentSearch(needle: string, budget: SearchBudget): ContentMatches {
    const row = this.sql.channelRow();
    if (!row) return { matching: 0, complete: true, newest: null };
    const plan = searchPlan(needle, 'phrase');
    const check = plan.match === null ? contentCheck(needle) : (body: string) => matchesTerms(body, plan.terms);
    let matching = 0;
    let newest: SearchRow | null = null;
    const stop = this.scanNewestFirst(plan.match, row.indexedSeq, Number.MAX_SAFE_INTEGER, budget, (r) => {
      if (check(r.body)) {
        matching++;
        newest ??= r;
      }
      return true;
    });
    return { matching, complete: stop === null, newest };
  }

  /**
   * Visits the retained rows below seq `bound` that may match `match` (an FTS5 filter; null: every
   * row), newest first, each once, until `visit` answers false or `budget` is spent (rows and body
   * characters; at least one row, so every call moves on). The rows the index does not hold yet
   * (above `indexed`, at most a batch) are read directly: indexing them here would be a stretch
   * of work no budget bounds. Answers the last row visited when it stopped before the end, null
   * when everything below `bound` was visited.
   */
  private scanNewestFirst(
    match: string | null,
    indexed: number,
    from: number,
    budget: SearchBudget,
    visit: (row: SearchRow) => boolean,
  ): SearchRow | null {
    let bound = from;
    let rows = 0;
    let chars = 0;
    let last: SearchRow | null = null;
    for (;;) {
      // One row more than the budget allows, so a channel that ends exactly there is known to end.
      const pageRows = Math.max(1, Math.min(SEARCH_PAGE_ROWS, budget.rows - rows + 1));
      const direct = match === null || bound > indexed + 1;
      const page = direct
        ? this.db.all<SearchRow>(sql`select m.seq, m.message_id, m.sender_id, m.created_at, m.body
              from messages m where m.seq < ${bound} and m.seq > ${match === null ? 0 : indexed}
              order by m.seq desc limit ${pageRows}`)
        : this.db.all<SearchRow>(sql`select m.seq, m.message_id, m.sender_id, m.created_at, m.body
              from messages_fts join messages m on m.seq = messages_fts.rowid
              where messages_fts match ${match} and messages_fts.rowid < ${bound}
              order by messages_fts.rowid desc limit ${pageRows}`);
      for (const r of page) {
        if (last && (rows >= budget.rows || chars >= budget.chars)) return last;
        rows++;
        chars += r.body.length;
        bound = r.seq;
        last = r;
        if (!visit(r)) return r;
      }
      if (page.length < pageRows) {
        if (match === null || !direct) return null;
        // The unindexed rows are done: the index answers for the rest.
        bound = Math.min(bound, indexed + 1);
      }
    }
  }

  /** The retained message with the smallest seq at or above `seq` (seqBoundBefore's probe). */
  private firstFrom(seq: number): { seq: number; created_at: number } | null {
    return (
      this.db
        .select({ seq: messages.seq, created_at: messages.createdAt })
        .from(messages)
        .where(gte(messages.seq, seq))
        .orderBy(asc(messages.seq))
        .limit(1)
        .get() ?? null
    );
  }
}
