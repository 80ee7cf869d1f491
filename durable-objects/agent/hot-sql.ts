/**
 * The inbox index's hot-path statements (every poll reads it, every channel note writes it) as
 * fixed SQL text over the object's `ctx.storage.sql`, not drizzle's query builder: building the
 * SQL string anew for each statement cost more of workerd's one thread than running it
 * (docs/benchmarks.md), while workerd prepares a fixed text once. drizzle keeps the schema, the
 * migrations and the cold paths (inbox-index.ts); column names are those of schema.ts.
 */
import type { ChannelKind } from '../../core/domain/ids.js';

type Row = Record<string, SqlStorageValue>;

export class InboxHotSql {
  constructor(private readonly sql: SqlStorage) {}

  /** Inserts or merges a channel-list entry; a pending note sets the hint and bumps `gen`. */
  upsertChannel(
    note: {
      channel_id: string;
      kind: ChannelKind;
      peer_agent_id: string | null;
      group_id: string | null;
      name: string | null;
      last_message_at: number | null;
      pending: boolean;
    },
    baseGen: number,
  ): void {
    this.sql.exec(
      `insert into channels (channel_id, kind, peer_agent_id, group_id, name, last_message_at, pending, gen)
        values (?, ?, ?, ?, ?, ?, ?, ?)
        on conflict (channel_id) do update set
          name = coalesce(excluded.name, channels.name),
          last_message_at = max(coalesce(channels.last_message_at, 0), coalesce(excluded.last_message_at, 0)),
          pending = channels.pending or excluded.pending,
          gen = channels.gen + excluded.pending`,
      note.channel_id,
      note.kind,
      note.peer_agent_id,
      note.group_id,
      note.name,
      note.last_message_at,
      note.pending ? 1 : 0,
      baseGen + (note.pending ? 1 : 0),
    );
  }

  pendingChannels(kind?: ChannelKind): { channel_id: string; kind: ChannelKind; gen: number }[] {
    const rows = kind
      ? this.sql.exec<Row>('select channel_id, kind, gen from channels where pending = 1 and kind = ?', kind)
      : this.sql.exec<Row>('select channel_id, kind, gen from channels where pending = 1');
    return rows
      .toArray()
      .map((r) => ({ channel_id: r.channel_id as string, kind: r.kind as ChannelKind, gen: r.gen as number }));
  }

  /** Compare-and-delete of one hint: cleared only if `gen` is still the one read. */
  clearPending(channelId: string, gen: number): void {
    this.sql.exec('update channels set pending = 0 where channel_id = ? and gen = ?', channelId, gen);
  }

  /** Those of `ids` (a JSON array, so the text stays fixed) that are a channel or a group of the index. */
  known(ids: readonly string[]): string[] {
    const list = JSON.stringify(ids);
    return this.sql
      .exec<Row>(
        `select channel_id as id from channels where channel_id in (select value from json_each(?))
          union select group_id as id from group_memberships where group_id in (select value from json_each(?))`,
        list,
        list,
      )
      .toArray()
      .map((r) => r.id as string);
  }
}
