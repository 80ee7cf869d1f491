import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../core/contract/errors.js';
import {
  type MultipartEvent,
  MultipartParser,
  multipartBoundary,
  parsePartHeaders,
} from '../../worker/body/multipart.js';
import { multipartBody } from './multipart-body.js';

const enc = new TextEncoder();
const dec = new TextDecoder();

interface Parsed {
  parts: { name: string; filename: string | null; contentType: string | null; data: Uint8Array }[];
  done: boolean;
}

/** Feeds `body` split at `cuts` and collects the parts. */
function parse(body: Uint8Array, boundary: string, cuts: number[] = []): Parsed {
  const parser = new MultipartParser(boundary);
  const events: MultipartEvent[] = [];
  let at = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    events.push(...parser.push(body.subarray(at, cut)));
    at = cut;
  }
  events.push(...parser.push(body.subarray(at)));
  parser.end();
  const parts: Parsed['parts'] = [];
  let done = false;
  for (const e of events) {
    if (e.type === 'part') parts.push({ ...e.headers, data: new Uint8Array(0) });
    else if (e.type === 'data') {
      const last = parts.at(-1)!;
      const joined = new Uint8Array(last.data.length + e.bytes.length);
      joined.set(last.data);
      joined.set(e.bytes, last.data.length);
      last.data = joined;
    } else if (e.type === 'done') done = true;
  }
  return { parts, done };
}

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return error.code;
    throw error;
  }
  return 'no error';
}

describe('multipart boundary', () => {
  it('reads quoted and plain boundaries and refuses other types', () => {
    expect(multipartBoundary('multipart/form-data; boundary=abc123')).toBe('abc123');
    expect(multipartBoundary('Multipart/Form-Data; charset=utf-8; boundary="a b:c"')).toBe('a b:c');
    expect(multipartBoundary('application/json')).toBeNull();
    expect(multipartBoundary(undefined)).toBeNull();
    expect(code(() => multipartBoundary('multipart/form-data'))).toBe('validation_failed');
    expect(code(() => multipartBoundary('multipart/form-data; boundary=bad\u0001'))).toBe('validation_failed');
    expect(code(() => multipartBoundary(`multipart/form-data; boundary=${'x'.repeat(71)}`))).toBe('validation_failed');
  });
});

describe('part headers', () => {
  const h = (text: string) => parsePartHeaders(enc.encode(text));

  it('keeps a hostile file name exactly, as metadata', () => {
    expect(h('Content-Disposition: form-data; name="file"; filename="../../etc/passwd"').filename).toBe(
      '../../etc/passwd',
    );
    expect(h('Content-Disposition: form-data; name="file"; filename="C:\\temp\\a.txt"').filename).toBe(
      'C:\\temp\\a.txt',
    );
  });

  it('decodes the form encoding of quotes and newlines, and backslash escapes', () => {
    expect(h('Content-Disposition: form-data; name="file"; filename="say %22hi%22%0D%0A.txt"').filename).toBe(
      'say "hi"\r\n.txt',
    );
    expect(h('Content-Disposition: form-data; name="file"; filename="a\\"b"').filename).toBe('a"b');
    expect(h('Content-Disposition: form-data; name="file"; filename="100%41"').filename).toBe('100%41');
  });

  it('reads raw UTF-8 names and RFC 8187 filename*, which wins', () => {
    expect(h('Content-Disposition: form-data; name="file"; filename="résumé €.pdf"').filename).toBe('résumé €.pdf');
    expect(
      h(`Content-Disposition: form-data; name="file"; filename="fallback"; filename*=UTF-8''%E2%82%AC%20rates.txt`)
        .filename,
    ).toBe('€ rates.txt');
  });

  it('refuses invalid UTF-8 in headers and malformed dispositions', () => {
    const bad = new Uint8Array([...enc.encode('Content-Disposition: form-data; name="file"; filename="'), 0xff, 0x22]);
    expect(code(() => parsePartHeaders(bad))).toBe('invalid_unicode');
    expect(code(() => h(`Content-Disposition: form-data; name="file"; filename*=UTF-8''%FF`))).toBe('invalid_unicode');
    expect(code(() => h('Content-Type: text/plain'))).toBe('validation_failed');
    expect(code(() => h('Content-Disposition: attachment; name="x"'))).toBe('validation_failed');
    expect(code(() => h('Content-Disposition: form-data; filename="x"'))).toBe('validation_failed');
    expect(code(() => h('Content-Disposition: form-data; name="x'))).toBe('validation_failed');
    expect(code(() => h('Content-Disposition: form-data; name="a"; name="b"'))).toBe('validation_failed');
  });

  it('reads the part content type', () => {
    expect(
      h('Content-Disposition: form-data; name="file"\r\nContent-Type:  text/plain; charset=utf-8 ').contentType,
    ).toBe('text/plain; charset=utf-8');
    expect(h('content-disposition: form-data; name="metadata"').contentType).toBeNull();
  });
});

describe('streaming parse', () => {
  const B = 'XyZ-boundary-42';

  it('splits metadata and file, bytes untouched', () => {
    const fileBytes = new Uint8Array([0, 13, 10, 45, 45, 255, 13, 10]);
    const parsed = parse(
      multipartBody(B, [
        { headers: 'Content-Disposition: form-data; name="metadata"', data: '{"body":"hi"}' },
        {
          headers: 'Content-Disposition: form-data; name="file"; filename="a.bin"\r\nContent-Type: application/x-a',
          data: fileBytes,
        },
      ]),
      B,
    );
    expect(parsed.done).toBe(true);
    expect(parsed.parts.map((p) => p.name)).toEqual(['metadata', 'file']);
    expect(dec.decode(parsed.parts[0]!.data)).toBe('{"body":"hi"}');
    expect([...parsed.parts[1]!.data]).toEqual([...fileBytes]);
    expect(parsed.parts[1]!.filename).toBe('a.bin');
    expect(parsed.parts[1]!.contentType).toBe('application/x-a');
  });

  it('gives the same parts however the body is chunked (every split point, random contents)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 300 }),
        fc.string({ maxLength: 40 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        (file, text, rawCuts) => {
          const whole = multipartBody(
            B,
            [
              { headers: 'Content-Disposition: form-data; name="metadata"', data: JSON.stringify({ body: text }) },
              { headers: 'Content-Disposition: form-data; name="file"; filename="f"', data: file },
            ],
            'preamble text\r\n',
          );
          const cuts = rawCuts.map((c) => c % (whole.length + 1));
          const parsed = parse(whole, B, cuts);
          expect(parsed.parts).toHaveLength(2);
          expect(JSON.parse(dec.decode(parsed.parts[0]!.data))).toEqual({ body: text });
          expect([...parsed.parts[1]!.data]).toEqual([...file]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('handles every single split point of a body whose data looks like a boundary', () => {
    // Near-delimiters only: a real delimiter inside content would end the part (the sender picks the boundary).
    const tricky = enc.encode(`\r\n--${B.slice(0, -1)}?\r\n-${B}\r\r\n--${B.slice(1)}\r`);
    const whole = multipartBody(B, [
      { headers: 'Content-Disposition: form-data; name="file"; filename="t"', data: tricky },
    ]);
    for (let cut = 0; cut <= whole.length; cut++) {
      const parsed = parse(whole, B, [cut]);
      expect([...parsed.parts[0]!.data]).toEqual([...tricky]);
    }
    // One byte at a time.
    const parsed = parse(
      whole,
      B,
      Array.from({ length: whole.length }, (_, i) => i),
    );
    expect([...parsed.parts[0]!.data]).toEqual([...tricky]);
  });

  it('accepts an empty file and a part without headers other than the disposition', () => {
    const parsed = parse(
      multipartBody(B, [{ headers: 'Content-Disposition: form-data; name="file"; filename=""', data: '' }]),
      B,
    );
    expect(parsed.parts[0]!.data.length).toBe(0);
    expect(parsed.parts[0]!.filename).toBe('');
  });

  it('refuses truncated bodies, missing CRLF and oversized header blocks or preambles', () => {
    const whole = multipartBody(B, [{ headers: 'Content-Disposition: form-data; name="metadata"', data: '{}' }]);
    expect(code(() => parse(whole.subarray(0, whole.length - 6), B))).toBe('validation_failed');
    expect(code(() => parse(enc.encode(`--${B}xx\r\n`), B))).toBe('validation_failed');
    expect(code(() => parse(enc.encode(`--${B}--\r\n`), B))).toBe('validation_failed');
    const bigHeader = enc.encode(
      `--${B}\r\nContent-Disposition: form-data; name="a"; x="${'y'.repeat(20_000)}"\r\n\r\n`,
    );
    expect(code(() => new MultipartParser(B).push(bigHeader))).toBe('validation_failed');
    expect(code(() => new MultipartParser(B).push(new Uint8Array(20_000)))).toBe('validation_failed');
    const epilogue = new Uint8Array([...whole, ...new Uint8Array(20_000)]);
    expect(code(() => parse(epilogue, B))).toBe('validation_failed');
  });

  it('handles every pair of split points around near-delimiters (tail joined with a chunk head)', () => {
    const tricky = enc.encode(`x\r\n--${B.slice(0, -1)}?\r\n-${B}\r\r\n--${B.slice(1)}\ry`);
    const whole = multipartBody(B, [
      { headers: 'Content-Disposition: form-data; name="file"; filename="t"', data: tricky },
    ]);
    for (let a = 0; a <= whole.length; a += 1) {
      for (let b = a; b <= whole.length; b += 3) {
        const parsed = parse(whole, B, [a, b]);
        expect(parsed.done).toBe(true);
        expect(dec.decode(parsed.parts[0]!.data)).toBe(dec.decode(tricky));
      }
    }
  });

  it('passes a file chunk on without copying it (only the held-back tail is a copy)', () => {
    const parser = new MultipartParser(B);
    parser.push(enc.encode(`--${B}\r\nContent-Disposition: form-data; name="file"; filename="x"\r\n\r\n`));
    parser.push(new Uint8Array(1000).fill(1));
    const chunk = new Uint8Array(100_000).fill(7);
    const events = parser.push(chunk);
    const data = events.flatMap((e) => (e.type === 'data' ? [e.bytes] : []));
    // The tail of the previous chunk, then a view of this chunk's own bytes.
    expect(data).toHaveLength(2);
    expect(data[0]!.length).toBeLessThan(B.length + 4);
    expect(data[1]!.buffer).toBe(chunk.buffer);
    expect(data[0]!.length + data[1]!.length).toBe(100_000);
  });

  it('streams data out without holding it: only a delimiter-length tail stays behind', () => {
    const parser = new MultipartParser(B);
    parser.push(enc.encode(`--${B}\r\nContent-Disposition: form-data; name="file"; filename="x"\r\n\r\n`));
    const events = parser.push(new Uint8Array(100_000).fill(7));
    const emitted = events.reduce((n, e) => n + (e.type === 'data' ? e.bytes.length : 0), 0);
    expect(emitted).toBeGreaterThanOrEqual(100_000 - (B.length + 4));
  });
});
