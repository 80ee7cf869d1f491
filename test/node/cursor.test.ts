import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../../core/lib/cursor.js';

describe('keyset cursors', () => {
  it('carry any position, names in any script included, and stay URL-safe', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string({ unit: 'grapheme' }), fc.string(), fc.maxSafeInteger())), (position) => {
        const cursor = encodeCursor(position);
        expect(cursor).toMatch(/^[A-Za-z0-9_-]*$/);
        expect(decodeCursor(cursor)).toEqual(position);
      }),
    );
  });

  it('page past a host called 北京 or an agent shown as Zoë 🚀 (btoa alone throws on them)', () => {
    for (const position of [
      ['北京', 'hst_1'],
      ['Zoë 🚀', 'agt_2'],
      ['Ĳssel', 3],
    ]) {
      expect(decodeCursor(encodeCursor(position))).toEqual(position);
    }
  });

  it('still reads a cursor issued before the escapes (Latin-1 through btoa)', () => {
    const old = btoa(JSON.stringify(['Zoë', 'agt_1']))
      .replaceAll('+', '-')
      .replaceAll('/', '_')
      .replace(/=+$/, '');
    expect(decodeCursor(old)).toEqual(['Zoë', 'agt_1']);
  });

  it('refuses what it did not issue', () => {
    expect(() => decodeCursor('not a cursor!')).toThrow(/not one this server issued/);
    expect(() => decodeCursor(encodeCursor([]).concat('e30'))).toThrow(/not one this server issued/);
  });
});
