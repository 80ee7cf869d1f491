/**
 * Asks about many items with a bounded number of calls in flight, and hands the answers over in
 * the items' order, so a paged scan can stop at an exact position: `accept` sees answer i only
 * after answers 0..i-1, and once it returns false no further call is started (calls already in
 * flight finish and are dropped). A failed call fails the scan.
 */
export async function scanInOrder<T, R>(
  items: readonly T[],
  concurrency: number,
  ask: (item: T, index: number) => Promise<R>,
  accept: (answer: R, item: T, index: number) => boolean,
): Promise<{ consumed: number }> {
  const answers = new Map<number, R>();
  let started = 0;
  let consumed = 0;
  let stopped = false;
  let failure: { error: unknown } | null = null;

  const drain = () => {
    while (!stopped && answers.has(consumed)) {
      const answer = answers.get(consumed) as R;
      answers.delete(consumed);
      const index = consumed++;
      if (!accept(answer, items[index] as T, index)) stopped = true;
    }
  };

  const worker = async () => {
    while (!stopped && failure === null && started < items.length) {
      const index = started++;
      try {
        answers.set(index, await ask(items[index] as T, index));
      } catch (error) {
        // A call the scan no longer needs (past where `accept` stopped) cannot fail it.
        if (!stopped) failure ??= { error };
        stopped = true;
        return;
      }
      drain();
    }
  };

  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
  if (failure) throw (failure as { error: unknown }).error;
  return { consumed };
}

/**
 * One page of a catalog scan: `entries` (one catalog page, in order; `more` when the catalog goes
 * on) are asked about with bounded parallelism until `limit` of them are kept. The answer says
 * where the next page starts: after the last entry examined, or nowhere when the catalog is done.
 */
export async function scanCatalogPage<E extends { n: number }, S>(
  page: { entries: readonly E[]; more: boolean },
  limit: number,
  concurrency: number,
  ask: (entry: E) => Promise<S>,
  keep: (answer: S) => boolean,
): Promise<{ found: S[]; next: number | null; scanned: number }> {
  const found: S[] = [];
  let last: number | null = null;
  const { consumed } = await scanInOrder(page.entries, concurrency, ask, (answer, entry) => {
    last = entry.n;
    if (keep(answer)) found.push(answer);
    return found.length < limit;
  });
  const more = consumed < page.entries.length || page.more;
  return { found, next: more ? last : null, scanned: consumed };
}
