import { csvText } from '../../../core/lib/csv.js';
import type { AuditEntry } from '../api.js';

/** The most entries one export fetches (pages of the server's largest size until then). */
export const AUDIT_EXPORT_MAX = 10_000;

const HEADER = [
  'at',
  'admin',
  'action',
  'targets',
  'changes',
  'client_address',
  'outcome',
  'count',
  'last_at',
  'request_id',
] as const;

/** A target as "ID (name)", or the ID alone when it had no name. */
export function targetText(entry: Pick<AuditEntry, 'names'>, id: string): string {
  const name = entry.names[id];
  return name === undefined ? id : `${id} (${name})`;
}

/** A change as "field: old → new"; a value that was not set reads as an empty string. */
export function changeText(change: AuditEntry['changes'][number]): string {
  return `${change.field}: ${change.old ?? ''} → ${change.new ?? ''}`;
}

/**
 * Audit entries as CSV for a spreadsheet or an archive: machine values (operation IDs, error
 * codes, ISO times), one entry per line, lists joined with "; ".
 */
export function auditCsv(entries: readonly AuditEntry[]): string {
  return csvText(
    HEADER,
    entries.map((e) => [
      e.at,
      e.admin ?? '',
      e.action,
      e.targets.map((id) => targetText(e, id)).join('; '),
      e.changes.map(changeText).join('; '),
      e.client_address,
      e.outcome,
      String(e.count),
      e.last_at,
      e.request_id,
    ]),
  );
}
