/**
 * The audit log's filters (administrator, action, target ID, time range) in the Audit page's
 * address (`/audit?admin=ops&action=deleteAgent&since=2026-11-29T21:00:00.000Z`). Times are kept
 * as the API's UTC timestamps, so a copied link shows the same entries in another time zone; the
 * form shows them in the browser's.
 */
import { FIELD_LIMITS } from '../../../core/lib/limits.js';
import type { AuditFilter } from '../../../core/rpc.js';
import { AUDIT_ACTIONS } from './audit-actions.js';
import { queryString } from './list-address.js';

export type { AuditFilter };

/** As GET /admin/audit takes them (AdminUsername, the target's length). */
const ADMIN = new RegExp(`^[A-Za-z0-9._-]{1,${FIELD_LIMITS.admin_username}}$`);
export const AUDIT_TARGET_MAX = 128;
/** The API's timestamps: UTC with milliseconds. */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A time the API takes, or undefined: what an address or a form gave, read as an instant. */
function instant(value: string | null | undefined): string | undefined {
  if (!value) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return undefined;
  const iso = new Date(ms).toISOString();
  return TIMESTAMP.test(iso) ? iso : undefined;
}

/** Only what the API would take: anything else is no filter. */
export function cleanAuditFilter(filter: AuditFilter): AuditFilter {
  const admin = filter.admin?.trim();
  const action = filter.action?.trim();
  const target = filter.target?.trim();
  return {
    admin: admin && ADMIN.test(admin) ? admin : undefined,
    action: action && (AUDIT_ACTIONS as readonly string[]).includes(action) ? action : undefined,
    target: target && target.length <= AUDIT_TARGET_MAX ? target : undefined,
    since: filter.since && TIMESTAMP.test(filter.since) ? filter.since : undefined,
    until: filter.until && TIMESTAMP.test(filter.until) ? filter.until : undefined,
  };
}

export function auditFilterToSearch(filter: AuditFilter): string {
  const f = cleanAuditFilter(filter);
  return queryString({ admin: f.admin, action: f.action, target: f.target, since: f.since, until: f.until });
}

export function auditFilterFromSearch(search: string): AuditFilter {
  const params = new URLSearchParams(search);
  return cleanAuditFilter({
    admin: params.get('admin') ?? undefined,
    action: params.get('action') ?? undefined,
    target: params.get('target') ?? undefined,
    since: instant(params.get('since')),
    until: instant(params.get('until')),
  });
}

/** A `datetime-local` field's value (the browser's time zone) as the API's timestamp, or undefined. */
export function fromLocalInput(value: string): string | undefined {
  // Without a zone, Date.parse reads a date-time as local time, which is what the field means.
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/.test(value) ? instant(value) : undefined;
}

/** An API timestamp as a `datetime-local` field's value, in the browser's time zone ('' for none). */
export function toLocalInput(timestamp: string | undefined): string {
  if (!timestamp) return '';
  const d = new Date(timestamp);
  if (Number.isNaN(d.getTime())) return '';
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  const date = `${pad(d.getFullYear(), 4)}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}`;
  const seconds = d.getSeconds() || d.getMilliseconds() ? `:${pad(d.getSeconds())}` : '';
  const ms = d.getMilliseconds() ? `.${pad(d.getMilliseconds(), 3)}` : '';
  return `${date}T${time}${seconds}${ms}`;
}
