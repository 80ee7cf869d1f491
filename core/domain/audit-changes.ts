/**
 * What an administrator's change did, field by field, for the audit log (docs/audit-log.md):
 * computed where the old and new rows meet (the registry), so the entry says what the value was
 * and became, not only that something changed. Values become short text, so the log stays one
 * shape whatever the field; a list (a host's addresses) is joined with ", ".
 */
import type { z } from '@hono/zod-openapi';
import type { AuditChange } from '../contract/operations/admins.js';

export type FieldChange = z.infer<typeof AuditChange>;

type Value = string | number | boolean | null | undefined | readonly string[];

function asText(value: Value): string | null {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.join(', ');
  return String(value);
}

/** The fields of `fields` whose value differs between `before` and `after`, in that order. */
export function fieldChanges<T extends Record<string, Value>>(
  before: T,
  after: T,
  fields: readonly (keyof T & string)[],
): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const field of fields) {
    const old = asText(before[field]);
    const next = asText(after[field]);
    if (old !== next) changes.push({ field, old, new: next });
  }
  return changes;
}
