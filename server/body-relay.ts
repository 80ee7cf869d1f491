/**
 * Streams a client's request body to the upstream request, and can start over on a second
 * upstream request when the first one died on a stale keep-alive socket.
 *
 * Why: the front pools its connections to workerd. A pooled connection that workerd closed just
 * after its last answer still looks free for a moment; a request sent on it fails with ECONNRESET
 * before any answer byte, and workerd never saw it. Such a request is safe to send again on a
 * fresh connection, but its body has already been streamed into the dead socket. So, while the
 * request rides a reused connection and no answer byte has arrived, the bytes sent are kept (up to
 * `maxReplayBytes`); a stale socket fails on its first bytes, long before that bound (measured in
 * test/e2e/keep-alive.test.ts). Past the bound, on a fresh connection or once the answer began,
 * nothing is kept and a failure is reported instead of replayed.
 */
import type { ClientRequest, IncomingMessage } from 'node:http';

export const DEFAULT_MAX_REPLAY_BYTES = 4 * 1024 * 1024;

export class BodyRelay {
  private chunks: Buffer[] = [];
  private kept = 0;
  private keeping = true;
  private ended = false;
  private target: ClientRequest | undefined;
  private readonly onDrain = () => this.source.resume();

  constructor(
    private readonly source: IncomingMessage,
    private readonly maxReplayBytes = DEFAULT_MAX_REPLAY_BYTES,
  ) {
    source.on('data', (chunk: Buffer) => {
      if (this.keeping) {
        this.chunks.push(chunk);
        this.kept += chunk.length;
        if (this.kept > this.maxReplayBytes) this.forget();
      }
      if (this.target && !this.target.write(chunk)) source.pause();
    });
    source.on('end', () => {
      this.ended = true;
      this.target?.end();
    });
  }

  /** True while everything sent so far could be sent again. */
  get replayable(): boolean {
    return this.keeping;
  }

  /** Bytes sent so far and kept for a replay (for measurements). */
  get keptBytes(): number {
    return this.kept;
  }

  /** Nothing will be replayed any more (fresh connection, answer started, or too much sent). */
  forget(): void {
    this.keeping = false;
    this.chunks = [];
  }

  /** Sends the body to `target`: first what was kept, then the rest as it arrives. */
  attach(target: ClientRequest): void {
    this.detach();
    this.target = target;
    target.on('drain', this.onDrain);
    for (const chunk of this.chunks) target.write(chunk);
    if (this.ended) target.end();
    else this.source.resume();
  }

  /** Gives up on the upstream: the rest of the body is read and dropped (the client may finish). */
  discard(): void {
    this.detach();
    this.forget();
    this.source.resume();
  }

  /** Stops sending to the current target; what still arrives is kept (if replayable) or dropped. */
  detach(): void {
    this.target?.off('drain', this.onDrain);
    this.target = undefined;
  }
}
