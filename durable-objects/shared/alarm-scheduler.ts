/**
 * The one alarm of a Durable Object, shared by its jobs. A Durable Object has a single alarm; every
 * object here has several kinds of timed work (outbox retries, deletion retries, lease expiry,
 * cleanup runs …). Each kind registers as a job; the object's `alarm()` calls `run()`, which runs
 * every job (one failing job never starves the others) and sets the alarm again.
 *
 * A job tells when it is due in one of two ways:
 * - `due()`: from the object's own stored state (the earliest lease expiry, the next deletion
 *   attempt …). `rearm()` then sets the alarm to the earliest due job, or clears it, and is called
 *   after every change of that state; the alarm can never be lost, since it is recomputed from
 *   durable rows (also on start).
 * - by asking: `noLaterThan(at)` / `within(delayMs)` keep an earlier alarm and otherwise set one;
 *   `armWithCommit(delayMs)` sets it without awaiting, so the alarm commits together with the writes of
 *   the same turn (a crash after the commit still finds the alarm set).
 *
 * Times are on the object's clock (`now`), which the test worker may shift; alarms run on the real
 * clock, so the offset is taken off when an alarm is set.
 */
import { backoffMs, DELIVERY_RETRY } from './outbox.js';

export interface AlarmJob {
  /** Does the job's work that is due at `now` (the object's clock, read just before). */
  run(now: number): Promise<void>;
  /** When the job has work next (object clock), from stored state; null: none. */
  due?(): number | null;
}

/** The earliest an alarm is set: a time in the past would fire at once anyway. */
const MIN_DELAY_MS = 10;

export class AlarmScheduler {
  private readonly jobs: [string, AlarmJob][] = [];
  /** Retries of jobs whose last run threw (object clock), until they run again. */
  private readonly retries = new Map<string, { at: number; failures: number }>();
  /**
   * The alarm changes of this object, one after the other. Each reads the alarm and then sets it:
   * two of them interleaved (both read "none", then the later time is written last) would lose
   * the earlier alarm, and its work would wait for the later one.
   */
  private changes: Promise<void> = Promise.resolve();

  constructor(
    private readonly ctx: DurableObjectState,
    private readonly now: () => number,
    private readonly label: string,
  ) {}

  /** Jobs run in registration order. */
  register(name: string, job: AlarmJob): this {
    this.jobs.push([name, job]);
    return this;
  }

  /** An object-clock time on the real clock (never earlier than MIN_DELAY_MS from now). */
  private real(at: number): number {
    // A subclass's clock may not be set up yet while the constructor runs: no offset then.
    const offset = this.now() - Date.now();
    return Math.max(at - (Number.isFinite(offset) ? offset : 0), Date.now() + MIN_DELAY_MS);
  }

  private serialized(change: () => Promise<void>): Promise<void> {
    const done = this.changes.then(change, change);
    this.changes = done.catch(() => {});
    return done;
  }

  /** Sets the alarm for real-clock time `real` unless it is set to fire earlier already. */
  private keepEarlier(real: number): Promise<void> {
    return this.serialized(async () => {
      const current = await this.ctx.storage.getAlarm();
      if (current === null || current > real) await this.ctx.storage.setAlarm(real);
    });
  }

  /** Makes sure the alarm fires no later than `at` (an earlier alarm is kept). */
  noLaterThan(at: number): Promise<void> {
    return this.keepEarlier(this.real(at));
  }

  /** Makes sure the alarm fires within `delayMs` of the real clock (an earlier alarm is kept). */
  within(delayMs: number): Promise<void> {
    return this.keepEarlier(Date.now() + Math.max(delayMs, MIN_DELAY_MS));
  }

  /**
   * Sets the alarm `delayMs` from now without awaiting, before the caller's transaction: alarm
   * writes follow the same rules as other storage writes, so it commits together with the writes
   * of this turn (a crash after the commit still finds the alarm set).
   */
  armWithCommit(delayMs: number): void {
    void this.ctx.storage.setAlarm(Date.now() + delayMs);
  }

  /** Sets the alarm for the earliest due job (or clears it when nothing is due). */
  rearm(): Promise<void> {
    return this.serialized(async () => {
      const times: number[] = [];
      for (const [, job] of this.jobs) {
        const at = job.due?.();
        if (at !== null && at !== undefined) times.push(at);
      }
      for (const retry of this.retries.values()) times.push(retry.at);
      if (times.length === 0) await this.ctx.storage.deleteAlarm();
      else await this.ctx.storage.setAlarm(this.real(Math.min(...times)));
    });
  }

  /**
   * The object's alarm: every job runs once, in order, each reading the clock itself (an earlier
   * job may have scheduled work for "now"). A job that throws is logged and retried after the
   * backoff. Afterwards the alarm is set again: from the jobs' due times when they keep them, or
   * for the retries of failed jobs.
   */
  async run(): Promise<void> {
    for (const [name, job] of this.jobs) {
      try {
        await job.run(this.now());
        this.retries.delete(name);
      } catch (error) {
        const failures = (this.retries.get(name)?.failures ?? 0) + 1;
        this.retries.set(name, { at: this.now() + backoffMs(failures, DELIVERY_RETRY), failures });
        console.error(`${this.label} alarm job ${name} failed`, String(error));
      }
    }
    if (this.jobs.some(([, job]) => job.due)) await this.rearm();
    else {
      const retry = Math.min(...[...this.retries.values()].map((r) => r.at));
      if (Number.isFinite(retry)) await this.noLaterThan(retry);
    }
  }
}
