/**
 * Server text in the administrator's language (REQ-53). The API answers stable codes with
 * structured details (core/contract/errors.ts: code, reason, field, limit, params; models.ts:
 * the resource detail and reason codes); this module is the one place that phrases them. Its
 * tables are typed by the contract's code lists, so a code added there fails the console build
 * until it is phrased here, and test/e2e/browser-errors.test.ts renders every code in all seven
 * languages. The server's English `message` is never shown.
 */
import { msg, str } from '@lit/localize';
import type {
  ErrorCode,
  ErrorReason,
  RESOURCE_DETAIL_CODES,
  RESOURCE_REASON_CODES,
} from '../../core/contract/index.js';
import { ApiFailure, type ClientFailureCode, type ImportRowRefusal } from './api.js';
import { formatCount } from './lib/format.js';
import { LIMIT_KINDS, type LimitKey } from './lib/settings-form.js';
import { limitLabel } from './limit-labels.js';
import { currentLocale } from './localization.js';

type Params = Record<string, string | number> | undefined;

const count = (value: number | string | undefined) =>
  typeof value === 'number' ? formatCount(value, currentLocale()) : String(value ?? '');

/**
 * Every field name a console request can carry, as the form labels it. Keyed by the last name in
 * the path; list items (`addresses.0`) are numbered from one.
 */
export const FIELD_LABELS = {
  name: () => msg('Name'),
  addresses: () => msg('IP addresses'),
  os: () => msg('Operating system'),
  description: () => msg('Description'),
  display_name: () => msg('Display name'),
  host_id: () => msg('Host'),
  host: () => msg('Host'),
  agent_id: () => msg('Agent'),
  agent_ids: () => msg('Agents'),
  agents: () => msg('Agents'),
  enabled: () => msg('Enabled'),
  username: () => msg('Username'),
  password: () => msg('Password'),
  token: () => msg('Set-up link'),
  group_id: () => msg('Group'),
  channel_id: () => msg('Channel'),
  cursor: () => msg('Page position'),
  limit: () => msg('Page size'),
  order: () => msg('Order'),
  kind: () => msg('Channel kinds'),
  participant: () => msg('Participant'),
  owner: () => msg('Owner'),
  q: () => msg('Search'),
  sort: () => msg('Sort by'),
  admin: () => msg('Administrator'),
  action: () => msg('Action'),
  target: () => msg('Target ID'),
  since: () => msg('From'),
  until: () => msg('Until'),
  session_id: () => msg('Session'),
  current_password: () => msg('Current password'),
  new_password: () => msg('New password'),
  end_other_sessions: () => msg('Sign out my other sessions'),
  file_id: () => msg('Attachment'),
  disposition: () => msg('Download'),
  key_state: () => msg('API key'),
  last_access: () => msg('Last access'),
  thread_id: () => msg('Thread'),
} satisfies Record<string, () => string>;

/** `addresses.0` → "Address 1"; `name` → "Name"; a settings key → its label on the settings page. */
export function fieldLabel(field: string): string {
  const parts = field.split('.');
  const last = parts.at(-1) ?? '';
  if (/^\d+$/.test(last) && parts.length >= 2) {
    const position = count(Number(last) + 1);
    if (parts.at(-2) === 'addresses') return msg(str`Address ${position}`);
    return msg(str`${fieldLabel(parts.slice(0, -1).join('.'))}, item ${position}`);
  }
  if (last in LIMIT_KINDS) return limitLabel(last as LimitKey);
  const label = (FIELD_LABELS as Record<string, (() => string) | undefined>)[last];
  // A field this console does not know (a newer server): its name is an identifier, not prose.
  return label ? label() : last;
}

/** What a `too_small` / `too_big` limit counts: characters, items, or a plain number. */
function bound(kind: 'min' | 'max', limit: number | undefined, params: Params): string {
  const n = count(limit);
  const origin = params?.origin;
  if (origin === 'string') {
    if (kind === 'min' && limit === 1) return msg('This is required.');
    return kind === 'min' ? msg(str`Use at least ${n} characters.`) : msg(str`Use at most ${n} characters.`);
  }
  if (origin === 'array' || origin === 'set') {
    return kind === 'min' ? msg(str`Give at least ${n} items.`) : msg(str`Give at most ${n} items.`);
  }
  if (limit === undefined) return kind === 'min' ? msg('This is too small.') : msg('This is too large.');
  return kind === 'min' ? msg(str`Enter at least ${n}.`) : msg(str`Enter at most ${n}.`);
}

/** The format a field expects, where the console knows it; a generic phrase otherwise. */
function formatText(field: string | undefined): string {
  const last = field?.split('.').at(-1);
  if (last === 'name') return msg('Use letters, digits, dot, dash and underscore, starting with a letter or digit.');
  if (last === 'username') return msg('Letters, digits, dot, dash and underscore.');
  if (last?.endsWith('_id') || last === 'participant' || last === 'owner') {
    return msg('This is not a valid identifier.');
  }
  return msg('The format is not valid.');
}

/** Phrases for every reason of ERROR_REASONS (a missing one fails the type check). */
const REASON_TEXT: Record<ErrorReason, (limit: number | undefined, params: Params, field?: string) => string> = {
  invalid_type: (_l, p) =>
    p?.expected === 'array' ? msg('Give a list.') : msg('This is missing or of the wrong kind.'),
  too_big: (l, p) => bound('max', l, p),
  too_small: (l, p) => bound('min', l, p),
  invalid_format: (_l, _p, field) => formatText(field),
  not_multiple_of: (l) => msg(str`Enter a multiple of ${count(l)}.`),
  unrecognized_keys: (_l, p) => msg(str`Unknown fields: ${p?.keys ?? ''}.`),
  invalid_union: () => msg('This value is not one of the accepted forms.'),
  invalid_key: () => msg('A key in this value is not valid.'),
  invalid_element: () => msg('An item in this list is not valid.'),
  invalid_value: () => msg('This value is not one of the accepted choices.'),
  custom: () => msg('This value is not accepted.'),
  not_ip_address: () => msg('Enter an exact IPv4 or IPv6 address (no ranges, no host names).'),
  empty_patch: () => msg('Change at least one field.'),
  malformed_json: () => msg('The request was not valid JSON.'),
  host_name_taken: () => msg('Another host already has this name.'),
  agent_name_taken: () => msg('Another agent on this host already has this name.'),
  host_has_agents: () => msg('Agents are registered on this host: move or delete them first.'),
  agent_owns_groups: (_l, p) =>
    msg(str`This agent owns ${count(p?.count)} active groups: give them another owner or dissolve them first.`),
  owner_not_member: () => msg('The new owner must be an active member of the group.'),
  admin_exists: () => msg('An administrator already exists.'),
  change_pending: () => msg('Saved, but not yet in force everywhere; the server keeps retrying.'),
  deletion_pending: () => msg('Deleted, but not yet removed everywhere; the server keeps retrying.'),
  duplicate_ids: () => msg('Each agent may be named only once.'),
  duplicate_row: () => msg('An earlier row already names this agent on this host.'),
  unknown_host: () => msg('No host has this ID or name.'),
  import_rows_refused: (_l, p) =>
    msg(str`${count(p?.refused)} of ${count(p?.rows)} rows were refused; no agent was created.`),
  no_oauth: () => msg('This server does not use OAuth: agents sign in with their API key.'),
};

/** Phrases for every error code of the contract and the console's own two. */
const CODE_TEXT: Record<ErrorCode | ClientFailureCode, (failure: ApiFailure) => string> = {
  network_error: () => msg('The server could not be reached. Check the connection and try again.'),
  gateway_error: (f) =>
    msg(str`The server is not answering right now (HTTP ${f.status}). Wait a moment and try again.`),
  validation_failed: () => msg('Please check the input.'),
  invalid_unicode: () => msg('The text contains characters that are not valid Unicode.'),
  text_too_long: () => msg('The text is too long.'),
  empty_message: () => msg('A message needs a body or a file.'),
  too_many_recipients: () => msg('Too many recipients.'),
  reply_to_not_found: () => msg('The message replied to does not exist.'),
  reply_to_other_channel: () => msg('The message replied to is in another channel.'),
  unsupported_media_type: () => msg('The server does not accept this kind of content.'),
  upload_stalled: () => msg('The upload stalled and was cancelled.'),
  unauthenticated: () => msg('Your session has ended. Please sign in again.'),
  source_ip_denied: () => msg('This address is not one of the host addresses.'),
  not_group_owner: () => msg('Only the group owner may do this.'),
  not_invited: () => msg('There is no invitation to this group.'),
  not_group_member: () => msg('Not an active member of this group.'),
  owner_cannot_leave: () => msg('The owner cannot leave the group.'),
  forbidden: () => msg('This action is not allowed.'),
  not_found: () => msg('Not found: it may have been deleted meanwhile.'),
  method_not_allowed: () => msg('The server does not offer this action.'),
  conflict: () => msg('This conflicts with the current state.'),
  file_too_large: () => msg('The file is too large.'),
  payload_too_large: () => msg('The request is too large.'),
  // Without a retry time (a refusal recorded in the audit log) there is no wait to announce.
  too_many_attempts: (f) =>
    f.retryAfterMs === undefined
      ? msg('Too many failed attempts.')
      : msg(str`Too many attempts. Try again in ${count(Math.ceil(f.retryAfterMs / 1000))} s.`),
  upload_admission_denied: () => msg('Too many uploads at the moment. Try again shortly.'),
  cleanup_unavailable: () => msg('Cleanup is not available right now. Try again shortly.'),
  unavailable: () => msg('The server is busy or restarting. Try again shortly.'),
  internal_error: () => msg('The server failed to handle the request.'),
  already_member: () => msg('Already a member of this group.'),
  agent_disabled: () => msg('This agent is disabled; enable it first.'),
  self_send_forbidden: () => msg('An agent cannot message itself.'),
  unknown_agent: () => msg('No such agent.'),
  claim_expired: () => msg('The claim has expired.'),
  claim_replaced: () => msg('The message was claimed again meanwhile.'),
  invalid_claim_token: () => msg('The claim token is not valid.'),
  message_purged: () => msg('The message was deleted by retention.'),
  group_full: () => msg('The group is full.'),
  already_read: () => msg('The message was already read.'),
};

/**
 * One refusal as a sentence: the field it concerns (as the form labels it), then the reason when
 * the API gave one, else the code's phrase.
 */
export function apiFailureText(failure: ApiFailure): string {
  const reason = failure.reason && REASON_TEXT[failure.reason];
  const text = reason
    ? reason(failure.limit, failure.params, failure.field)
    : (CODE_TEXT[failure.code] ?? CODE_TEXT.internal_error)(failure);
  return failure.field ? `${fieldLabel(failure.field)}${labelSeparator()}${text}` : text;
}

/** One refused row of an import, phrased like any refusal: "Host: No host has this ID or name." */
export function rowRefusalText(row: ImportRowRefusal): string {
  return apiFailureText(
    new ApiFailure(400, row.code as ErrorCode, row.message, row.field, undefined, {
      reason: row.reason,
      limit: row.limit,
    }),
  );
}

/** An error code on its own (a refused action in the audit log): the code's phrase, never the code. */
export function errorCodeText(code: string): string {
  const text = (CODE_TEXT as Record<string, ((failure: ApiFailure) => string) | undefined>)[code];
  return text ? text({ code } as ApiFailure) : CODE_TEXT.internal_error({ code } as ApiFailure);
}

/** "Label: text" with each language's own colon (a full-width one in Chinese, a spaced one in French). */
function labelSeparator(): string {
  const locale = currentLocale();
  if (locale.startsWith('zh')) return '：';
  return locale === 'fr' ? '\u00a0: ' : ': ';
}

type DetailCode = (typeof RESOURCE_DETAIL_CODES)[number];
type ResourceReason = (typeof RESOURCE_REASON_CODES)[number];

const DETAIL_TEXT: Record<DetailCode, (params: Params) => string> = {
  logical_cpus: (p) => msg(str`${count(p?.count)} logical CPUs`),
  data_dir_file_system: () => msg('File system of the data directory'),
  os_free_memory: () => msg('Free memory as reported by the operating system'),
  gpu_count: (p) =>
    p?.count === 1 ? msg('1 GPU') : msg(str`${count(p?.count)} GPUs (average utilization, memory summed)`),
};

const RESOURCE_REASON_TEXT: Record<ResourceReason, (params: Params) => string> = {
  cloudflare: () => msg('Not available on Cloudflare Workers: a worker cannot see the machine it runs on.'),
  metrics_unreachable: () => msg("The server's metrics service did not answer."),
  metrics_http_error: (p) => msg(str`The server's metrics service failed (HTTP ${p?.status ?? '?'}).`),
  metrics_not_json: () => msg("The server's metrics service gave an unreadable answer."),
  metrics_bad_shape: () => msg("The server's metrics service gave an unexpected answer."),
  cpu_unreadable: () => msg('CPU times cannot be read on this system.'),
  cpu_not_advancing: () => msg('CPU times did not advance.'),
  disk_no_capacity: () => msg('The data directory reports no capacity.'),
  disk_unreadable: () => msg("The data directory's file system cannot be read."),
  gpu_not_installed: () => msg('No NVIDIA GPU: nvidia-smi is not installed.'),
  gpu_none_listed: () => msg('nvidia-smi lists no GPU.'),
  gpu_no_utilization: () => msg('nvidia-smi reports no GPU utilization.'),
  gpu_timeout: (p) => msg(str`nvidia-smi did not answer within ${count(p?.timeout_ms)} ms.`),
  gpu_failed: () => msg('nvidia-smi failed (no GPU, or the driver is not loaded).'),
};

/** The line under a resource figure; an older server without codes falls back to its text. */
export function resourceDetailText(metric: { detail?: string; detail_code?: DetailCode; params?: Params }): string {
  return metric.detail_code ? DETAIL_TEXT[metric.detail_code](metric.params) : (metric.detail ?? '');
}

export function resourceReasonText(metric: { reason: string; reason_code?: ResourceReason; params?: Params }): string {
  return metric.reason_code ? RESOURCE_REASON_TEXT[metric.reason_code](metric.params) : metric.reason;
}
