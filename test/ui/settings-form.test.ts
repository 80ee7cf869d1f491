import { describe, expect, it } from 'vitest';
import { buildSettingsPatch, deletesData, LIMIT_KEYS, LIMIT_KINDS } from '../../admin-ui/src/lib/settings-form.js';
import { bytesToMb } from '../../admin-ui/src/lib/units.js';
import { Limits } from '../../core/contract/models.js';
import { DEFAULT_LIMITS } from '../../core/lib/limits.js';

const typedDefaults = () =>
  Object.fromEntries(
    LIMIT_KEYS.map((k) => [k, LIMIT_KINDS[k] === 'mb' ? bytesToMb(DEFAULT_LIMITS[k]) : String(DEFAULT_LIMITS[k])]),
  );

describe('the settings form', () => {
  it('covers every limit of the contract, sizes in MB', () => {
    expect([...LIMIT_KEYS].sort()).toEqual(Object.keys(Limits.shape).sort());
    const sizes = LIMIT_KEYS.filter((k) => k.endsWith('_bytes'));
    for (const key of sizes) expect(LIMIT_KINDS[key]).toBe('mb');
    expect(LIMIT_KINDS.claim_seconds).toBe('seconds');
  });

  it('sends only what changed, in bytes, and names the lowered limits', () => {
    const typed = { ...typedDefaults(), max_file_bytes: '12.5', claim_seconds: '120', max_messages_per_channel: '10' };
    expect(buildSettingsPatch(DEFAULT_LIMITS, typed)).toEqual({
      ok: true,
      patch: { max_file_bytes: 12_500_000, claim_seconds: 120, max_messages_per_channel: 10 },
      lowered: ['max_messages_per_channel', 'max_file_bytes'],
    });
  });

  it('sends nothing when nothing changed (50 and 50.0 MB are the same)', () => {
    expect(buildSettingsPatch(DEFAULT_LIMITS, { ...typedDefaults(), max_file_bytes: '50.000' })).toEqual({
      ok: true,
      patch: {},
      lowered: [],
    });
  });

  it('asks before lowering a retention limit only (that deletes data); other limits just apply', () => {
    expect(deletesData(['max_file_bytes'])).toBe(true);
    expect(deletesData(['claim_seconds', 'max_messages_per_channel'])).toBe(true);
    expect(deletesData(['max_files_per_channel'])).toBe(true);
    expect(deletesData(['max_body_code_points'])).toBe(true);
    expect(deletesData(['claim_seconds', 'max_page_size', 'max_recipients'])).toBe(false);
    expect(deletesData([])).toBe(false);
  });

  it('refuses the whole save when any field is invalid, naming each problem', () => {
    const typed = {
      ...typedDefaults(),
      max_file_bytes: '',
      claim_seconds: '86401',
      max_recipients: '2.5',
      max_page_size: '5',
    };
    expect(buildSettingsPatch(DEFAULT_LIMITS, typed)).toEqual({
      ok: false,
      problems: { max_file_bytes: 'empty', claim_seconds: 'too_large', max_recipients: 'not_a_number' },
    });
  });
});
