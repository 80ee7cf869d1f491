/**
 * A streaming multipart/form-data parser (RFC 7578 over RFC 2046). It is a push parser: the caller
 * feeds the request body chunk by chunk and gets events back, so a part's bytes can be written on
 * (to R2) as they arrive and nothing but a delimiter's worth of bytes is ever held back. Header
 * blocks, the preamble and the epilogue are bounded; a malformed body is `validation_failed`.
 *
 * Written here rather than taken from a library (evaluated again in December 2026):
 * - @remix-run/multipart-parser 0.16.3, the web-stream parser, yields a part only once it is
 *   complete, with its bytes collected in memory (`MultipartPart.content: Uint8Array[]`, capped by
 *   `maxFileSize`, 2 MiB by default): a 50 MB upload would be buffered whole before R2 saw a byte.
 *   It also refuses a preamble (RFC 2046 allows one) and has its own error classes, so our limits
 *   and codes would need a wrapper as long as this file.
 * - busboy and formidable are built on Node streams (node:stream, Buffer), which workerd offers only
 *   through nodejs_compat polyfills, and busboy's header decoding is Latin-1 by default.
 * The job is a small state machine, proven by test/workers/multipart.test.ts (which splits bodies
 * at every byte) and the hostile corpus, that is easier to check than a dependency is to audit.
 * The Content-Disposition grammar it shares with downloads and clients is
 * core/lib/content-disposition.ts.
 */
import { ApiError } from '../../core/contract/errors.js';
import { decodeExtValue, HeaderParamError, splitHeaderParams } from '../../core/lib/content-disposition.js';

export interface PartHeaders {
  /** The `name` parameter of Content-Disposition. */
  name: string;
  /** The file name as the client sent it (RFC 7578 §4.2), decoded; null when the part has none. */
  filename: string | null;
  /** The part's Content-Type header value, trimmed; null when absent. */
  contentType: string | null;
}

export type MultipartEvent =
  | { type: 'part'; headers: PartHeaders }
  | { type: 'data'; bytes: Uint8Array }
  | { type: 'end-part' }
  | { type: 'done' };

export interface MultipartLimits {
  /** The largest header block of one part. */
  maxHeaderBytes: number;
  /** Bytes tolerated before the first boundary and after the closing one. */
  maxPreambleBytes: number;
  maxEpilogueBytes: number;
}

export const DEFAULT_MULTIPART_LIMITS: MultipartLimits = {
  maxHeaderBytes: 16 * 1024,
  maxPreambleBytes: 16 * 1024,
  maxEpilogueBytes: 16 * 1024,
};

const CR = 0x0d;
const LF = 0x0a;
const DASH = 0x2d;
const SPACE = 0x20;
const TAB = 0x09;
const HEADER_END = new Uint8Array([CR, LF, CR, LF]);
/** RFC 2046 §5.1.1 bchars, without the trailing-space rule (checked separately). */
const BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

function malformed(detail: string): ApiError {
  return new ApiError('validation_failed', `Malformed multipart/form-data body: ${detail}.`);
}

/** The boundary of a `multipart/form-data` Content-Type, or null when the type is not that. */
export function multipartBoundary(contentType: string | null | undefined): string | null {
  if (!contentType) return null;
  const [type, ...rest] = splitParams(contentType);
  if (type?.toLowerCase() !== 'multipart/form-data') return null;
  for (const [key, value] of rest) {
    if (key === 'boundary') {
      if (!BOUNDARY.test(value)) throw malformed('the boundary parameter is not a valid RFC 2046 boundary');
      return value;
    }
  }
  throw malformed('the Content-Type has no boundary parameter');
}

/** The shared parameter grammar, its syntax errors reported as this parser's malformed body. */
function splitParams(value: string): [string, ...[string, string][]] {
  try {
    return splitHeaderParams(value);
  } catch (error) {
    if (error instanceof HeaderParamError) throw malformed(error.detail);
    throw error;
  }
}

/**
 * The HTML form encoding (which fetch's FormData follows) writes `"` CR LF in a file name as `%22`
 * `%0D` `%0A`; those three are decoded, nothing else, so a name containing `%41` stays `%41`.
 */
function decodeFormFilename(text: string): string {
  return text.replace(/%(22|0D|0A)/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/** Parses one part's header block (raw bytes between the boundary line and the blank line). */
export function parsePartHeaders(block: Uint8Array): PartHeaders {
  let text: string;
  try {
    text = strictUtf8.decode(block);
  } catch {
    throw new ApiError('invalid_unicode', 'A multipart part header is not valid UTF-8.', { field: 'file' });
  }
  let disposition: string | null = null;
  let contentType: string | null = null;
  for (const line of text.length === 0 ? [] : text.split('\r\n')) {
    if (line.startsWith(' ') || line.startsWith('\t')) throw malformed('folded part headers are not supported');
    const colon = line.indexOf(':');
    if (colon <= 0) throw malformed('a part header line has no name');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'content-disposition') {
      if (disposition !== null) throw malformed('a part has two Content-Disposition headers');
      disposition = value;
    } else if (name === 'content-type') {
      if (contentType !== null) throw malformed('a part has two Content-Type headers');
      contentType = value;
    }
  }
  if (disposition === null) throw malformed('a part has no Content-Disposition header');
  const [kind, ...params] = splitParams(disposition);
  if (kind.toLowerCase() !== 'form-data') throw malformed('a part is not form-data');
  const values = new Map<string, string>();
  for (const [key, value] of params) {
    if (values.has(key)) throw malformed(`a part repeats the "${key}" parameter`);
    values.set(key, value);
  }
  const name = values.get('name');
  if (name === undefined) throw malformed('a part has no name');
  let filename: string | null = null;
  const extended = values.get('filename*');
  if (extended !== undefined) {
    filename = decodeExtValue(extended);
    if (filename === null)
      throw new ApiError('invalid_unicode', 'The filename* parameter is not UTF-8.', { field: 'file' });
  } else if (values.has('filename')) {
    filename = decodeFormFilename(values.get('filename')!);
  }
  if (filename !== null && !filename.isWellFormed()) {
    throw new ApiError('invalid_unicode', 'The file name is not well-formed Unicode.', { field: 'file' });
  }
  return { name, filename, contentType: contentType || null };
}

/** Boyer-Moore-Horspool search of `needle` in `haystack` from `from`; -1 when absent. */
function search(haystack: Uint8Array, needle: Uint8Array, skip: Int32Array, from: number): number {
  const last = needle.length - 1;
  let at = from;
  while (at + last < haystack.length) {
    let j = last;
    while (j >= 0 && haystack[at + j] === needle[j]) j--;
    if (j < 0) return at;
    at += skip[haystack[at + last]!]!;
  }
  return -1;
}

function skipTable(needle: Uint8Array): Int32Array {
  const table = new Int32Array(256).fill(needle.length);
  for (let i = 0; i < needle.length - 1; i++) table[needle[i]!] = needle.length - 1 - i;
  return table;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

type State = 'preamble' | 'after-delimiter' | 'headers' | 'body' | 'epilogue';

export class MultipartParser {
  /** `CRLF--boundary`: the body is read as if it began with CRLF, so the first boundary needs no special case. */
  private readonly delimiter: Uint8Array;
  private readonly delimiterSkip: Int32Array;
  private readonly headerSkip = skipTable(HEADER_END);
  private readonly limits: MultipartLimits;
  private state: State = 'preamble';
  private pending: Uint8Array = new Uint8Array([CR, LF]);
  private outside = 0;
  private sawPart = false;

  constructor(boundary: string, limits: MultipartLimits = DEFAULT_MULTIPART_LIMITS) {
    this.delimiter = encoder.encode(`\r\n--${boundary}`);
    this.delimiterSkip = skipTable(this.delimiter);
    this.limits = limits;
  }

  get finished(): boolean {
    return this.state === 'epilogue';
  }

  /** Feeds the next chunk of the body; returns what it completed, in order. */
  push(chunk: Uint8Array): MultipartEvent[] {
    const events: MultipartEvent[] = [];
    // Inside a file the held-back tail (shorter than the delimiter) is joined with only the head
    // of the next chunk, not the whole chunk: copying every chunk doubled the bytes an upload
    // allocates, and the garbage of a 50 MB file showed in workerd's resident memory. When no
    // delimiter starts in the tail, the tail is plain data and the chunk is parsed as it is.
    if (this.state === 'body' && this.pending.length > 0 && chunk.length >= this.delimiter.length) {
      const joint = concat(this.pending, chunk.subarray(0, this.delimiter.length - 1));
      if (search(joint, this.delimiter, this.delimiterSkip, 0) < 0) {
        events.push({ type: 'data', bytes: this.pending });
        this.pending = new Uint8Array(0);
      }
    }
    const data = concat(this.pending, chunk);
    let at = 0;
    for (;;) {
      if (this.state === 'preamble') {
        const found = search(data, this.delimiter, this.delimiterSkip, at);
        if (found < 0) {
          const keep = Math.max(at, data.length - (this.delimiter.length - 1));
          this.countOutside(keep - at, this.limits.maxPreambleBytes, 'preamble');
          at = keep;
          break;
        }
        this.countOutside(found - at, this.limits.maxPreambleBytes, 'preamble');
        at = found + this.delimiter.length;
        this.state = 'after-delimiter';
      } else if (this.state === 'after-delimiter') {
        // `--` closes the body; otherwise optional transport padding, then CRLF.
        if (data.length - at < 2) break;
        if (data[at] === DASH && data[at + 1] === DASH) {
          if (!this.sawPart) throw malformed('the body has no parts');
          at += 2;
          this.state = 'epilogue';
          this.outside = 0;
          events.push({ type: 'done' });
          continue;
        }
        let end = at;
        while (end < data.length && (data[end] === SPACE || data[end] === TAB)) end++;
        if (end - at > 64) throw malformed('too much padding after a boundary');
        if (data.length - end < 2) break;
        if (data[end] !== CR || data[end + 1] !== LF) throw malformed('a boundary is not followed by CRLF');
        // Keep the CRLF: the header search below looks for CRLF CRLF from it, so an empty header block works.
        at = end;
        this.state = 'headers';
      } else if (this.state === 'headers') {
        const found = search(data, HEADER_END, this.headerSkip, at);
        if (found < 0) {
          if (data.length - at > this.limits.maxHeaderBytes) throw malformed('a part header block is too large');
          break;
        }
        if (found - at > this.limits.maxHeaderBytes) throw malformed('a part header block is too large');
        const block = found === at ? new Uint8Array(0) : data.subarray(at + 2, found);
        events.push({ type: 'part', headers: parsePartHeaders(block) });
        this.sawPart = true;
        at = found + HEADER_END.length;
        this.state = 'body';
      } else if (this.state === 'body') {
        const found = search(data, this.delimiter, this.delimiterSkip, at);
        if (found < 0) {
          const safe = data.length - (this.delimiter.length - 1);
          if (safe > at) {
            events.push({ type: 'data', bytes: data.subarray(at, safe) });
            at = safe;
          }
          break;
        }
        if (found > at) events.push({ type: 'data', bytes: data.subarray(at, found) });
        events.push({ type: 'end-part' });
        at = found + this.delimiter.length;
        this.state = 'after-delimiter';
      } else {
        this.countOutside(data.length - at, this.limits.maxEpilogueBytes, 'epilogue');
        at = data.length;
        break;
      }
    }
    // A copy: the events may alias `data`, and the caller owns those bytes from now on.
    this.pending = at >= data.length ? new Uint8Array(0) : data.slice(at);
    return events;
  }

  /** The body ended: it must have been closed by `--boundary--`. */
  end(): void {
    if (this.state !== 'epilogue') throw malformed('the body ended before the closing boundary');
  }

  private countOutside(bytes: number, limit: number, what: string): void {
    this.outside += bytes;
    if (this.outside > limit) throw malformed(`the ${what} is too large`);
  }
}
