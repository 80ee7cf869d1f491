/**
 * Reading an agent import file (POST /admin/agents/import), shared by the console and the CLI so
 * both accept the same files: CSV with a header row (RFC 4180: quoted fields may hold commas,
 * quotes doubled, line breaks), or JSON (an array of rows, or `{agents: [...]}`). Columns: `name`,
 * `host` (a host ID or name), `display_name` and `description` (optional; `display name` and
 * `host_id` are accepted too). The reader only shapes rows and names what it cannot read; the
 * server checks every row (name format, host, duplicates) and refuses the whole import if one is
 * bad. RFC 4180 is all a spreadsheet's export needs, so this is a few lines rather than a
 * dependency in both the console bundle and the CLI.
 */
import { csvText } from './csv.js';

/** Agents one bulk action names at most. */
export const BULK_AGENTS_MAX = 100;
/** Rows one import creates at most (the JSON body cap applies too). */
export const IMPORT_ROWS_MAX = 500;

export interface ImportFileRow {
  name: string;
  host: string;
  display_name?: string;
  description?: string;
}

export interface ImportFileProblem {
  /** The row, from 1 (the first data row; for CSV the header is not counted). */
  row: number;
  message: string;
}

export interface ImportFile {
  rows: ImportFileRow[];
  problems: ImportFileProblem[];
}

const COLUMN_ALIASES: Record<string, keyof ImportFileRow> = {
  name: 'name',
  host: 'host',
  host_id: 'host',
  host_name: 'host',
  display_name: 'display_name',
  'display name': 'display_name',
  displayname: 'display_name',
  description: 'description',
};

/** RFC 4180 records: fields split on commas, quoted fields unquoted; blank lines skipped. */
export function csvRecords(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const endRecord = () => {
    record.push(field);
    if (record.length > 1 || record[0] !== '') records.push(record);
    record = [];
    field = '';
  };
  for (; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += ch;
    } else if (ch === '"' && field === '') quoted = true;
    else if (ch === ',') {
      record.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      endRecord();
    } else field += ch;
  }
  if (field !== '' || record.length > 0) endRecord();
  return records;
}

function shapeRow(source: Record<string, unknown>, row: number, problems: ImportFileProblem[]): ImportFileRow | null {
  const out: Partial<Record<keyof ImportFileRow, string>> = {};
  for (const [key, value] of Object.entries(source)) {
    const column = COLUMN_ALIASES[key.trim().toLowerCase()];
    if (!column) {
      problems.push({ row, message: `unknown column "${key}"` });
      return null;
    }
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') {
      problems.push({ row, message: `${column} must be text` });
      return null;
    }
    out[column] = column === 'name' || column === 'host' ? value.trim() : value;
  }
  if (!out.name) problems.push({ row, message: 'name is missing' });
  if (!out.host) problems.push({ row, message: 'host is missing' });
  if (!out.name || !out.host) return null;
  const shaped: ImportFileRow = { name: out.name, host: out.host };
  if (out.display_name) shaped.display_name = out.display_name;
  if (out.description) shaped.description = out.description;
  return shaped;
}

function fromCsv(text: string): ImportFile {
  const [header, ...records] = csvRecords(text);
  const problems: ImportFileProblem[] = [];
  const rows: ImportFileRow[] = [];
  if (!header) return { rows, problems: [{ row: 1, message: 'the file is empty' }] };
  records.forEach((record, index) => {
    const row = index + 1;
    if (record.length > header.length) {
      problems.push({ row, message: `${record.length} fields where the header has ${header.length}` });
      return;
    }
    const shaped = shapeRow(Object.fromEntries(header.map((h, i) => [h, record[i]])), row, problems);
    if (shaped) rows.push(shaped);
  });
  if (records.length === 0) problems.push({ row: 1, message: 'the file has a header but no rows' });
  return { rows, problems };
}

function fromJson(text: string): ImportFile {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { rows: [], problems: [{ row: 1, message: `not valid JSON (${(error as Error).message})` }] };
  }
  const list = Array.isArray(value) ? value : (value as { agents?: unknown } | null)?.agents;
  if (!Array.isArray(list)) {
    return { rows: [], problems: [{ row: 1, message: 'expected an array of rows or {"agents": [...]}' }] };
  }
  const problems: ImportFileProblem[] = [];
  const rows: ImportFileRow[] = [];
  list.forEach((item, index) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      problems.push({ row: index + 1, message: 'a row must be an object' });
      return;
    }
    const shaped = shapeRow(item as Record<string, unknown>, index + 1, problems);
    if (shaped) rows.push(shaped);
  });
  if (list.length === 0) problems.push({ row: 1, message: 'the file has no rows' });
  return { rows, problems };
}

/** Reads a CSV or JSON import file (JSON when it starts with `[` or `{`, or the name ends in .json). */
export function readImportFile(text: string, fileName = ''): ImportFile {
  const start = text.replace(/^\uFEFF/, '').trimStart();
  const json = fileName.toLowerCase().endsWith('.json') || start.startsWith('[') || start.startsWith('{');
  return json ? fromJson(start) : fromCsv(text);
}

/** New keys as CSV, for the one-time download of an import or a bulk key regeneration. */
export function keysCsv(keys: readonly { agent_id: string; name: string; api_key: string }[]): string {
  return csvText(
    ['agent_id', 'name', 'api_key'],
    keys.map((k) => [k.agent_id, k.name, k.api_key]),
  );
}
