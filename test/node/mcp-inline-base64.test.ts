/**
 * The inline file's base64 kept as bytes (mcp/inline-base64.ts): found only where it is the
 * string value of `content_base64` (never inside another string), and decoded in place with the
 * same acceptance as the string decoder of the tool. Node has no setFromBase64, so this runs the
 * atob fallback; test/workers/mcp-remote.test.ts runs the workerd path through `/mcp`.
 */
import { describe, expect, it } from 'vitest';
import { decodeBase64InPlace, findInlineBase64 } from '../../mcp/inline-base64.js';

const encoder = new TextEncoder();
const text = (bytes: Uint8Array, span: { start: number; end: number } | null) =>
  span && new TextDecoder().decode(bytes.subarray(span.start, span.end));

describe('findInlineBase64', () => {
  it('finds the value of content_base64, whitespace and nesting as they come', () => {
    const body = encoder.encode('{"a":"x","file" : { "content_base64" :\n "QUJD", "filename":"f"}}');
    expect(text(body, findInlineBase64(body, 4))).toBe('QUJD');
  });

  it('skips values that are too short, escaped, or not base64, and keys inside strings', () => {
    for (const json of [
      '{"content_base64":"QUJ"}',
      '{"content_base64":"QU\\u004aD"}',
      '{"content_base64":"QU JD"}',
      '{"body":"\\"content_base64\\":\\"QUJDQUJD\\""}',
      '{"content_base64": 12345678}',
      '{"x":"content_base64","y":"QUJDQUJD"}',
    ]) {
      expect(findInlineBase64(encoder.encode(json), 4), json).toBeNull();
    }
    const later = encoder.encode('{"content_base64":"QUJ","file":{"content_base64":"QUJDQUJD"}}');
    expect(text(later, findInlineBase64(later, 4))).toBe('QUJDQUJD');
  });

  it('gives up on an unterminated string', () => {
    expect(findInlineBase64(encoder.encode('{"content_base64":"QUJDQUJD'), 4)).toBeNull();
  });
});

describe('decodeBase64InPlace', () => {
  const bytes = Uint8Array.from({ length: 200_003 }, (_, i) => (i * 7 + (i >> 9)) & 0xff);
  const valid = Buffer.from(bytes).toString('base64');

  it('decodes into the same buffer, across steps, with either padding', () => {
    for (const length of [0, 1, 2, 3, 49_151, 200_003]) {
      const input = encoder.encode(Buffer.from(bytes.subarray(0, length)).toString('base64'));
      const out = decodeBase64InPlace(input);
      expect(out?.buffer).toBe(input.buffer);
      expect(Buffer.from(out!).equals(Buffer.from(bytes.subarray(0, length)))).toBe(true);
    }
  });

  it('refuses what the string decoder refuses: length, padding inside or too long', () => {
    for (const bad of [`${valid}A`, `A${valid.slice(1, 100)}=${valid.slice(101)}`, 'QQ=A', 'Q===', '====']) {
      expect(decodeBase64InPlace(encoder.encode(bad)), bad.slice(0, 20)).toBeNull();
    }
  });
});
