/**
 * The minimum transfer rate of an upload. A client that holds a request open while sending next
 * to nothing (one byte every two seconds, or nothing at all) would otherwise keep its admission
 * slot and its lease until the connection closes, up to the front's 30-minute request timeout.
 *
 * The rule, in the spirit of Apache's mod_reqtimeout (`MinRate`): time is cut into windows of
 * `windowMs` counted only while the server waits for the client's next bytes (time spent writing
 * to R2 or calling Durable Objects is the server's, not the client's), and every complete window
 * must bring at least `minBytes`. The window that is open when the body ends is never judged.
 */
import { ApiError } from '../../core/contract/errors.js';
import type { BodyReader } from './reader.js';

export class StallGuard {
  private waited = 0;
  private bytes = 0;

  constructor(
    readonly windowMs: number,
    readonly minBytes: number,
  ) {}

  /** Waiting time left in the current window. */
  remaining(): number {
    return Math.max(0, this.windowMs - this.waited);
  }

  /**
   * Records a wait of `ms` that brought `bytes`. Once the window is full it is judged and a new
   * one starts; false when the window that closed was short of bytes.
   */
  record(ms: number, bytes: number): boolean {
    this.waited += ms;
    this.bytes += bytes;
    if (this.waited < this.windowMs) return true;
    const enough = this.bytes >= this.minBytes;
    this.waited = 0;
    this.bytes = 0;
    return enough;
  }

  refusal(): ApiError {
    const seconds = Math.round(this.windowMs / 1000);
    return new ApiError(
      'upload_stalled',
      `The upload sent fewer than ${this.minBytes} bytes in ${seconds} s (upload_stall_seconds); it was cancelled and nothing was kept. Send it again.`,
      { limit: this.minBytes },
    );
  }
}

/**
 * The next chunk of the body, or `upload_stalled` as soon as a window closes short, also while the
 * client sends nothing at all (a timer ends the wait; the caller then cancels the reader).
 */
export async function readGuarded(
  reader: Pick<BodyReader, 'read'>,
  guard: StallGuard,
): Promise<ReadableStreamReadResult<Uint8Array>> {
  const next = reader.read();
  // If the guard gives up first, the caller cancels the reader; a late failure is nobody's to report.
  next.catch(() => {});
  for (;;) {
    const started = Date.now();
    const budget = guard.remaining();
    let timer: ReturnType<typeof setTimeout> | null = null;
    const timeout = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), budget);
    });
    const result = await Promise.race([next, timeout]);
    if (timer !== null) clearTimeout(timer);
    if (result === null) {
      // The whole window went by while waiting: judge it on what it brought before this wait.
      if (!guard.record(budget, 0)) throw guard.refusal();
      continue;
    }
    if (result.done) return result;
    if (!guard.record(Date.now() - started, result.value.length)) throw guard.refusal();
    return result;
  }
}
