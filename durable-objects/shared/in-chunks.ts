/** Bound parameters per statement stay well under the platform's limit (100 per query on D1/DO SQLite). */
const IN_CHUNK = 50;

/** `items` in slices of at most `size`, for `IN (…)` lists of one statement each. */
export function chunks<T>(items: readonly T[], size = IN_CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
