import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BYTES_PER_MB, bytesToMb, parseCount, parseMb } from '../../admin-ui/src/lib/units.js';

describe('MB display (REQ-55: 1 MB = 1,000,000 bytes)', () => {
  it('shows bytes as exact MB without float noise or trailing zeros', () => {
    expect(bytesToMb(50_000_000)).toBe('50');
    expect(bytesToMb(1_500_000)).toBe('1.5');
    expect(bytesToMb(1_100_000)).toBe('1.1');
    expect(bytesToMb(1)).toBe('0.000001');
    expect(bytesToMb(123_456_789)).toBe('123.456789');
    expect(bytesToMb(0)).toBe('0');
  });

  it('refuses what is not a byte count', () => {
    expect(() => bytesToMb(-1)).toThrow(RangeError);
    expect(() => bytesToMb(1.5)).toThrow(RangeError);
    expect(() => bytesToMb(Number.NaN)).toThrow(RangeError);
  });
});

describe('MB input', () => {
  it('reads whole and decimal MB, with a decimal point or a decimal comma', () => {
    expect(parseMb('50')).toEqual({ ok: true, value: 50_000_000 });
    expect(parseMb(' 1.5 ')).toEqual({ ok: true, value: 1_500_000 });
    expect(parseMb('1,5')).toEqual({ ok: true, value: 1_500_000 });
    expect(parseMb('1.1')).toEqual({ ok: true, value: 1_100_000 }); // not 1100000.0000000002
    expect(parseMb('.5')).toEqual({ ok: true, value: 500_000 });
    expect(parseMb('2.')).toEqual({ ok: true, value: 2_000_000 });
    expect(parseMb('0050')).toEqual({ ok: true, value: 50_000_000 });
    expect(parseMb('0.000001')).toEqual({ ok: true, value: 1 });
  });

  it('rounds beyond byte precision to the nearest byte, half up', () => {
    expect(parseMb('0.0000014')).toEqual({ ok: true, value: 1 });
    expect(parseMb('0.0000015')).toEqual({ ok: true, value: 2 });
    expect(parseMb('1.23456749')).toEqual({ ok: true, value: 1_234_567 });
    expect(parseMb('1.2345675')).toEqual({ ok: true, value: 1_234_568 });
    expect(parseMb('0.9999995')).toEqual({ ok: true, value: 1_000_000 });
  });

  it('names the problem with invalid input instead of guessing', () => {
    expect(parseMb('')).toEqual({ ok: false, problem: 'empty' });
    expect(parseMb('   ')).toEqual({ ok: false, problem: 'empty' });
    for (const text of ['abc', '1e3', '-5', '+5', '1.2.3', '1 000', '1,000.5', '.', ',', '5MB', 'Infinity', '0x10']) {
      expect(parseMb(text), text).toEqual({ ok: false, problem: 'not_a_number' });
    }
    expect(parseMb('0')).toEqual({ ok: false, problem: 'not_positive' });
    expect(parseMb('0.0000004')).toEqual({ ok: false, problem: 'not_positive' }); // rounds to 0 bytes
    expect(parseMb('99999999999')).toEqual({ ok: false, problem: 'too_large' });
    expect(parseMb('9999999999')).toEqual({ ok: false, problem: 'too_large' }); // beyond 2^53 bytes
  });

  it('round-trips every byte count the API can hold', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), (bytes) => {
        expect(parseMb(bytesToMb(bytes))).toEqual({ ok: true, value: bytes });
      }),
    );
  });

  it('agrees with exact arithmetic for decimal input with up to six places', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), fc.integer({ min: 0, max: 999_999 }), (whole, micro) => {
        const text = `${whole}.${String(micro).padStart(6, '0')}`;
        const bytes = whole * BYTES_PER_MB + micro;
        expect(parseMb(text)).toEqual(bytes > 0 ? { ok: true, value: bytes } : { ok: false, problem: 'not_positive' });
      }),
    );
  });
});

describe('count input', () => {
  it('accepts positive whole numbers within the bounds', () => {
    expect(parseCount('60', 1, 86_400)).toEqual({ ok: true, value: 60 });
    expect(parseCount(' 86400 ', 1, 86_400)).toEqual({ ok: true, value: 86_400 });
    expect(parseCount('1')).toEqual({ ok: true, value: 1 });
  });

  it('refuses fractions, signs, zero and values past the bounds', () => {
    expect(parseCount('')).toEqual({ ok: false, problem: 'empty' });
    expect(parseCount('1.5')).toEqual({ ok: false, problem: 'not_a_number' });
    expect(parseCount('-3')).toEqual({ ok: false, problem: 'not_a_number' });
    expect(parseCount('1e3')).toEqual({ ok: false, problem: 'not_a_number' });
    expect(parseCount('0')).toEqual({ ok: false, problem: 'not_positive' });
    expect(parseCount('86401', 1, 86_400)).toEqual({ ok: false, problem: 'too_large' });
    expect(parseCount('9007199254740993')).toEqual({ ok: false, problem: 'too_large' });
  });
});
