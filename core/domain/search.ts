/**
 * Full-text search over retained message bodies (agent search, GET /search, and the
 * administrators' content search): how user text becomes a query for a channel's FTS5 index.
 *
 * The index (migrations/channel/0005_search_index.sql) uses FTS5's trigram tokenizer with
 * case_sensitive 0 and remove_diacritics 1: every run of three characters is a token, so a term
 * matches anywhere inside a word (substrings, and CJK text, which has no spaces between words),
 * ignoring case and accents, precomposed or not. Trigrams cannot find a term shorter than three
 * characters, so such terms are checked in JavaScript on the folded body (`fold`: the same
 * case, accent, İ and ß folding), over the rows the index and the cursor leave: a scan of one
 * channel at worst, bounded by max_messages_per_channel. SQLite's LIKE would fold ASCII only.
 *
 * User text is never FTS syntax: every term is a quoted FTS5 string with its quotes doubled, so
 * `"`, `*`, `-`, `NEAR`, `AND`, `OR`, `NOT`, `^`, `:` and parentheses are plain characters, and
 * the expression is bound as a parameter. Short terms never reach SQL at all.
 */

/** Longest accepted query, in characters (UTF-16 code units, as zod counts). */
export const MAX_SEARCH_QUERY_LENGTH = 256;

/** Below this many code points a term has no trigram and is checked with `fold` instead. */
const TRIGRAM = 3;

export interface SearchPlan {
  /** An FTS5 MATCH expression (terms ANDed), or null when every term is too short for trigrams. */
  match: string | null;
  /** Folded short terms (see `fold`) that every hit's folded body must also contain. */
  short: string[];
}

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

function ftsTerm(term: string): string {
  const forms = variants(term);
  return forms.length === 1 ? ftsString(forms[0] as string) : `(${forms.map(ftsString).join(' OR ')})`;
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
  // A term is matched by the index only if every spelling of it has trigrams ("SSA" is also "ßA").
  const indexed = (t: string) => variants(t).every((v) => [...v].length >= TRIGRAM);
  const long = terms.filter(indexed);
  const short = terms.filter((t) => !indexed(t));
  return {
    match: long.length === 0 ? null : long.map(ftsTerm).join(' AND '),
    short: short.map(fold),
  };
}

/**
 * A snippet for a hit the index could not cut (short terms only): about `width` code points
 * around the first occurrence of a term, with … where text was left out.
 */
export function snippetAround(body: string, terms: readonly string[], width = 64): string {
  const chars = [...body];
  if (chars.length <= width) return body;
  const lower = body.toLowerCase();
  let at = -1;
  for (const term of terms) {
    const i = lower.indexOf(term.toLowerCase());
    if (i >= 0 && (at < 0 || i < at)) at = i;
  }
  // Code-unit index → code-point index (lower-casing keeps the length for the scripts that matter).
  const start = Math.max(0, (at < 0 ? 0 : [...body.slice(0, at)].length) - Math.floor(width / 4));
  const end = Math.min(chars.length, start + width);
  return `${start > 0 ? '…' : ''}${chars.slice(start, end).join('')}${end < chars.length ? '…' : ''}`;
}
