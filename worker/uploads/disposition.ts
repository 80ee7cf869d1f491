/**
 * File names are the sender's metadata, stored exactly as sent and never used as a storage key.
 * Only when a name is put into a response header is it made safe for display: no control or
 * format characters (so no CR/LF header injection, no right-to-left override), no path
 * separators, and an RFC 6266 header with an ASCII fallback plus the RFC 8187 UTF-8 form.
 */

/** The longest name put into a header (code points); the stored metadata keeps the whole name. */
export const DISPLAY_NAME_MAX = 200;
const FALLBACK_NAME = 'file';

/**
 * Characters a display name must not carry: controls (C0, DEL, C1), line and paragraph
 * separators, lone surrogates, and format characters (Cf), among them the bidirectional
 * overrides, embeddings, isolates and marks (U+202A-202E, U+2066-2069, U+200E/F, U+061C) that make
 * `invoice\u202Efdp.exe` look like `invoiceexe.pdf`, and invisible ones (U+200B, U+2060, U+FEFF,
 * soft hyphen). ZWJ and ZWNJ (U+200D, U+200C) stay: emoji sequences and Persian, Arabic or Indic
 * names need them and they cannot reorder text.
 */
const UNSAFE = /[\p{Cc}\p{Zl}\p{Zp}\p{Cs}]|(?![\u200c\u200d])\p{Cf}/u;

/** A name for display: unsafe characters and path separators become `_`, never empty. */
export function displayFilename(filename: string): string {
  let out = '';
  let count = 0;
  for (const ch of filename) {
    if (count >= DISPLAY_NAME_MAX) break;
    out += UNSAFE.test(ch) || ch === '/' || ch === '\\' ? '_' : ch;
    count++;
  }
  return out.trim() === '' ? FALLBACK_NAME : out;
}

/** The plain `filename="…"` value: printable ASCII only, no quote, backslash or percent sign. */
export function asciiFallback(display: string): string {
  let out = '';
  for (const ch of display) {
    const code = ch.codePointAt(0)!;
    out += code < 0x20 || code > 0x7e || ch === '"' || ch === '\\' || ch === '%' ? '_' : ch;
  }
  return out;
}

const ATTR_CHAR = /^[A-Za-z0-9!#$&+\-.^_`|~]$/;

/** RFC 8187 value-chars: UTF-8 bytes, percent-encoded except attr-char. */
export function encodeExtValue(text: string): string {
  let out = '';
  for (const ch of text) {
    if (ATTR_CHAR.test(ch)) {
      out += ch;
      continue;
    }
    for (const byte of new TextEncoder().encode(ch)) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** `attachment; filename="<ascii>"; filename*=UTF-8''<pct-encoded>` for a stored file name. */
export function contentDisposition(filename: string): string {
  const display = displayFilename(filename);
  return `attachment; filename="${asciiFallback(display)}"; filename*=UTF-8''${encodeExtValue(display)}`;
}
