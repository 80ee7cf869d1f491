/**
 * Reads a request body into one reused buffer (a BYOB reader), so that reading it allocates no
 * memory per chunk.
 *
 * A default reader hands every chunk over in a fresh ArrayBuffer, and workerd reads a socket
 * 4 KiB at a time: a 50 MB upload made about 12,000 of them. Their backing stores count as V8
 * external memory, which starts no collection until it passes tens of megabytes, so an upload's
 * chunks piled up as garbage and workerd grew into that memory and kept it. Measured with a bare
 * worker that only drains a 50 MB body on a fresh Miniflare: +28.7 MB of workerd resident memory
 * with the default reader, +2.0 MB with this one; the server's first 50 MB upload went from
 * +80..89 MB to +63 MB. A BYOB read fills the caller's buffer and hands it back transferred (the
 * same memory), so one buffer serves the whole body.
 *
 * The bytes a read answers alias that buffer until the next read: a caller must be done with them
 * (copied, or written on and awaited) before it reads again. A stream that is not a byte stream (one
 * built in JavaScript) falls back to its default reader, whose chunks are the caller's to keep.
 */

import { ApiError } from '../../core/contract/errors.js';

/**
 * A body read failed because the client closed its connection before the body was over: nobody
 * is left to answer, and it is no fault of the server's (the app logs it as `client_aborted`).
 */
export class BodyAborted extends Error {
  constructor(cause: unknown) {
    super('The client closed the connection before its request body was over.', { cause });
    this.name = 'BodyAborted';
  }
}

/** A read whose failure is the client's going away. */
function readOrAbort<T>(read: Promise<T>): Promise<T> {
  return read.catch((error: unknown) => {
    throw error instanceof BodyAborted ? error : new BodyAborted(error);
  });
}

/** Large enough that one read takes what a socket has buffered, small enough to cost nothing per request. */
export const BODY_READ_BYTES = 64 * 1024;

/** The reading side of a body: a default reader fits it, so does `bodyReader`'s answer. */
export interface BodyReader {
  /** The next bytes, or done. */
  read(): Promise<ReadableStreamReadResult<Uint8Array>>;
  cancel(reason?: unknown): Promise<void>;
}

export interface ReusingBodyReader extends BodyReader {
  /** True when `read` answers views of one reused buffer (valid until the next read). */
  readonly reusesBuffer: boolean;
  /** Lets the stream go (for another reader to read on); throws while a read is pending. */
  releaseLock(): void;
}

/**
 * `declared` is the body's Content-Length when known: a smaller body gets a buffer of its size
 * (most bodies drained are a few hundred bytes, and each buffer is a fresh external allocation).
 */
export function bodyReader(stream: ReadableStream<Uint8Array>, declared?: number): ReusingBodyReader {
  let byob: ReadableStreamBYOBReader;
  try {
    byob = stream.getReader({ mode: 'byob' });
  } catch {
    // Not a byte stream: only its default reader is offered.
    const reader = stream.getReader();
    return {
      reusesBuffer: false,
      read: () => readOrAbort(reader.read()),
      cancel: (reason) => reader.cancel(reason),
      releaseLock: () => reader.releaseLock(),
    };
  }
  const size =
    declared !== undefined && Number.isSafeInteger(declared) && declared > 0
      ? Math.min(declared, BODY_READ_BYTES)
      : BODY_READ_BYTES;
  let buffer = new ArrayBuffer(size);
  const readOnce = async (): Promise<ReadableStreamReadResult<Uint8Array>> => {
    const result = await readOrAbort(byob.read(new Uint8Array(buffer)));
    // The read transferred the buffer: the view it answers is the buffer's owner now.
    if (result.value) buffer = result.value.buffer as ArrayBuffer;
    return result.done ? { done: true, value: undefined } : { done: false, value: result.value };
  };
  // Reads queue as a default reader's do (a drain may read again while an earlier read waits).
  let queue: Promise<unknown> = Promise.resolve();
  return {
    reusesBuffer: true,
    read() {
      const next = queue.then(readOnce);
      queue = next.catch(() => {});
      return next;
    },
    cancel: (reason) => byob.cancel(reason),
    releaseLock: () => byob.releaseLock(),
  };
}

/** Chunks joined into one array of `total` bytes: the one place a body's pieces are put together. */
export function joinChunks(chunks: readonly Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

/**
 * Something a caller must settle before more than `afterBytes` of a body are read: the remote MCP
 * route admits an upload there (worker/mcp.ts). `open` refuses by throwing; the read then stops.
 */
export interface ReadGate {
  afterBytes: number;
  open(): Promise<void>;
}

/**
 * Reads at most `maxBytes` of a body stream; refuses (413) the moment it grows past that. A `gate`
 * is opened (awaited) once, before the body is read on past its `afterBytes`. A body of `declared`
 * length is read straight into one array of that size (no chunks kept, no join).
 *
 * `body` may also be a reader whose answers alias a reused buffer (the relay's direct reader,
 * drain.ts): a declared body is then copied once, into its array, with no chunk of its own per
 * read; on a refusal such a reader is simply left where it stopped, for the drain.
 */
export async function readBounded(
  body: ReadableStream<Uint8Array> | BodyReader | null,
  maxBytes: number,
  gate?: ReadGate,
  declared?: number,
): Promise<Uint8Array> {
  if (!body) return new Uint8Array(0);
  const direct = !(body instanceof ReadableStream);
  const reader = direct ? body : body.getReader();
  const chunks: Uint8Array[] = [];
  let whole =
    declared !== undefined && Number.isSafeInteger(declared) && declared > 0 && declared <= maxBytes
      ? new Uint8Array(declared)
      : null;
  let total = 0;
  let gated = gate !== undefined;
  try {
    for (;;) {
      if (gated && total >= (gate as ReadGate).afterBytes) {
        gated = false;
        await (gate as ReadGate).open();
      }
      const { done, value } = await readOrAbort(reader.read());
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        throw new ApiError('payload_too_large', `The request body is larger than ${maxBytes} bytes.`, {
          limit: maxBytes,
        });
      }
      if (whole && total <= whole.byteLength) {
        whole.set(value, total - value.byteLength);
        continue;
      }
      // Longer than declared (the runtime frames bodies by their length, so not expected): chunks.
      if (whole) chunks.push(whole.subarray(0, total - value.byteLength));
      whole = null;
      chunks.push(direct ? value.slice() : value);
    }
  } catch (error) {
    // The rest of the body is drained in one place, before the answer (drain.ts): released, not
    // cancelled, so that the runtime's own stream can be read on.
    if (!direct) (reader as ReadableStreamDefaultReader<Uint8Array>).releaseLock();
    throw error;
  }
  if (whole) return total === whole.byteLength ? whole : whole.subarray(0, total);
  return joinChunks(chunks, total);
}
