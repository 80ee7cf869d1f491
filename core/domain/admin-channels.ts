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

/** Characters lower-cased the way SQLite's lower() does: ASCII letters only. */
function asciiLower(text: string): string {
  return text.replace(/[A-Z]+/g, (s) => s.toLowerCase());
}

/**
 * How a channel decides whether a body contains `needle` (ignoring case) when the needle is too
 * short for the full-text index: a literal substring test, never a pattern. A needle of ASCII and
 * uncased characters compares with ASCII letters folded (what SQLite's lower() folds); one with
 * other cased letters (é, Я, Ω) with JavaScript's full Unicode lower-casing. Bodies are read in
 * bounded pages and decided here, so no statement scans a channel's bodies in one go.
 */
export function contentCheck(needle: string): (body: string) => boolean {
  if ([...needle].every(sqlFoldable)) {
    const folded = asciiLower(needle);
    return (body) => asciiLower(body).includes(folded);
  }
  const folded = needle.toLowerCase();
  return (body) => body.toLowerCase().includes(folded);
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
  /**
   * With a content search that was run: false when the search budget ended it before the
   * channel's oldest message (matching_messages then counts the newer messages examined).
   */
  search_complete?: boolean;
  /** With a content search that matched: the newest matching message, cut around the match. */
  snippet?: { message_id: string; seq: number; before: string; match: string; after: string };
  /** Whether the channel satisfies the whole filter (identity and, with q, at least one match). */
  matches: boolean;
}
