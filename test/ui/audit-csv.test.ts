import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../admin-ui/src/api.js';
import { auditCsv } from '../../admin-ui/src/lib/audit-csv.js';
import { csvRecords } from '../../core/lib/agent-import.js';

const entry = (over: Partial<AuditEntry>): AuditEntry => ({
  id: 1,
  at: '2026-12-02T10:00:00.000Z',
  admin: 'admin',
  action: 'updateAgent',
  targets: ['agt_a', 'hst_b'],
  client_address: '192.0.2.7',
  outcome: 'ok',
  request_id: 'req_1',
  count: 1,
  last_at: '2026-12-02T10:00:00.000Z',
  names: { agt_a: 'build-bot' },
  changes: [{ field: 'name', old: 'old-bot', new: 'build-bot' }],
  ...over,
});

describe('audit CSV export', () => {
  it('writes one line per entry: names beside IDs, each change as old → new', () => {
    const csv = auditCsv([
      entry({}),
      entry({ id: 2, admin: null, action: 'adminLogin', targets: [], names: {}, changes: [] }),
    ]);
    expect(csv.endsWith('\r\n')).toBe(true);
    const [header, first, second] = csvRecords(csv);
    expect(header).toEqual([
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
    ]);
    expect(first).toEqual([
      '2026-12-02T10:00:00.000Z',
      'admin',
      'updateAgent',
      'agt_a (build-bot); hst_b',
      'name: old-bot → build-bot',
      '192.0.2.7',
      'ok',
      '1',
      '2026-12-02T10:00:00.000Z',
      'req_1',
    ]);
    expect(second?.[1]).toBe('');
    expect(second?.[3]).toBe('');
  });

  it('quotes commas, quotes and line breaks, and defuses cells a spreadsheet would run as formulas', () => {
    const csv = auditCsv([
      entry({
        names: { agt_a: '=HYPERLINK("http://x","y")' },
        changes: [{ field: 'description', old: null, new: 'a, "b"\nc' }],
      }),
    ]);
    const [, row] = csvRecords(csv);
    expect(row?.[3]).toBe('agt_a (=HYPERLINK("http://x","y")); hst_b');
    expect(row?.[4]).toBe('description:  → a, "b"\nc');
    // A cell that starts with a formula character gets an apostrophe.
    const formula = auditCsv([entry({ admin: '@cmd' })]);
    expect(csvRecords(formula)[1]?.[1]).toBe("'@cmd");
  });
});
