import { type Parsed, parseCount, parseMb } from './units.js';

/** How a limit is shown and typed: counts as whole numbers, sizes in MB, durations in seconds. */
export type LimitKind = 'count' | 'mb' | 'seconds' | 'attempts';

/** max_deliveries: 0 turns parking off. */
export const MAX_DELIVERIES_MAX = 1000;

export const CLAIM_SECONDS_MAX = 86_400;

/** Every admin-set limit, in the order the settings page shows them. */
export const LIMIT_KINDS = {
  max_body_code_points: 'count',
  max_recipients: 'count',
  max_messages_per_channel: 'count',
  max_files_per_channel: 'count',
  max_file_bytes: 'mb',
  max_concurrent_uploads: 'count',
  max_upload_temp_bytes: 'mb',
  upload_stall_seconds: 'seconds',
  claim_seconds: 'seconds',
  max_claim_batch: 'count',
  max_deliveries: 'attempts',
  max_page_size: 'count',
  max_group_members: 'count',
} as const satisfies Record<string, LimitKind>;

export type LimitKey = keyof typeof LIMIT_KINDS;
export const LIMIT_KEYS = Object.keys(LIMIT_KINDS) as LimitKey[];

/**
 * Limits whose lowering deletes retained messages and files (retroactive retention): the counts,
 * and the body and file sizes, since stored items over a lowered size are deleted whole.
 */
export const RETENTION_LIMITS: readonly LimitKey[] = [
  'max_messages_per_channel',
  'max_files_per_channel',
  'max_body_code_points',
  'max_file_bytes',
];

/** Whether saving these lowered limits deletes data, so the administrator must confirm first. */
export function deletesData(lowered: readonly LimitKey[]): boolean {
  return lowered.some((key) => RETENTION_LIMITS.includes(key));
}

export function parseLimit(key: LimitKey, text: string): Parsed {
  const kind: LimitKind = LIMIT_KINDS[key];
  if (kind === 'mb') return parseMb(text);
  if (kind === 'seconds') return parseCount(text, 1, CLAIM_SECONDS_MAX);
  if (kind === 'attempts') return parseCount(text, 0, MAX_DELIVERIES_MAX);
  return parseCount(text);
}

export type FormResult =
  | { ok: true; patch: Partial<Record<LimitKey, number>>; lowered: LimitKey[] }
  | { ok: false; problems: Partial<Record<LimitKey, Exclude<Parsed, { ok: true }>['problem']>> };

/**
 * Turns the typed values into the PATCH body: only the limits that changed (in bytes for sizes),
 * and which of them went down, because lowering a limit deletes retained data (the page asks
 * first). Any invalid field stops the whole save: nothing is half-applied.
 */
export function buildSettingsPatch(
  current: Record<LimitKey, number>,
  typed: Partial<Record<LimitKey, string>>,
): FormResult {
  const patch: Partial<Record<LimitKey, number>> = {};
  const lowered: LimitKey[] = [];
  const problems: Partial<Record<LimitKey, Exclude<Parsed, { ok: true }>['problem']>> = {};
  for (const key of LIMIT_KEYS) {
    const text = typed[key];
    if (text === undefined) continue;
    const parsed = parseLimit(key, text);
    if (!parsed.ok) {
      problems[key] = parsed.problem;
      continue;
    }
    if (parsed.value !== current[key]) {
      patch[key] = parsed.value;
      if (parsed.value < current[key]) lowered.push(key);
    }
  }
  if (Object.keys(problems).length > 0) return { ok: false, problems };
  return { ok: true, patch, lowered };
}
