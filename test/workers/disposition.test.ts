import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
/** What a client reads is the same module's reader, so every round trip below also checks it. */
import { contentDisposition, displayFilename, filenameFromDisposition } from '../../core/lib/content-disposition.js';

/** A header value a Fetch implementation accepts: no CR, LF or NUL, and only Latin-1 code units. */
function headerSafe(value: string): boolean {
  return !/[\r\n\0]/.test(value) && [...value].every((ch) => ch.charCodeAt(0) <= 0xff);
}

describe('Content-Disposition for stored file names', () => {
  it('keeps path-like names as harmless display names', () => {
    const header = contentDisposition('../../etc/passwd');
    expect(header).toBe(`attachment; filename=".._.._etc_passwd"; filename*=UTF-8''.._.._etc_passwd`);
    expect(displayFilename('C:\\Windows\\system.ini')).toBe('C:_Windows_system.ini');
  });

  it('cannot be broken out of with quotes, CR/LF or parameters', () => {
    const header = contentDisposition('a"; filename="evil.html\r\nSet-Cookie: x=1\r\n\r\n<script>');
    expect(headerSafe(header)).toBe(true);
    expect(header.startsWith('attachment; filename="a_; filename=_evil.html__Set-Cookie: x=1____<script>"; ')).toBe(
      true,
    );
    // Exactly two parameters: the quoted fallback has no inner quote, the extended value no ';' or space.
    expect(header.match(/"/g)).toHaveLength(2);
    const ext = header.slice(header.indexOf("filename*=UTF-8''") + "filename*=UTF-8''".length);
    expect(ext).toMatch(/^[A-Za-z0-9!#$&+\-.^_`|~%]+$/);
  });

  it('encodes non-ASCII names in filename* with an ASCII fallback', () => {
    const header = contentDisposition('résumé €.pdf');
    expect(header).toBe(`attachment; filename="r_sum_ _.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%E2%82%AC.pdf`);
    expect(filenameFromDisposition(header)).toBe('résumé €.pdf');
    expect(filenameFromDisposition(contentDisposition('😀 % 100%.txt'))).toBe('😀 % 100%.txt');
  });

  it('drops bidirectional overrides and other invisible format characters from filename*', () => {
    // U+202E makes "invoice<RLO>fdp.exe" display as "invoiceexe.pdf".
    const header = contentDisposition('invoice\u202efdp.exe');
    expect(filenameFromDisposition(header)).toBe('invoice_fdp.exe');
    expect(header).not.toMatch(/%E2%80%AE/i);
    const bidiAndInvisible = [
      '\u061c',
      '\u200b',
      '\u200e',
      '\u200f',
      '\u202a',
      '\u202b',
      '\u202c',
      '\u202d',
      '\u202e',
      '\u2060',
      '\u2066',
      '\u2067',
      '\u2068',
      '\u2069',
      '\ufeff',
      '\u00ad',
      '\u2028',
      '\u2029',
      '\u0085',
    ];
    for (const ch of bidiAndInvisible) expect(displayFilename(`a${ch}b`)).toBe('a_b');
    // Joiners stay: they cannot reorder text, and emoji sequences and many scripts need them.
    expect(displayFilename('👩\u200d💻.png')).toBe('👩\u200d💻.png');
    expect(displayFilename('می\u200cخواهم.txt')).toBe('می\u200cخواهم.txt');
    // Right-to-left text itself is fine: only the invisible direction controls go.
    expect(displayFilename('ملف.pdf')).toBe('ملف.pdf');
  });

  it('names an empty or blank file "file"', () => {
    expect(contentDisposition('')).toBe(`attachment; filename="file"; filename*=UTF-8''file`);
    expect(displayFilename('   ')).toBe('file');
  });

  it('is always a safe header and round-trips the display name (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 80 }), (name) => {
        const header = contentDisposition(name);
        expect(headerSafe(header)).toBe(true);
        expect(filenameFromDisposition(header)).toBe(displayFilename(name));
        const display = displayFilename(name);
        expect([...display].some((ch) => ch === '/' || ch === '\\' || ch.charCodeAt(0) < 0x20 || ch === '\x7f')).toBe(
          false,
        );
        expect(/[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/.test(display)).toBe(false);
      }),
      { numRuns: 500 },
    );
  });
});
