/**
 * Content-Disposition, the one place it is written and read (RFC 6266, RFC 8187, RFC 7578):
 * the worker writes it on downloads, the multipart parser reads it on every uploaded part, and the
 * CLI and both MCP servers read a download's file name from it.
 *
 * File names are the sender's metadata, stored exactly as sent and never used as a storage key.
 * Only when a name is put into a response header is it made safe for display: no control or
 * format characters (so no CR/LF header injection, no right-to-left override), no path
 * separators, and an RFC 6266 header with an ASCII fallback plus the RFC 8187 UTF-8 form.
 *
 * Not the `content-disposition` npm package (2.0.1, evaluated): its `create` writes
 * `?` fallbacks and backslash-escaped quotes, not these safe headers, and its `parse` is graceful
 * by design (the first of two `name` parameters wins, an unterminated quote or an undecodable
 * `filename*` is silently dropped), where an upload must be refused with a structured error. A
 * wrapper restoring both would be longer than this module. It needs no Node API, so it runs in
 * workerd, the CLI and the launcher alike.
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
export function contentDisposition(filename: string, type: 'attachment' | 'inline' = 'attachment'): string {
  const display = displayFilename(filename);
  return `${type}; filename="${asciiFallback(display)}"; filename*=UTF-8''${encodeExtValue(display)}`;
}

/** A header value that breaks the parameter grammar; `detail` says how, for the caller's error. */
export class HeaderParamError extends Error {
  constructor(readonly detail: string) {
    super(detail);
  }
}

/**
 * Splits a header value `type; key=value; key="quoted"` into its leading token and its parameters
 * (keys lower-cased, quoted strings unescaped: `\"` and `\\` only, other backslashes are literal,
 * because browsers send Windows-style names unescaped). Throws HeaderParamError on broken syntax.
 */
export function splitHeaderParams(value: string): [string, ...[string, string][]] {
  let at = 0;
  const skipSpace = () => {
    while (at < value.length && (value[at] === ' ' || value[at] === '\t')) at++;
  };
  skipSpace();
  let first = '';
  while (at < value.length && value[at] !== ';') first += value[at++];
  const params: [string, string][] = [];
  while (at < value.length) {
    at++; // the ';'
    skipSpace();
    let key = '';
    while (at < value.length && value[at] !== '=' && value[at] !== ';') key += value[at++];
    key = key.trim().toLowerCase();
    if (value[at] !== '=') {
      if (key) throw new HeaderParamError(`parameter "${key}" has no value`);
      continue;
    }
    at++; // the '='
    skipSpace();
    let text = '';
    if (value[at] === '"') {
      at++;
      let closed = false;
      while (at < value.length) {
        const ch = value[at++]!;
        if (ch === '"') {
          closed = true;
          break;
        }
        if (ch === '\\' && (value[at] === '"' || value[at] === '\\')) text += value[at++];
        else text += ch;
      }
      if (!closed) throw new HeaderParamError(`parameter "${key}" has an unterminated quoted string`);
      skipSpace();
      if (at < value.length && value[at] !== ';')
        throw new HeaderParamError(`unexpected text after parameter "${key}"`);
    } else {
      while (at < value.length && value[at] !== ';') text += value[at++];
      text = text.trim();
    }
    params.push([key, text]);
  }
  return [first.trim(), ...params];
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** RFC 8187 ext-value (`UTF-8''%E2%82%AC.txt`); null when it is not UTF-8 or not decodable. */
export function decodeExtValue(text: string): string | null {
  const match = /^([A-Za-z0-9!#$%&+^_`{}~-]+)'[^']*'(.*)$/.exec(text);
  if (!match || match[1]!.toLowerCase() !== 'utf-8') return null;
  const raw = match[2]!;
  const bytes: number[] = [];
  for (let i = 0; i < raw.length; i++) {
    if (raw[i] === '%' && /^[0-9A-Fa-f]{2}$/.test(raw.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(raw.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      const code = raw.charCodeAt(i);
      if (code > 0x7e) return null;
      bytes.push(code);
    }
  }
  try {
    return strictUtf8.decode(new Uint8Array(bytes));
  } catch {
    return null;
  }
}

/**
 * The file name of a download's header, for the CLI and the MCP servers: `filename*` wins over
 * the plain `filename` (RFC 6266 §4.3); null when there is none or the header does not parse.
 */
export function filenameFromDisposition(header: string | null): string | null {
  if (!header) return null;
  let params: [string, string][];
  try {
    [, ...params] = splitHeaderParams(header);
  } catch {
    return null;
  }
  const values = new Map(params);
  const extended = values.get('filename*');
  const decoded = extended === undefined ? null : decodeExtValue(extended);
  if (decoded) return decoded;
  return values.get('filename')?.trim() || null;
}
