/**
 * Writes an upload of unknown length to one R2 object while it arrives, counting and hashing it.
 *
 * R2's `put` needs a body of known length (workerd refuses other streams, Miniflare too), and a
 * file part's length is not known until its closing boundary. So bytes are gathered into parts of
 * PART_BYTES: a file that ends within the first part is written with one `put`; a larger one
 * becomes an R2 multipart upload of equal-sized parts (R2 wants all but the last part the same
 * size, at least 5 MiB). Memory per upload is bounded by one part. The size limit is checked on
 * every chunk, so an oversized upload stops at the first byte over the limit, whatever
 * Content-Length claimed. SHA-256 is computed incrementally by workerd's `crypto.DigestStream`.
 *
 * Chunks the writer may keep (`owned`: no reused buffer behind them, as in the in-process send of
 * a remote MCP call, whose file is one array already) are not copied while the file still fits in
 * its first part: a file that ends there is written from them as they are, and the part buffer (a
 * 5 MiB allocation per upload) is never made.
 */
import { ApiError } from '../../core/contract/errors.js';
import { hex } from '../../core/lib/crypto.js';

/** R2's minimum part size; every part but the last has exactly this size. */
export const PART_BYTES = 5 * 1024 * 1024;

export interface StagedObject {
  size: number;
  sha256: string;
}

export interface StagingHooks {
  /** Called with the multipart upload ID before the first part is written, so a crash can abort it. */
  onMultipartStarted(uploadId: string): Promise<void>;
}

export class StagingWriter {
  private readonly digest = new crypto.DigestStream('SHA-256');
  private readonly digestWriter = this.digest.getWriter();
  private buffer: Uint8Array<ArrayBuffer> | null = null;
  private fill = 0;
  /** Owned chunks not yet copied, fewer than PART_BYTES in all; only while no buffer was needed. */
  private kept: Uint8Array[] = [];
  private keptBytes = 0;
  private size = 0;
  private upload: R2MultipartUpload | null = null;
  private readonly parts: R2UploadedPart[] = [];
  private closed = false;

  constructor(
    private readonly bucket: R2Bucket,
    readonly key: string,
    private readonly maxBytes: number,
    private readonly hooks: StagingHooks,
  ) {
    // An aborted upload rejects the digest; that outcome is expected, not an unhandled error.
    this.digest.digest.catch(() => {});
  }

  /**
   * Appends bytes; throws `file_too_large` as soon as the total passes the limit. `owned`: the
   * caller never changes these bytes again, so they may be kept instead of copied.
   */
  async write(bytes: Uint8Array, owned = false): Promise<void> {
    if (this.closed) throw new Error('staging writer is closed');
    if (bytes.length === 0) return;
    this.size += bytes.length;
    if (this.size > this.maxBytes) {
      throw new ApiError('file_too_large', `The file is larger than ${this.maxBytes} bytes.`, {
        field: 'file',
        limit: this.maxBytes,
      });
    }
    await this.digestWriter.write(bytes);
    if (owned && this.buffer === null && this.keptBytes + bytes.length < PART_BYTES) {
      this.kept.push(bytes);
      this.keptBytes += bytes.length;
      return;
    }
    this.spillKept();
    let at = 0;
    while (at < bytes.length) {
      this.buffer ??= new Uint8Array(PART_BYTES);
      const take = Math.min(bytes.length - at, PART_BYTES - this.fill);
      this.buffer.set(bytes.subarray(at, at + take), this.fill);
      this.fill += take;
      at += take;
      if (this.fill === PART_BYTES) await this.flushPart();
    }
  }

  /** Completes the object; answers its size and SHA-256 (hex). */
  async finish(): Promise<StagedObject> {
    if (this.closed) throw new Error('staging writer is closed');
    this.closed = true;
    await this.digestWriter.close();
    const sha256 = hex(await this.digest.digest);
    if (this.kept.length > 0) {
      await this.putKept();
    } else {
      const rest = this.buffer ? this.buffer.subarray(0, this.fill) : new Uint8Array(0);
      if (this.upload) {
        if (rest.length > 0) this.parts.push(await this.upload.uploadPart(this.parts.length + 1, rest));
        await this.upload.complete(this.parts);
      } else {
        await this.bucket.put(this.key, rest);
      }
    }
    // Freed now rather than when garbage collection comes to it (it may not before the next upload).
    this.buffer?.buffer.transfer(0);
    this.buffer = null;
    return { size: this.size, sha256 };
  }

  /** The file, still all in owned chunks, written as one object: one chunk as it is, more streamed. */
  private async putKept(): Promise<void> {
    const chunks = this.kept;
    this.kept = [];
    if (chunks.length === 1) {
      await this.bucket.put(this.key, chunks[0]!);
      return;
    }
    const { readable, writable } = new FixedLengthStream(this.keptBytes);
    const put = this.bucket.put(this.key, readable);
    const writer = writable.getWriter();
    const written = (async () => {
      for (const chunk of chunks) await writer.write(chunk);
      await writer.close();
    })();
    // A failed write fails the put as well, whose error is the one reported.
    written.catch(() => {});
    try {
      await put;
    } catch (error) {
      // Nothing reads the stream any more: the writes waiting on it are ended.
      await writer.abort(error).catch(() => {});
      throw error;
    }
    await written;
  }

  /** Copies the owned chunks kept so far into the part buffer: the file outgrew what they may hold. */
  private spillKept(): void {
    if (this.kept.length === 0) return;
    this.buffer ??= new Uint8Array(PART_BYTES);
    for (const chunk of this.kept) {
      this.buffer.set(chunk, this.fill);
      this.fill += chunk.length;
    }
    this.kept = [];
    this.keptBytes = 0;
  }

  /**
   * Best-effort removal of what was written (the caller's lease also covers it, so a failure here
   * only delays the sweep). Safe to call in any state.
   */
  async abort(): Promise<void> {
    this.closed = true;
    this.buffer = null;
    this.kept = [];
    await this.digestWriter.abort().catch(() => {});
    if (this.upload) await this.upload.abort().catch(() => {});
    await this.bucket.delete(this.key).catch(() => {});
  }

  private async flushPart(): Promise<void> {
    if (!this.upload) {
      this.upload = await this.bucket.createMultipartUpload(this.key);
      await this.hooks.onMultipartStarted(this.upload.uploadId);
    }
    this.parts.push(await this.upload.uploadPart(this.parts.length + 1, this.buffer!));
    this.fill = 0;
  }
}
