/**
 * The administrators' search snippet (GET /admin/channels?q=): a message body cut around the first
 * occurrence of the searched text, as three plain strings (before, match, after), so the console
 * highlights the match with an element of its own and never parses message text as markup.
 *
 * The match is located with the search's own rules (case only, then `fold`: case, accents, İ, ß as
 * ss), one code point at a time, so `match` is the text exactly as the message wrote it ("Café" for a
 * search of "cafe") and the cut never splits a surrogate pair or a letter from its accents.
 */
import { fold } from './search.js';

/** Code points kept before the match; the rest of the width goes after it. */
const CONTEXT_BEFORE = 40;
export const SNIPPET_WIDTH = 160;

export interface SearchSnippet {
  before: string;
  match: string;
  after: string;
}

/** Where `needle` is in `chars` under `fold`, as [start, end) code-point indexes; null: nowhere. */
function locate(chars: readonly string[], needle: string, foldChar: (text: string) => string): [number, number] | null {
  const target = foldChar(needle);
  if (target === '') return null;
  // The folded text, and for each of its code units the index of the code point it came from.
  let folded = '';
  const origin: number[] = [];
  chars.forEach((ch, i) => {
    const f = foldChar(ch);
    folded += f;
    for (let k = 0; k < f.length; k++) origin.push(i);
  });
  const at = folded.indexOf(target);
  if (at < 0) return null;
  let end = origin[at + target.length - 1]! + 1;
  // Accents fold to nothing: the ones on the match's last letter belong to the match.
  while (end < chars.length && foldChar(chars[end]!) === '') end++;
  return [origin[at]!, end];
}

const lower = (text: string) => text.toLowerCase();

export function searchSnippet(
  body: string,
  needle: string,
  width = SNIPPET_WIDTH,
  contextBefore = CONTEXT_BEFORE,
): SearchSnippet {
  const chars = [...body];
  // Case only first (the rule for needles too short for the index, which keep their accents),
  // then the index's folding, so "é" finds é and "cafe" finds Café.
  const found = locate(chars, needle, lower) ?? locate(chars, needle, fold);
  if (!found) {
    const end = Math.min(chars.length, width);
    return { before: chars.slice(0, end).join('') + (end < chars.length ? '…' : ''), match: '', after: '' };
  }
  const [start, end] = found;
  const from = Math.max(0, start - contextBefore);
  const to = Math.min(chars.length, Math.max(end, from + width));
  return {
    before: (from > 0 ? '…' : '') + chars.slice(from, start).join(''),
    match: chars.slice(start, end).join(''),
    after: chars.slice(end, to).join('') + (to < chars.length ? '…' : ''),
  };
}

/** Code units of body kept on each side of a match before the exact location runs (see hitSnippet). */
const HIT_WINDOW = 128;

/** A cut that does not split a surrogate pair: moved back onto the pair's first half. */
function cutAt(text: string, at: number): number {
  const code = text.charCodeAt(at);
  return at > 0 && code >= 0xdc00 && code <= 0xdfff ? at - 1 : at;
}

/**
 * An agent search hit's snippet (GET /search): about `width` code points around the earliest
 * occurrence of one of the (unfolded) `terms`, with … where text was left out. The exact location
 * (searchSnippet's, one code point at a time) runs on a window around where the folded body has
 * the term, never on the whole body: that costs a few milliseconds for a long body, and a page may
 * hold a few hundred. Folding rarely changes the length by much; where it moved the match out of
 * the window the snippet is the start of the body.
 */
export function hitSnippet(body: string, terms: readonly string[], width = 64): string {
  if (body.length <= width) return body;
  const folded = fold(body);
  let at = -1;
  let term = '';
  for (const t of terms) {
    const i = folded.indexOf(fold(t));
    if (i >= 0 && (at < 0 || i < at)) {
      at = i;
      term = t;
    }
  }
  const from = at < 0 ? 0 : cutAt(body, Math.max(0, at - HIT_WINDOW));
  const to = cutAt(body, Math.min(body.length, Math.max(at, 0) + term.length + HIT_WINDOW + width));
  const cut = searchSnippet(body.slice(from, to), term, width, Math.floor(width / 4));
  const text = cut.before + cut.match + cut.after;
  return `${from > 0 && !text.startsWith('…') ? '…' : ''}${text}${to < body.length && !text.endsWith('…') ? '…' : ''}`;
}
