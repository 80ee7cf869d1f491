/**
 * The registry's two hot reads, `getAgents` (every send, group invitation and channel lookup) and
 * the agents' directory (20% of the bench mix), answered from an in-memory copy of the agents and
 * their hosts instead of a drizzle-built query each time. Why: profiles (docs/benchmarks.md) showed
 * drizzle building the directory's join and SQLite running it as half of a directory request's
 * CPU in this object, and `getAgents`' `inArray` on every send.
 *
 * Exact, not a cache with a lifetime: the object is single-threaded, so the copy is dropped by every
 * write to `agents` or `hosts` (hosts-agents.ts, agent-deletion.ts through registry-do.ts) before
 * any other request can run, and reloaded on the next read. Last access, written about once a
 * minute per active agent, patches the one entry it changed instead (`accessed`), so a busy
 * registry does not reload on every report. A disabled or deleted recipient is refused at once.
 *
 * The directory's semantics are SQLite's, reproduced: order by (name, agent_id) in BINARY collation
 * (UTF-8 byte order, i.e. code point order), the cursor's position compared the same way, and the
 * name filter as `like '%…%' escape '\'` over name and display name, which folds ASCII letters only.
 */
import type { AgentView, DirectoryEntryView } from '../../core/rpc.js';

type Row = Record<string, SqlStorageValue>;

/** One agent as the two reads need it; `folded*` are the ASCII-lowercased texts LIKE compares. */
interface Entry {
  view: AgentView;
  host: DirectoryEntryView['host'] | null;
  foldedName: string;
  foldedDisplayName: string;
}

interface State {
  byId: Map<string, Entry>;
  /** Enabled agents with a host, sorted by (name, agent_id): the directory's order. */
  listed: Entry[];
}

// Fixed text: workerd prepares a statement once per SQL text. Column names are those of schema.ts.
const LOAD_SQL = `select a.agent_id, a.name, a.display_name, a.description, a.host_id, a.enabled,
  a.key_hash is not null as has_key, a.key_prefix, a.key_issued_at, a.key_revoked_at, a.created_at,
  a.last_access_at, a.last_access_address, h.name as host_name, h.os as host_os
  from agents a left join hosts h on h.host_id = a.host_id`;

const str = (v: SqlStorageValue | undefined): string => v as string;
const strOrNull = (v: SqlStorageValue | undefined): string | null => (v === null || v === undefined ? null : str(v));

/** SQLite's default LIKE folds ASCII letters only. */
const foldAscii = (text: string): string => text.replace(/[A-Z]+/g, (m) => m.toLowerCase());

/**
 * SQLite's BINARY collation compares UTF-8 bytes, which is code point order; JavaScript's `<`
 * compares UTF-16 units, which differs only where a surrogate meets U+E000–U+FFFF.
 */
export function compareBinary(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return rank(x) - rank(y);
  }
  return a.length - b.length;
}

const rank = (unit: number): number => (unit >= 0xd800 && unit <= 0xdfff ? unit + 0x10000 : unit);

function entryOf(r: Row): Entry {
  const hasKey = r.has_key === 1;
  const keyRevokedAt = strOrNull(r.key_revoked_at);
  const view: AgentView = {
    agent_id: str(r.agent_id),
    name: str(r.name),
    display_name: str(r.display_name),
    description: str(r.description),
    host_id: str(r.host_id),
    enabled: r.enabled === 1,
    last_access_at: strOrNull(r.last_access_at),
    created_at: str(r.created_at),
    key_status: hasKey ? 'active' : keyRevokedAt ? 'revoked' : 'none',
    key_prefix: hasKey ? strOrNull(r.key_prefix) : null,
    key_issued_at: hasKey ? strOrNull(r.key_issued_at) : null,
    key_revoked_at: hasKey ? null : keyRevokedAt,
    last_access_address: strOrNull(r.last_access_address),
  };
  const host = r.host_name === null ? null : { host_id: view.host_id, name: str(r.host_name), os: str(r.host_os) };
  return { view, host, foldedName: foldAscii(view.name), foldedDisplayName: foldAscii(view.display_name) };
}

const byNameThenId = (a: Entry, b: Entry): number =>
  compareBinary(a.view.name, b.view.name) || compareBinary(a.view.agent_id, b.view.agent_id);

export class AgentSnapshot {
  private state: State | null = null;

  constructor(private readonly sql: SqlStorage) {}

  /** Called after every write to `agents` or `hosts`; the next read reloads. */
  invalidate(): void {
    this.state = null;
  }

  /** Runs a write to `agents` or `hosts` and drops the copy, whether or not the write threw. */
  changing<T>(write: () => T): T {
    try {
      return write();
    } finally {
      this.state = null;
    }
  }

  private load(): State {
    if (this.state) return this.state;
    const byId = new Map<string, Entry>();
    const listed: Entry[] = [];
    for (const row of this.sql.exec<Row>(LOAD_SQL)) {
      const entry = entryOf(row);
      byId.set(entry.view.agent_id, entry);
      if (entry.view.enabled && entry.host) listed.push(entry);
    }
    listed.sort(byNameThenId);
    this.state = { byId, listed };
    return this.state;
  }

  /** The agents among `agentIds` that exist (each once, disabled ones included). */
  agents(agentIds: string[]): AgentView[] {
    const { byId } = this.load();
    const seen = new Set<string>();
    const views: AgentView[] = [];
    for (const id of agentIds) {
      if (seen.has(id)) continue;
      seen.add(id);
      const entry = byId.get(id);
      if (entry) views.push({ ...entry.view });
    }
    return views;
  }

  /**
   * Up to `take` directory entries after the position `after` ([name, agent_id], exclusive)
   * matching the filters; the caller asks for one more than a page to know whether one follows.
   */
  directory(
    filter: { host_id?: string; name?: string },
    after: [string, string] | null,
    take: number,
  ): { entry: DirectoryEntryView; position: [string, string] }[] {
    const { listed } = this.load();
    const needle = filter.name ? foldAscii(filter.name) : null;
    const out: { entry: DirectoryEntryView; position: [string, string] }[] = [];
    for (let i = after ? firstAfter(listed, after) : 0; i < listed.length && out.length < take; i++) {
      const { view, host, foldedName, foldedDisplayName } = listed[i]!;
      if (filter.host_id && view.host_id !== filter.host_id) continue;
      if (needle !== null && !foldedName.includes(needle) && !foldedDisplayName.includes(needle)) continue;
      out.push({
        entry: {
          agent_id: view.agent_id,
          name: view.name,
          display_name: view.display_name,
          description: view.description,
          last_access_at: view.last_access_at,
          host: { ...host! },
        },
        position: [view.name, view.agent_id],
      });
    }
    return out;
  }

  /**
   * Records a last access in the table and, when the row moved forward, in the copy: only ever
   * forward, like before (an older report changes nothing). `address` is optional for an agent
   * object still running code from before it was reported.
   */
  accessed(agentId: string, at: string, address: string | undefined): void {
    const cursor =
      address === undefined
        ? this.sql.exec(
            `update agents set last_access_at = ?1
              where agent_id = ?2 and (last_access_at is null or last_access_at < ?1)`,
            at,
            agentId,
          )
        : this.sql.exec(
            `update agents set last_access_at = ?1, last_access_address = ?3
              where agent_id = ?2 and (last_access_at is null or last_access_at < ?1)`,
            at,
            agentId,
            address,
          );
    if (cursor.rowsWritten === 0) return;
    const view = this.state?.byId.get(agentId)?.view;
    if (!view) return;
    view.last_access_at = at;
    if (address !== undefined) view.last_access_address = address;
  }
}

/** The index of the first entry strictly after the position, by binary search. */
function firstAfter(listed: Entry[], [name, id]: [string, string]): number {
  let lo = 0;
  let hi = listed.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const v = listed[mid]!.view;
    const c = compareBinary(v.name, name) || compareBinary(v.agent_id, id);
    if (c <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
