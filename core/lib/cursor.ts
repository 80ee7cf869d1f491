import { ApiError } from '../contract/errors.js';

/** Opaque keyset cursors: the position after which the next page starts, never an offset. */
export function encodeCursor(position: readonly (string | number)[]): string {
  // btoa takes Latin-1 only and a position may hold any name (a host called 北京): everything past
  // ASCII goes in as JSON's own \uXXXX escapes, which JSON.parse reads back (cursors issued before
  // this, Latin-1 at most, still decode the same).
  const ascii = JSON.stringify(position).replace(
    /[\u007f-\uffff]/g,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return btoa(ascii).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

export function decodeCursor(cursor: string | undefined): (string | number)[] | null {
  if (cursor === undefined || cursor === '') return null;
  try {
    const padded = cursor.replaceAll('-', '+').replaceAll('_', '/');
    const value: unknown = JSON.parse(atob(padded));
    if (Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'number')) return value;
  } catch {
    // fall through
  }
  throw notIssued();
}

/**
 * A one-number cursor (a channel's seq, a catalog position): the number, or null for the first
 * page. Anything else, or a number below `min`, is not a cursor this server issued.
 */
export function decodeSeqCursor(cursor: string | undefined, min = 0): number | null {
  const position = decodeCursor(cursor);
  if (position === null) return null;
  const [seq] = position;
  if (position.length !== 1 || typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < min) throw notIssued();
  return seq;
}

function notIssued(): ApiError {
  return new ApiError('validation_failed', 'The cursor is not one this server issued.', { field: 'cursor' });
}

export function pageSize(requested: number | undefined, max: number, fallback = 50): number {
  return Math.min(requested ?? Math.min(fallback, max), max);
}
