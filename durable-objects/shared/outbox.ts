/**
 * The one retry rule of every Durable Object: how long a failed piece of work waits before its
 * next attempt (backoffMs), and the loop that hands pending outbox items to their receivers
 * (deliverPending). Each object keeps its outbox rows in its own SQLite database, written in the
 * same transaction as the change they announce, so a crash between the commit and the delivery
 * loses nothing: the rows stay until a delivery succeeded, and the object's alarm
 * (alarm-scheduler.ts) tries again after the backoff. Receivers are idempotent (a version that only
 * moves forward, or a delete that may repeat), so a delivery repeated after a crash changes
 * nothing: the effect happens exactly once.
 */

/** How a kind of work backs off: the first retry after `baseMs`, doubling up to `maxMs`. */
export interface RetryPolicy {
  baseMs: number;
  maxMs: number;
}

/** R2 deletions and retroactive cleanup runs: 1 s, 2 s, 4 s … up to 5 minutes. */
export const STORAGE_RETRY: RetryPolicy = { baseMs: 1_000, maxMs: 5 * 60_000 };

/**
 * Deliveries to other objects of this deployment (agent copies, inbox notes, catalogs): a steady
 * 5 s. Their receivers fail only while an object restarts, and an administrator's change or a
 * send waits on them, so they are retried promptly rather than backed off far.
 */
export const DELIVERY_RETRY: RetryPolicy = { baseMs: 5_000, maxMs: 5_000 };

/** The wait before the next attempt of work that has failed `attempts` times (1 = the first failure). */
export function backoffMs(attempts: number, policy: RetryPolicy = STORAGE_RETRY): number {
  return Math.min(policy.baseMs * 2 ** Math.min(Math.max(0, attempts - 1), 30), policy.maxMs);
}

export interface Delivery<T> {
  /** Hands one item to its receiver; a rejection counts as a failed attempt. */
  deliver(item: T): Promise<void>;
  /** The receiver has the item: its outbox row may go (if it was not superseded meanwhile). */
  delivered(item: T): void;
  /** Keeps the row, counts the attempt and keeps the error for the status. */
  failed(item: T, error: string): void;
  /** `sequential`: one item after the other (the default delivers all at once). */
  sequential?: boolean;
}

/**
 * Delivers every pending item once; true when all arrived. Failed items stay in the outbox: the
 * caller arms its alarm (`backoffMs`) so they are retried until they land.
 */
export async function deliverPending<T>(items: readonly T[], delivery: Delivery<T>): Promise<boolean> {
  let ok = true;
  const settle = (item: T, result: PromiseSettledResult<void>) => {
    if (result.status === 'fulfilled') delivery.delivered(item);
    else {
      ok = false;
      delivery.failed(item, String(result.reason));
    }
  };
  if (delivery.sequential) {
    for (const item of items) {
      const [result] = await Promise.allSettled([delivery.deliver(item)]);
      settle(item, result!);
    }
  } else {
    const results = await Promise.allSettled(items.map((item) => delivery.deliver(item)));
    for (const [i, result] of results.entries()) settle(items[i]!, result);
  }
  return ok;
}
