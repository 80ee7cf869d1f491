/**
 * The administrators' channel view (REQ-54, REQ-58, REQ-59): which channels a filter selects and
 * how the content search becomes SQL. Identity filters (participants, owner) look at who takes
 * part; the content search looks only at retained message bodies, never at names.
 */

export interface AdminChannelFilter {
  /** Agent IDs that must all take part (in any state: active, pending or left). */
  participants: readonly string[];
  /** Groups only: the owner. A private channel never matches an owner filter. */
  owner?: string;
  /** Text contained in a retained message body, case-insensitive. */
  q?: string;
}

export interface ParticipantRole {
  agent_id: string;
  role: 'member' | 'owner';
}

/** The comma-separated `participant` query as a list, blanks dropped and repeats collapsed. */
export function parseParticipants(text: string | undefined): string[] {
  if (!text) return [];
  return [...new Set(text.split(',').map((p) => p.trim()))].filter(Boolean);
}

/** Whether a channel's participants satisfy the identity filters (the content search is apart). */
export function matchesIdentity(
  kind: 'private' | 'group',
  participants: readonly ParticipantRole[],
  filter: Pick<AdminChannelFilter, 'participants' | 'owner'>,
): boolean {
  if (filter.owner !== undefined) {
    if (kind !== 'group') return false;
    if (!participants.some((p) => p.agent_id === filter.owner && p.role === 'owner')) return false;
  }
  const present = new Set(participants.map((p) => p.agent_id));
  return filter.participants.every((id) => present.has(id));
}

/** Characters SQLite's lower() folds correctly: ASCII, and anything without case (digits, CJK, …). */
function sqlFoldable(ch: string): boolean {
  return ch.charCodeAt(0) < 0x80 || (ch.toLowerCase() === ch && ch.toUpperCase() === ch);
}

/**
 * How a channel counts the retained messages containing `needle`, ignoring case. In SQL wherever
 * SQL can: `instr(lower(body), lower(needle)) > 0` is a literal substring test (no pattern syntax,
 * so nothing to escape and no length cap: the Durable Object's SQLite refuses LIKE and GLOB
 * patterns over 50 bytes). SQLite has no ICU, so its lower() folds only ASCII letters; when the
 * needle has other cased letters (é, Я, Ω), SQL narrows the rows with the longest stretch of the
 * needle it can fold (if any) and `check` decides each remaining body with JavaScript's full
 * Unicode lower-casing.
 */
export interface ContentSearchPlan {
  /** For `instr(lower(body), lower(?)) > 0`; null: SQL cannot narrow, every body is checked. */
  sqlNeedle: string | null;
  /** Null when the SQL test is exact; otherwise the test each SQL candidate must also pass. */
  check: ((body: string) => boolean) | null;
}

export function contentSearchPlan(needle: string): ContentSearchPlan {
  const chars = [...needle];
  if (chars.every(sqlFoldable)) return { sqlNeedle: needle, check: null };
  let best = '';
  let run = '';
  for (const ch of chars) {
    if (sqlFoldable(ch)) run += ch;
    else run = '';
    if ([...run].length > [...best].length) best = run;
  }
  const folded = needle.toLowerCase();
  return { sqlNeedle: best.trim() === '' ? null : best, check: (body) => body.toLowerCase().includes(folded) };
}

/** What a channel tells an administrator about itself (ChannelDO.adminSummary); times in ms. */
export interface ChannelAdminSummary {
  channel_id: string;
  kind: 'private' | 'group';
  /** Groups: the group name. */
  name: string | null;
  status: 'active' | 'dissolved';
  created_at: number;
  participants: { agent_id: string; state: 'active' | 'pending' | 'left'; role: 'member' | 'owner' }[];
  message_count: number;
  file_count: number;
  last_message_at: number | null;
  /** Only with a content search that was run (the identity filters matched). */
  matching_messages?: number;
  /** With a content search that matched: the newest matching message, cut around the match. */
  snippet?: { message_id: string; seq: number; before: string; match: string; after: string };
  /** Whether the channel satisfies the whole filter (identity and, with q, at least one match). */
  matches: boolean;
}
