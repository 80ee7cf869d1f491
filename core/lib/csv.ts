/**
 * CSV as RFC 4180 writes it (CRLF lines, a cell quoted when it holds a quote, comma or line
 * break), for the files the console and the CLI hand out: new keys, the audit log. A cell that a
 * spreadsheet would run as a formula (it starts with =, +, -, @, a tab or a carriage return) gets
 * a leading apostrophe: audit cells carry names that agents chose (a group's), and opening an
 * export must not run them.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: string): string {
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function csvText(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const lines = [header, ...rows].map((cells) => cells.map(csvCell).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
