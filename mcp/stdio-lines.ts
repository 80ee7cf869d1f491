/**
 * The stdio framing of `switchboard mcp`: one JSON-RPC message per line, each line at most
 * MAX_LINE_BYTES. A longer line is not kept in memory: its bytes are only scanned for the
 * request's top-level `id`, so that the client gets an error for the request it is waiting on
 * (instead of the server giving up on the whole stream, as the SDK's own transport does).
 */

/** As the SDK's stdio transport (STDIO_DEFAULT_MAX_BUFFER_SIZE). */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;

export type LineEvent =
  | { kind: 'line'; text: string }
  | { kind: 'oversize'; bytes: number; id: string | number | null };

const NEWLINE = 0x0a;
/** An id longer than this is not worth echoing (and is not one a client sent to be matched). */
const MAX_ID_TEXT = 1024;

/**
 * Finds the top-level `"id"` member of a JSON object fed to it in pieces, in bounded memory.
 * JSON's structure is ASCII, so the UTF-8 bytes can be scanned one by one.
 */
export class TopLevelIdScanner {
  private depth = 0;
  private inString = false;
  private escape = false;
  private started = false;
  private notObject = false;
  /** At depth 1: a key is expected next (after `{` or `,`). */
  private expectKey = false;
  /** The key string being read at depth 1 (only whether it is `id` matters). */
  private key: number[] | null = null;
  private lastKey = '';
  /** The raw text of the `id` value being read. */
  private value: number[] | null = null;
  private found: string | number | null = null;

  feed(bytes: Uint8Array): void {
    for (const byte of bytes) this.step(byte);
  }

  private step(byte: number): void {
    if (this.notObject) return;
    if (!this.started) {
      if (byte === 0x20 || byte === 0x09 || byte === 0x0d || byte === NEWLINE) return;
      this.started = true;
      if (byte !== 0x7b) {
        this.notObject = true;
        return;
      }
      this.depth = 1;
      this.expectKey = true;
      return;
    }
    if (this.value && this.value.length <= MAX_ID_TEXT && !(this.depth === 1 && !this.inString && isEnd(byte))) {
      this.value.push(byte);
    }
    if (this.inString) {
      if (this.escape) this.escape = false;
      else if (byte === 0x5c) this.escape = true;
      else if (byte === 0x22) {
        this.inString = false;
        if (this.key) {
          this.lastKey = this.key.length <= 2 ? String.fromCharCode(...this.key) : '';
          this.key = null;
          return;
        }
      }
      if (this.key && this.inString && this.key.length <= 2) this.key.push(byte);
      return;
    }
    switch (byte) {
      case 0x22: // "
        this.inString = true;
        if (this.depth === 1 && this.expectKey) {
          this.key = [];
          this.expectKey = false;
        }
        return;
      case 0x3a: // :
        if (this.depth === 1 && this.lastKey === 'id') this.value = [];
        return;
      case 0x7b: // {
      case 0x5b: // [
        this.depth++;
        return;
      case 0x7d: // }
      case 0x5d: // ]
        if (this.depth === 1) this.endValue();
        this.depth--;
        return;
      case 0x2c: // ,
        if (this.depth === 1) {
          this.endValue();
          this.expectKey = true;
        }
        return;
      default:
        return;
    }
  }

  private endValue(): void {
    if (this.value) {
      const text = Buffer.from(this.value).toString('utf8').trim();
      this.value = null;
      try {
        const id: unknown = text.length <= MAX_ID_TEXT ? JSON.parse(text) : null;
        this.found = typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : null;
      } catch {
        this.found = null;
      }
    }
    this.lastKey = '';
  }

  get id(): string | number | null {
    return this.found;
  }
}

const isEnd = (byte: number) => byte === 0x2c || byte === 0x7d;

/** Splits a byte stream into lines; `\r\n` counts as one line end, as in the SDK. */
export class LineReader {
  private parts: Buffer[] = [];
  private size = 0;
  /** Set while the rest of an oversize line is skipped. */
  private skipping: { scanner: TopLevelIdScanner; bytes: number } | null = null;

  constructor(
    private readonly emit: (event: LineEvent) => void,
    private readonly maxBytes = MAX_LINE_BYTES,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const end = chunk.indexOf(NEWLINE, start);
      const piece = chunk.subarray(start, end === -1 ? chunk.length : end);
      this.take(piece);
      if (end === -1) return;
      this.finishLine();
      start = end + 1;
    }
  }

  private take(piece: Buffer): void {
    if (this.skipping) {
      this.skipping.scanner.feed(piece);
      this.skipping.bytes += piece.length;
      return;
    }
    if (this.size + piece.length > this.maxBytes) {
      const scanner = new TopLevelIdScanner();
      for (const part of this.parts) scanner.feed(part);
      scanner.feed(piece);
      this.skipping = { scanner, bytes: this.size + piece.length };
      this.parts = [];
      this.size = 0;
      return;
    }
    // A copy: the stream may reuse the chunk's memory.
    if (piece.length) this.parts.push(Buffer.from(piece));
    this.size += piece.length;
  }

  private finishLine(): void {
    if (this.skipping) {
      const { scanner, bytes } = this.skipping;
      this.skipping = null;
      this.emit({ kind: 'oversize', bytes, id: scanner.id });
      return;
    }
    const text = Buffer.concat(this.parts, this.size).toString('utf8').replace(/\r$/, '');
    this.parts = [];
    this.size = 0;
    this.emit({ kind: 'line', text });
  }
}
