/**
 * core/domain/search-snippet.ts: where the administrators' search snippet is cut and what it
 * highlights. The parts always join back into a contiguous stretch of the body.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SNIPPET_WIDTH, searchSnippet } from '../../core/domain/search-snippet.js';

const strip = (s: string) => s.replace(/^…/, '').replace(/…$/, '');

describe('searchSnippet', () => {
  it('highlights the text as written: case, accents, İ and ß', () => {
    expect(searchSnippet('Ein Café', 'CAFE')).toEqual({ before: 'Ein ', match: 'Café', after: '' });
    // A decomposed é keeps its combining accent inside the match.
    expect(searchSnippet('Cafe\u0301 noir', 'café')).toEqual({ before: '', match: 'Cafe\u0301', after: ' noir' });
    expect(searchSnippet('İstanbul', 'istanbul').match).toBe('İstanbul');
    expect(searchSnippet('Große Straße', 'strasse')).toEqual({ before: 'Große ', match: 'Straße', after: '' });
    // Case first: a needle with an accent finds that letter, not an unaccented one before it.
    expect(searchSnippet('Ein Café', 'É')).toEqual({ before: 'Ein Caf', match: 'é', after: '' });
  });

  it('cuts long bodies around the match on code points, marking the cuts with …', () => {
    const body = `${'😀'.repeat(100)}needle${'b'.repeat(300)}`;
    const s = searchSnippet(body, 'NEEDLE');
    expect(s.match).toBe('needle');
    expect(s.before).toBe(`…${'😀'.repeat(40)}`);
    expect(s.after.endsWith('…')).toBe(true);
    expect([...(strip(s.before) + s.match + strip(s.after))].length).toBe(SNIPPET_WIDTH);
  });

  it('falls back to the start of the body, unhighlighted, when the match cannot be located', () => {
    expect(searchSnippet('short', 'zzz')).toEqual({ before: 'short', match: '', after: '' });
    expect(searchSnippet('x'.repeat(200), 'zzz')).toEqual({ before: `${'x'.repeat(160)}…`, match: '', after: '' });
  });

  it('always answers a contiguous stretch of the body', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 300 }),
        fc.nat(),
        fc.integer({ min: 1, max: 8 }),
        (body, at, len) => {
          const chars = [...body];
          const needle = chars.slice(at % (chars.length + 1), (at % (chars.length + 1)) + len).join('');
          const s = searchSnippet(body, needle);
          expect(body.includes(strip(s.before) + s.match + strip(s.after))).toBe(true);
          if (needle !== '') expect(s.match.toLowerCase()).not.toBe('');
        },
      ),
    );
  });
});
