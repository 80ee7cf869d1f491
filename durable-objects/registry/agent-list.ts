/**
 * The administrators' agent list: search, sort and keyset paging over hundreds or thousands of
 * agents. Every sort ends with (name, agent_id), so positions are unique and a page
 * never repeats or skips a row; one direction applies to the whole key, so the position after
 * which the next page starts is a single SQLite row-value comparison.
 */

import type { z } from '@hono/zod-openapi';
import { and, asc, count, desc, eq, gte, isNotNull, isNull, lt, or, type SQL, sql } from 'drizzle-orm';
import { ApiError } from '../../core/contract/errors.js';
import type { AgentListQuery as AgentListQueryModel } from '../../core/contract/operations/admin.js';
import { decodeCursor, encodeCursor } from '../../core/lib/cursor.js';
import type { RegistryDb } from './database.js';
import { lastAccessCutoffs } from './fleet-summary.js';
import * as schema from './schema.js';

export type AgentListQuery = Omit<z.infer<typeof AgentListQueryModel>, 'cursor' | 'limit'>;
type AgentSort = NonNullable<AgentListQuery['sort']>;

type Row = { agent: typeof schema.agents.$inferSelect; hostName: string };

const { agents, hosts } = schema;

/** The sort key's leading column, before the (name, agent_id) tie-break. */
const LEAD: Record<Exclude<AgentSort, 'name'>, { column: SQL; value: (row: Row) => string | number }> = {
  host: { column: sql`${hosts.name}`, value: (row) => row.hostName },
  // Never-used agents have no last access: '' sorts them before every timestamp.
  last_access: { column: sql`coalesce(${agents.lastAccessAt}, '')`, value: (row) => row.agent.lastAccessAt ?? '' },
  // enabled is 0/1 in SQLite: disabled agents come first in ascending order.
  status: { column: sql`${agents.enabled}`, value: (row) => (row.agent.enabled ? 1 : 0) },
};

function keyOf(sort: AgentSort): SQL[] {
  const tail = [sql`${agents.name}`, sql`${agents.agentId}`];
  return sort === 'name' ? tail : [LEAD[sort].column, ...tail];
}

function positionOf(sort: AgentSort, row: Row): (string | number)[] {
  const tail = [row.agent.name, row.agent.agentId];
  return sort === 'name' ? tail : [LEAD[sort].value(row), ...tail];
}

/**
 * The default list (name, ascending) keeps the cursor it always had, [name, id]; every other sort
 * tags its cursor so that a cursor from one sort is refused by another instead of paging wrongly.
 */
function encode(sort: AgentSort, order: 'asc' | 'desc', position: (string | number)[]): string {
  return encodeCursor(sort === 'name' && order === 'asc' ? position : [`${sort}:${order}`, ...position]);
}

function decode(sort: AgentSort, order: 'asc' | 'desc', cursor: string | undefined): (string | number)[] | null {
  const raw = decodeCursor(cursor);
  if (raw === null) return null;
  const tagged = !(sort === 'name' && order === 'asc');
  const position = tagged && raw[0] === `${sort}:${order}` ? raw.slice(1) : tagged ? null : raw;
  const expected = sort === 'name' ? 2 : 3;
  if (position === null || position.length !== expected || typeof position.at(-1) !== 'string') {
    throw new ApiError(
      'validation_failed',
      'The cursor belongs to another search or sort; start from the first page.',
      {
        field: 'cursor',
      },
    );
  }
  return position;
}

/**
 * Every word of the user's text, in any order, each a substring of the name, display name,
 * description or host name, or is the whole agent ID ("lab codex" finds codex on gpu-lab; part of
 * an ID would match every ID's `agt_`), ASCII letters folded (what LIKE folds), never a pattern: instr() has no pattern-length limit (LIKE refuses a pattern over
 * 50 bytes here, and escaping doubles `%` and `_`), and `%`, `_` and `\\` are ordinary characters.
 * The text's length cap (FIELD_LIMITS.agent_search) bounds the words, so the work per row too.
 */
function matching(q: string | undefined): SQL | undefined {
  const words = q?.trim().split(/\s+/).filter(Boolean) ?? [];
  if (words.length === 0) return undefined;
  const columns = [agents.name, agents.displayName, agents.description, hosts.name];
  return and(
    ...words.map((word) =>
      or(eq(agents.agentId, word), ...columns.map((column) => sql`instr(lower(${column}), lower(${word})) > 0`)),
    ),
  );
}

/** The fleet view's last-access buckets (fleet-summary.ts), as a filter. */
function lastAccessIs(bucket: AgentListQuery['last_access'], nowMs: number): SQL | undefined {
  if (!bucket) return undefined;
  const { hourAgo, dayAgo } = lastAccessCutoffs(nowMs);
  switch (bucket) {
    case 'never':
      return isNull(agents.lastAccessAt);
    case 'over_a_day':
      return lt(agents.lastAccessAt, dayAgo);
    case 'over_an_hour':
      return and(gte(agents.lastAccessAt, dayAgo), lt(agents.lastAccessAt, hourAgo));
    case 'active':
      return gte(agents.lastAccessAt, hourAgo);
  }
}

/** The fleet view's key states: a working key, revoked by an administrator, or none ever issued. */
function keyStateIs(state: AgentListQuery['key_state']): SQL | undefined {
  if (!state) return undefined;
  if (state === 'active') return isNotNull(agents.keyHash);
  if (state === 'revoked') return and(isNull(agents.keyHash), isNotNull(agents.keyRevokedAt));
  return and(isNull(agents.keyHash), isNull(agents.keyRevokedAt));
}

export function listAgentsPage(
  db: RegistryDb,
  query: AgentListQuery,
  cursor: string | undefined,
  limit: number,
): { rows: (typeof schema.agents.$inferSelect)[]; next_cursor: string | null; total: number } {
  const sort = query.sort ?? 'name';
  const order = query.order ?? 'asc';
  const key = keyOf(sort);
  const filter = and(
    query.host_id ? eq(agents.hostId, query.host_id) : undefined,
    matching(query.q),
    lastAccessIs(query.last_access, Date.now()),
    keyStateIs(query.key_state),
  );
  const after = decode(sort, order, cursor);
  const past = after
    ? sql`(${sql.join(key, sql`, `)}) ${order === 'asc' ? sql`>` : sql`<`} (${sql.join(
        after.map((v) => sql`${v}`),
        sql`, `,
      )})`
    : undefined;
  const rows: Row[] = db
    .select({ agent: agents, hostName: hosts.name })
    .from(agents)
    .innerJoin(hosts, eq(hosts.hostId, agents.hostId))
    .where(and(filter, past))
    .orderBy(...key.map((k) => (order === 'asc' ? asc(k) : desc(k))))
    .limit(limit + 1)
    .all();
  const total =
    db.select({ n: count() }).from(agents).innerJoin(hosts, eq(hosts.hostId, agents.hostId)).where(filter).get()?.n ??
    0;
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    rows: page.map((row) => row.agent),
    next_cursor: rows.length > limit && last ? encode(sort, order, positionOf(sort, last)) : null,
    total,
  };
}
