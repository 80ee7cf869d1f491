/**
 * File sizes in the console are MB, where 1 MB = 1,000,000 bytes (REQ-55; the API and the stored
 * settings keep bytes). Conversions are done on decimal digits, not floats, so "1.1" MB is exactly
 * 1,100,000 bytes and 1 byte shows as "0.000001".
 */
export const BYTES_PER_MB = 1_000_000;
const MB_DECIMALS = 6;

export type ParseProblem = 'empty' | 'not_a_number' | 'not_positive' | 'too_large';
export type Parsed = { ok: true; value: number } | { ok: false; problem: ParseProblem };

/** Bytes as an exact MB figure with no trailing zeros ("50", "1.5", "0.000001"). */
export function bytesToMb(bytes: number): string {
  if (!Number.isSafeInteger(bytes) || bytes < 0) throw new RangeError(`not a byte count: ${bytes}`);
  const whole = Math.floor(bytes / BYTES_PER_MB);
  const fraction = String(bytes % BYTES_PER_MB)
    .padStart(MB_DECIMALS, '0')
    .replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : String(whole);
}

/**
 * Reads an MB figure typed by a person: "50", "1.5", "1,5" (a decimal comma, as French, Italian,
 * Spanish and Russian write it), surrounding spaces allowed. More than six decimals are rounded
 * to the nearest byte, half up. Digit grouping and exponents are refused rather than guessed.
 */
export function parseMb(input: string): Parsed {
  const text = input.trim();
  if (text === '') return { ok: false, problem: 'empty' };
  const match = /^(\d*)(?:[.,](\d*))?$/.exec(text);
  if (!match || (match[1] === '' && (match[2] ?? '') === '')) return { ok: false, problem: 'not_a_number' };
  const wholeDigits = (match[1] ?? '').replace(/^0+(?=\d)/, '') || '0';
  const fractionDigits = match[2] ?? '';
  if (wholeDigits.length > 10) return { ok: false, problem: 'too_large' };
  const kept = fractionDigits.slice(0, MB_DECIMALS).padEnd(MB_DECIMALS, '0');
  const roundUp = (fractionDigits[MB_DECIMALS] ?? '0') >= '5' ? 1 : 0;
  const bytes = Number(wholeDigits) * BYTES_PER_MB + Number(kept) + roundUp;
  if (!Number.isSafeInteger(bytes)) return { ok: false, problem: 'too_large' };
  if (bytes < 1) return { ok: false, problem: 'not_positive' };
  return { ok: true, value: bytes };
}

/** A positive whole number (a count, or seconds) typed by a person, within `[min, max]`. */
export function parseCount(input: string, min = 1, max = Number.MAX_SAFE_INTEGER): Parsed {
  const text = input.trim();
  if (text === '') return { ok: false, problem: 'empty' };
  if (!/^\d+$/.test(text)) return { ok: false, problem: 'not_a_number' };
  const value = Number(text);
  if (value < min) return { ok: false, problem: 'not_positive' };
  if (!Number.isSafeInteger(value) || value > max) return { ok: false, problem: 'too_large' };
  return { ok: true, value };
}
