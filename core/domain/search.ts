/**
 * Full-text search over retained message bodies (agent search, GET /search, and the
 * administrators' content search): how user text becomes a query for a channel's FTS5 index, and
 * how much one request may examine.
 *
 * The index (migrations/channel/0005_search_index.sql) uses FTS5's trigram tokenizer with
 * case_sensitive 0 and remove_diacritics 1: every run of three characters is a token. The index
 * is only a filter here: a query asks it for the rows holding every trigram of every term (each
 * trigram a token of its own, never a phrase), and each such row is then checked in JavaScript on
 * the folded body (`fold`: case, accents, İ and ß folded the way the index folds them), so a term
 * matches anywhere inside a word, CJK text included. Not phrases, because FTS5 checks a phrase
 * against every position of every token in every candidate row: with bodies made of one repeated
 * trigram a 120-character term costs seconds per few hundred rows, and no statement of a request
 * may hold the one thread that long. Terms shorter than three characters have no trigram and are
 * only checked in JavaScript.
 *
 * User text is never FTS syntax: every trigram is a quoted FTS5 string with its quotes doubled, so
 * `"`, `*`, `-`, `NEAR`, `AND`, `OR`, `NOT`, `^`, `:` and parentheses are plain characters, and
 * the expression is bound as a parameter.
 *
 * Every request is bounded (SEARCH_BUDGET): a channel stops after the rows or body characters of
 * its share and says where it stopped, and the page ends there with a cursor, however few hits it
 * holds (docs/design/messaging.md).
 */

/** Longest accepted query, in characters (UTF-16 code units, as zod counts). */
export const MAX_SEARCH_QUERY_LENGTH = 256;

/** Below this many code points a term has no trigram and is checked with `fold` instead. */
const TRIGRAM = 3;

export interface SearchPlan {
  /**
   * An FTS5 MATCH expression every hit satisfies (the trigrams of the terms, ANDed, at most
   * MAX_FTS_TOKENS), or null when no term has a trigram: a filter, not the answer.
   */
  match: string | null;
  /** Every term folded (see `fold`): a hit's folded body contains each of them. */
  terms: string[];
}

/** Trigram tokens one query hands the index at most; the JavaScript check decides the rest. */
const MAX_FTS_TOKENS = 24;

/** An FTS5 string literal: the text inside double quotes, quotes doubled. Nothing in it is syntax. */
function ftsString(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}

/**
 * The spellings a term should also match that FTS5's folding does not equate: ß and "ss" (German
 * case folding turns ß into ss; FTS5 folds one character to one character only).
 */
function variants(term: string): string[] {
  // The index folds case itself, so the term is kept as typed (lower-casing İ would add a mark).
  return [...new Set([term, term.replace(/ß/g, 'ss'), term.replace(/ss/gi, 'ß')])];
}

/**
 * The distinct trigrams of `term` as the tokenizer forms them: three code points, none a mark
 * (the tokenizer drops marks before it forms trigrams, so a window holding one is not a token).
 */
function trigrams(term: string): string[] {
  const chars = [...term];
  const out = new Set<string>();
  for (let i = 0; i + TRIGRAM <= chars.length; i++) {
    const window = chars.slice(i, i + TRIGRAM);
    if (window.some((ch) => /\p{M}/u.test(ch))) continue;
    out.add(window.join(''));
  }
  return [...out];
}

/** The FTS5 filter for one term: the trigrams of each spelling, ANDed; spellings ORed. Null: none. */
function ftsTerm(term: string, room: number): { expr: string; tokens: number } | null {
  const forms = variants(term).map((v) => trigrams(v).slice(0, room));
  // A spelling without a trigram would match rows the filter left out: the term filters nothing.
  if (forms.some((f) => f.length === 0)) return null;
  const each = forms.map((f) => f.map(ftsString).join(' AND '));
  const tokens = forms.reduce((n, f) => n + f.length, 0);
  return { expr: each.length === 1 ? (each[0] as string) : `(${each.map((e) => `(${e})`).join(' OR ')})`, tokens };
}

/**
 * Text as the index compares it: decomposed, marks removed (accents, İ's dot), lower-cased with
 * JavaScript's full Unicode mapping, ß as ss. For terms too short for trigrams.
 */
export function fold(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().replaceAll('ß', 'ss');
}

/** The normalized terms of a query: NFC, split on white space, repeats dropped. */
export function searchTerms(query: string): string[] {
  return [...new Set(withoutNul(query).normalize('NFC').split(/\s+/u).filter(Boolean))];
}

/**
 * FTS5 reads its query as a C string: a NUL would end it mid-quote (a syntax error). No body can
 * be searched for one anyway, so it separates words like a space.
 */
function withoutNul(text: string): string {
  return text.replaceAll('\0', ' ');
}

/**
 * The plan for a query whose terms must all occur (each anywhere in the body). `phrase` treats
 * the whole text as one substring instead (the administrators' content search).
 */
export function searchPlan(query: string, mode: 'terms' | 'phrase' = 'terms'): SearchPlan {
  const text = withoutNul(query).normalize('NFC');
  const terms = mode === 'phrase' ? (text.trim() === '' ? [] : [text]) : searchTerms(text);
  const filters: string[] = [];
  let room = MAX_FTS_TOKENS;
  for (const term of terms) {
    if (room <= 0) break;
    const filter = ftsTerm(term, room);
    if (!filter) continue;
    filters.push(filter.expr);
    room -= filter.tokens;
  }
  return { match: filters.length === 0 ? null : filters.join(' AND '), terms: terms.map(fold) };
}

/** Whether a body holds every folded term of a plan (the decision; the index only narrows). */
export function matchesTerms(body: string, terms: readonly string[]): boolean {
  if (terms.length === 0) return false;
  const folded = fold(body);
  return terms.every((t) => folded.includes(t));
}

/** What one search request may examine, across all the channels it asks. */
export const SEARCH_BUDGET = {
  /** Candidate rows read and checked. */
  rows: 1_000,
  /** Body characters (UTF-16 code units) read and folded. */
  chars: 256_000,
} as const;

export interface SearchBudget {
  rows: number;
  chars: number;
}

/** One channel's share when `channels` are asked: at least one row, so every call moves on. */
export function budgetShare(channels: number): SearchBudget {
  const n = Math.max(1, channels);
  return {
    rows: Math.max(1, Math.floor(SEARCH_BUDGET.rows / n)),
    chars: Math.max(1, Math.floor(SEARCH_BUDGET.chars / n)),
  };
}

/**
 * The exclusive seq bound of the rows strictly after `before` in (created_at desc, seq desc)
 * order, in a channel whose created_at never decreases with seq: rows with seq below it qualify,
 * the others do not. `firstFrom(seq)` is the retained row with the smallest seq at or above
 * `seq` (null: none); a binary search over seq, so a few primary-key probes whatever the cursor.
 */
export function seqBoundBefore(
  before: { created_at: number; seq: number },
  lastSeq: number,
  firstFrom: (seq: number) => { seq: number; created_at: number } | null,
): number {
  const excluded = (row: { seq: number; created_at: number } | null) =>
    row === null ||
    row.created_at > before.created_at ||
    (row.created_at === before.created_at && row.seq >= before.seq);
  let lo = 1;
  let hi = lastSeq + 1;
  if (excluded(firstFrom(lo))) return lo;
  // Invariant: the first row at or after lo qualifies; the first row at or after hi is excluded.
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (excluded(firstFrom(mid))) hi = mid;
    else lo = mid;
  }
  return hi;
}
