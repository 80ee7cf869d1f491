/**
 * The fixed error vocabulary of api-v1.md. Every failure the API reports is one of these codes,
 * and each code has exactly one HTTP status, so handlers throw a code and never pick a status.
 */
export const ERROR_STATUS = {
  validation_failed: 400,
  invalid_unicode: 400,
  text_too_long: 400,
  empty_message: 400,
  too_many_recipients: 400,
  reply_to_not_found: 400,
  reply_to_other_channel: 400,
  unsupported_media_type: 415,
  upload_stalled: 408,
  unauthenticated: 401,
  source_ip_denied: 403,
  not_group_owner: 403,
  not_invited: 403,
  not_group_member: 403,
  owner_cannot_leave: 403,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  file_too_large: 413,
  payload_too_large: 413,
  too_many_attempts: 429,
  upload_admission_denied: 429,
  cleanup_unavailable: 503,
  unavailable: 503,
  internal_error: 500,
  // Also answered as a status (joining a group you are in; making a disabled account a group's
  // owner), and as per-target outcomes inside 200 results.
  already_member: 409,
  agent_disabled: 400,
  // Per-target and per-item outcomes: they appear inside 200 results, never as a response status.
  self_send_forbidden: 400,
  unknown_agent: 404,
  claim_expired: 409,
  claim_replaced: 409,
  invalid_claim_token: 409,
  message_purged: 410,
  group_full: 409,
  // An extend or release of a delivery that an ACK already read.
  already_read: 409,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

/**
 * Why a request was refused, finer than its code, as a stable identifier a client can phrase in its
 * own language (the console does, in seven). The first group is zod's issue kinds for
 * `validation_failed` (with `limit` and `params.origin`/`params.format` where zod has them); the
 * rest name the domain refusals an administrator meets. Add freely; never rename.
 */
export const ERROR_REASONS = [
  // validation_failed, from the schema (zod issue codes)
  'invalid_type',
  'too_big',
  'too_small',
  'invalid_format',
  'not_multiple_of',
  'unrecognized_keys',
  'invalid_union',
  'invalid_key',
  'invalid_element',
  'invalid_value',
  'custom',
  // validation_failed, from our own checks
  'not_ip_address',
  'empty_patch',
  'malformed_json',
  // conflict
  'host_name_taken',
  'agent_name_taken',
  'host_has_agents',
  'agent_owns_groups',
  'owner_not_member',
  'admin_exists',
  // unavailable
  'change_pending',
  'deletion_pending',
  // bulk actions and imports (operations/admin-bulk.ts)
  'duplicate_ids',
  'duplicate_row',
  'unknown_host',
  'import_rows_refused',
  // not_found: an OAuth discovery or registration path (Switchboard does no OAuth)
  'no_oauth',
] as const;
export type ErrorReason = (typeof ERROR_REASONS)[number];

export interface ErrorDetails {
  field?: string;
  target?: string;
  limit?: number;
  retryAfterMs?: number;
  reason?: ErrorReason;
  /** Values a client needs to phrase the reason (a zod issue's origin or format, a count). */
  params?: Record<string, string | number>;
  /** An import refused whole: each refused row and why (operations/admin-bulk.ts). */
  rows?: ImportRowRefusal[];
}

export interface ImportRowRefusal {
  row: number;
  field?: string;
  code: ErrorCode;
  reason?: ErrorReason;
  limit?: number;
  message: string;
}

const TAG = 'SWITCHBOARD_API_ERROR:';

/**
 * A domain error: thrown anywhere in the worker or a Durable Object, rendered by one `onError`.
 * Durable Object RPC keeps an error's message but not its class, so the message carries the code
 * and details in a tagged form that `reviveApiError` turns back into an ApiError.
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly text: string;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, text: string, details: ErrorDetails = {}) {
    super(TAG + JSON.stringify({ code, text, details }));
    this.name = 'ApiError';
    this.code = code;
    this.text = text;
    this.details = details;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export function reviveApiError(error: unknown): unknown {
  if (error instanceof ApiError) return error;
  if (error instanceof Error) {
    const at = error.message.indexOf(TAG);
    if (at >= 0) {
      const parsed = JSON.parse(error.message.slice(at + TAG.length)) as {
        code: ErrorCode;
        text: string;
        details: ErrorDetails;
      };
      return new ApiError(parsed.code, parsed.text, parsed.details);
    }
  }
  return error;
}
