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

export function searchSnippet(body: string, needle: string, width = SNIPPET_WIDTH): SearchSnippet {
  const chars = [...body];
  // Case only first (the rule for needles too short for the index, which keep their accents),
  // then the index's folding, so "é" finds é and "cafe" finds Café.
  const found = locate(chars, needle, lower) ?? locate(chars, needle, fold);
  if (!found) {
    const end = Math.min(chars.length, width);
    return { before: chars.slice(0, end).join('') + (end < chars.length ? '…' : ''), match: '', after: '' };
  }
  const [start, end] = found;
  const from = Math.max(0, start - CONTEXT_BEFORE);
  const to = Math.min(chars.length, Math.max(end, from + width));
  return {
    before: (from > 0 ? '…' : '') + chars.slice(from, start).join(''),
    match: chars.slice(start, end).join(''),
    after: chars.slice(end, to).join('') + (to < chars.length ? '…' : ''),
  };
}
