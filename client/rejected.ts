/** Per-target and per-item results: arrays of objects with a `status`, as api-v1.md answers them. */
export function countRejected(data: unknown): { items: number; rejected: number } {
  let items = 0;
  let rejected = 0;
  if (typeof data !== 'object' || data === null) return { items, rejected };
  for (const value of Object.values(data)) {
    if (!Array.isArray(value)) continue;
    for (const item of value) {
      if (typeof item === 'object' && item !== null && typeof (item as { status?: unknown }).status === 'string') {
        items++;
        if ((item as { status: string }).status === 'rejected') rejected++;
      }
    }
  }
  return { items, rejected };
}
