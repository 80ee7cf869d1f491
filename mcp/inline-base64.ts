/**
 * An inline file's base64 kept as the bytes it arrived in, instead of three more copies of it.
 *
 * Parsed the ordinary way, a `send_message` call carrying a 4 MB file costs its 5.3 MB of base64
 * four times over: the body's bytes, the body decoded to a string for JSON.parse, the string
 * JSON.parse makes of the value, and the decoded file. So the host (worker/mcp.ts) finds the one
 * large `content_base64` string in the body's bytes (`findInlineBase64`), parses the rest with a
 * placeholder in its place, and `decodeBase64InPlace` later turns those bytes into the file where
 * they lie: the body's buffer is the only copy until the upload stages it.
 *
 * Nothing of a call's meaning changes: only a string made of base64 characters alone (no escape,
 * so its bytes are its characters) is kept aside, JSON stays valid or invalid as it was, and the
 * host falls back to the ordinary parse whenever the placeholder does not end up as the file of
 * an upload tool's call. Runtime-independent (no `node:` imports).
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const EQUALS = 0x3d;

/** The key whose string value may be kept aside, quotes included, as it is written without escapes. */
const KEY = new TextEncoder().encode('"content_base64"');

/** 1 for the standard base64 alphabet and its padding character. */
const BASE64_BYTE = new Uint8Array(256);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=') BASE64_BYTE[c.charCodeAt(0)] = 1;

const isSpace = (b: number | undefined) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;

/** The index of the quote closing the string opened at `open`, or -1 when it is never closed. */
function stringEnd(bytes: Uint8Array, open: number): number {
  for (let at = open + 1; at < bytes.length; at++) {
    const b = bytes[at];
    if (b === QUOTE) return at;
    if (b === BACKSLASH) at++;
  }
  return -1;
}

function isKey(bytes: Uint8Array, open: number, close: number): boolean {
  if (close + 1 - open !== KEY.length) return false;
  for (let i = 0; i < KEY.length; i++) if (bytes[open + i] !== KEY[i]) return false;
  return true;
}

function allBase64(bytes: Uint8Array, from: number, to: number): boolean {
  for (let at = from; at < to; at++) if (BASE64_BYTE[bytes[at]!] === 0) return false;
  return true;
}

/**
 * Where the first `"content_base64"` value of at least `minLength` characters, all of them base64
 * characters, lies in a JSON text's bytes: from its first character to its closing quote. A quote
 * outside a string always opens one, so strings are found by their quotes and escapes alone,
 * whatever the JSON around them (a malformed body is then refused by the parse as before).
 */
export function findInlineBase64(bytes: Uint8Array, minLength: number): { start: number; end: number } | null {
  for (let at = 0; at < bytes.length; at++) {
    if (bytes[at] !== QUOTE) continue;
    const close = stringEnd(bytes, at);
    if (close < 0) return null;
    let next = close + 1;
    while (isSpace(bytes[next])) next++;
    if (bytes[next] === COLON && isKey(bytes, at, close)) {
      next++;
      while (isSpace(bytes[next])) next++;
      if (bytes[next] === QUOTE) {
        const end = stringEnd(bytes, next);
        if (end < 0) return null;
        if (end - next - 1 >= minLength && allBase64(bytes, next + 1, end)) return { start: next + 1, end };
        at = end;
        continue;
      }
    }
    at = close;
  }
  return null;
}

/** Base64 characters per step: whole quanta, small enough that each step's string is young garbage. */
const STEP_CHARS = 48 * 1024;
const ascii = new TextDecoder();

type FromBase64Target = Uint8Array & {
  setFromBase64?: (text: string) => { read: number; written: number };
};

/**
 * Decodes base64 text given as its bytes (base64 characters only, as `findInlineBase64` found
 * them) into the same bytes, and answers the view of the result; null when it is not strict
 * standard base64 (a length that is not a multiple of 4, or `=` anywhere but in the last two
 * places), exactly what the string decoder of the tool (mcp/remote.ts) refuses. Each step's
 * output ends before the next step's input begins (3 bytes out for every 4 in), so the text is
 * never overwritten before it is read.
 */
export function decodeBase64InPlace(text: Uint8Array<ArrayBuffer>): Uint8Array<ArrayBuffer> | null {
  const length = text.length;
  if (length % 4 !== 0) return null;
  let padding = 0;
  if (length > 0 && text[length - 1] === EQUALS) padding = text[length - 2] === EQUALS ? 2 : 1;
  if (text.subarray(0, length - padding).includes(EQUALS)) return null;
  let written = 0;
  for (let at = 0; at < length; at += STEP_CHARS) {
    const step = ascii.decode(text.subarray(at, Math.min(length, at + STEP_CHARS)));
    const target = text.subarray(written) as FromBase64Target;
    if (target.setFromBase64) {
      try {
        written += target.setFromBase64(step).written;
      } catch {
        return null;
      }
    } else {
      let binary: string;
      try {
        binary = atob(step);
      } catch {
        return null;
      }
      for (let i = 0; i < binary.length; i++) text[written + i] = binary.charCodeAt(i);
      written += binary.length;
    }
  }
  return text.subarray(0, written);
}
