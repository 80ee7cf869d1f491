/**
 * What the channel's job modules share (sending.ts, inbox.ts, history.ts, admin-view.ts,
 * retention.ts, outbox.ts): the database handle and its types, the fixed-text runner over the
 * object's `ctx.storage.sql`, the reads every job makes (the channel's one row, a participant's
 * state, a message by ID, a tombstone) and the message row as the statements read it.
 *
 * Why fixed SQL text on the hot paths (every send, poll, claim and ACK), not drizzle's query
 * builder: profiles of the mixed workload (docs/benchmarks.md) showed drizzle building the SQL
 * string of each statement anew costing more of workerd's one thread than SQLite running it;
 * workerd caches a prepared statement per SQL text, so fixed text is both built and prepared
 * once. drizzle stays for the schema, the migrations and every cold path; the column names here
 * are those of schema.ts, and the store-level tests cover these statements like any other.
 *
 * Every statement runs inside the caller's transaction when there is one: drizzle's durable-sqlite
 * transaction is `transactionSync` on the same storage, and `sql.exec` joins it.
 */
import type { DrizzleSqliteDODatabase } from 'drizzle-orm/durable-sqlite';
import type { AttachmentRecord } from '../../core/domain/content.js';
import type { MessageView } from '../../core/rpc.js';
import { iso } from '../shared/database.js';
import type * as schema from './schema.js';

export type Db = DrizzleSqliteDODatabase<typeof schema>;
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

export type MessageRow = typeof schema.messages.$inferSelect;
export type ChannelRow = typeof schema.channel.$inferSelect;
export type Row = Record<string, SqlStorageValue>;

/** The columns messageRow reads, as `m` (every statement that answers messages names them all). */
export const MESSAGE_COLUMNS =
  'm.seq, m.message_id, m.sender_id, m.body, m.created_at, m.attachment, m.reply_to, m.thread_id, m.sender_name';

// Column values as schema.ts types them (the statements name every column they read).
type Value = SqlStorageValue | undefined;
export const str = (v: Value): string => v as string;
export const num = (v: Value): number => v as number;
export const strOrNull = (v: Value): string | null => (v === null || v === undefined ? null : (v as string));
export const numOrNull = (v: Value): number | null => (v === null || v === undefined ? null : (v as number));

export function messageRow(r: Row): MessageRow {
  return {
    seq: num(r.seq),
    messageId: str(r.message_id),
    senderId: str(r.sender_id),
    body: str(r.body),
    createdAt: num(r.created_at),
    attachment:
      r.attachment === null || r.attachment === undefined ? null : (JSON.parse(str(r.attachment)) as AttachmentRecord),
    replyTo: strOrNull(r.reply_to),
    threadId: strOrNull(r.thread_id),
    senderName: strOrNull(r.sender_name),
  };
}

/** What every message view says about its channel: ID, kind and (groups) name, from the one row. */
export interface ChannelLabel {
  channelId: string;
  kind: 'private' | 'group';
  name: string | null;
}

export function messageView(where: ChannelLabel, m: MessageRow): MessageView {
  return {
    message_id: m.messageId,
    channel_id: where.channelId,
    sender_id: m.senderId,
    sender_display_name: m.senderName,
    channel_kind: where.kind,
    group_name: where.kind === 'group' ? where.name : null,
    body: m.body,
    created_at: iso(m.createdAt),
    seq: m.seq,
    attachment: m.attachment ?? null,
    reply_to: m.replyTo,
    thread_id: m.threadId ?? m.messageId,
  };
}

/** The storage drizzle was opened on: its durable-sqlite driver keeps it as `$client` (untyped here). */
export function storageOf(db: Db): SqlStorage {
  return (db as unknown as { $client: DurableObjectStorage }).$client.sql;
}

/** The fixed-text runner and the reads every job makes. */
export class ChannelSql {
  constructor(readonly sql: SqlStorage) {}

  first(query: string, ...params: SqlStorageValue[]): Row | undefined {
    return this.sql.exec<Row>(query, ...params).toArray()[0];
  }

  all(query: string, ...params: SqlStorageValue[]): Row[] {
    return this.sql.exec<Row>(query, ...params).toArray();
  }

  run(query: string, ...params: SqlStorageValue[]): void {
    this.sql.exec(query, ...params);
  }

  /** Whether the agent is an active participant (inside the caller's transaction, if any). */
  isActive(agentId: string): boolean {
    return this.first('select state from participants where agent_id = ?', agentId)?.state === 'active';
  }

  /** The channel's one row (inside the caller's transaction, if any). */
  channelRow(): ChannelRow | undefined {
    const r = this.first(
      `select channel_id, kind, name, created_at, last_seq, last_created_at, status, membership_version,
        catalog_version, indexed_seq from channel where id = 1`,
    );
    return (
      r && {
        id: 1,
        channelId: str(r.channel_id),
        kind: str(r.kind) as ChannelRow['kind'],
        name: strOrNull(r.name),
        createdAt: num(r.created_at),
        lastSeq: num(r.last_seq),
        lastCreatedAt: num(r.last_created_at),
        status: str(r.status) as ChannelRow['status'],
        membershipVersion: num(r.membership_version),
        catalogVersion: num(r.catalog_version),
        indexedSeq: num(r.indexed_seq),
      }
    );
  }

  /** What every message view says about the channel (ChannelLabel), from its one row. */
  label(): ChannelLabel {
    const row = this.channelRow();
    return { channelId: row?.channelId ?? '', kind: row?.kind ?? 'private', name: row?.name ?? null };
  }

  participants(): { id: string; state: string }[] {
    return this.all('select agent_id, state from participants').map((r) => ({
      id: str(r.agent_id),
      state: str(r.state),
    }));
  }

  messageById(messageId: string): { seq: number; threadId: string | null } | undefined {
    const r = this.first('select seq, thread_id from messages where message_id = ?', messageId);
    return r && { seq: num(r.seq), threadId: strOrNull(r.thread_id) };
  }

  /** A remembered purged message (its tombstone): its thread, null when it was a root. */
  purgedThread(messageId: string): { threadId: string | null } | undefined {
    const r = this.first('select thread_id from purged where message_id = ?', messageId);
    return r && { threadId: strOrNull(r.thread_id) };
  }

  isPurged(messageId: string): boolean {
    return this.first('select 1 as x from purged where message_id = ?', messageId) !== undefined;
  }
}
