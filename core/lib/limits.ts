import type { Limits } from '../contract/models.js';

/**
 * Proposed defaults. Only claim_seconds (60 s, REQ-28) and max_file_bytes (50 MB, REQ-55) were
 * confirmed by users; every other value is a proposal an administrator is expected to tune.
 * MB means 1,000,000 bytes throughout.
 */
export const DEFAULT_LIMITS: Limits = {
  max_body_code_points: 16_000,
  max_messages_per_channel: 1_000,
  max_files_per_channel: 100,
  max_file_bytes: 50_000_000,
  claim_seconds: 60,
  max_claim_batch: 100,
  max_page_size: 200,
  max_recipients: 50,
  max_group_members: 200,
  max_concurrent_uploads: 8,
  max_upload_temp_bytes: 500_000_000,
  upload_stall_seconds: 20,
  max_deliveries: 0,
};

/** The highest max_deliveries an administrator may set (SQS's maxReceiveCount stops there too). */
export const MAX_DELIVERIES_MAX = 1_000;

/**
 * The slowest an upload may be: over every `upload_stall_seconds` that the server spends waiting
 * for the client, at least this many bytes per second must arrive (8 kbit/s: far below any LAN or
 * mobile link, far above a trickle meant to hold an admission slot). Fixed, not a setting: the
 * window is the knob an administrator needs for flaky links.
 */
export const MIN_UPLOAD_BYTES_PER_SECOND = 1_000;

/**
 * One agent's share of the upload admission, derived rather than set: a quarter of
 * max_concurrent_uploads (at least one upload) and a quarter of max_upload_temp_bytes. An agent's
 * first upload is judged by the global limits only, so any file the server admits at all can be
 * sent by every agent; its further concurrent uploads must also fit within its share. So one
 * agent, however it behaves, leaves at least three quarters of the admission to the others.
 */
export function uploadShare(limits: Pick<Limits, 'max_concurrent_uploads' | 'max_upload_temp_bytes'>): {
  uploads: number;
  bytes: number;
} {
  return {
    uploads: Math.max(1, Math.floor(limits.max_concurrent_uploads / 4)),
    bytes: Math.max(1, Math.floor(limits.max_upload_temp_bytes / 4)),
  };
}

/** The limits agents read in `GET /limits` that follow from the settings. */
export function derivedLimits(limits: Limits) {
  const share = uploadShare(limits);
  return {
    max_json_request_bytes: maxJsonRequestBytes(limits),
    max_concurrent_uploads_per_agent: share.uploads,
    max_upload_temp_bytes_per_agent: share.bytes,
    min_upload_bytes_per_second: MIN_UPLOAD_BYTES_PER_SECOND,
  };
}

/**
 * The largest JSON request accepted: room for a body at its code-point limit even when every
 * code point is written as a JSON escaped surrogate pair (12 bytes), plus envelope.
 */
export function maxJsonRequestBytes(limits: Limits): number {
  return 12 * limits.max_body_code_points + 65_536;
}

export const LIMIT_SEMANTICS: Record<string, string> = {
  body_length:
    'Message bodies are measured in Unicode code points (a composed emoji can be several). A body over max_body_code_points is rejected whole (text_too_long); it is never truncated or split.',
  deduplication:
    'A send is compared with your own latest retained message in that channel: exact body, attachment presence, filename, media type, size and the server-computed SHA-256, and reply_to (the same body as a reply to another message, or as a reply versus not a reply, is a new message; the same reply again is a duplicate). A match is reported as duplicate with the retained message_id and nothing new is stored. There is no time window; the comparison message changes only when you send something different, or when it is deleted by retention. This is content suppression, not exactly-once delivery.',
  retention:
    'Each channel keeps its newest max_messages_per_channel messages and at most max_files_per_channel messages with files; the oldest go first, even when unread, claimed or awaiting ACK. Nothing is spared and nothing is archived: save what you need.',
  message_file_coupling:
    'Deleting a message deletes its file, and evicting a file (count or size limit) deletes its whole message. No message is left without its file, and no file without its message.',
  retroactive_limits:
    'When an administrator lowers a limit, existing messages and files over the new limits are deleted too.',
  claims:
    'Claiming leases unread messages for claim_seconds with a fresh token per message; each claim carries delivery_count (1 on the first claim). Until it expires, other sessions of your account cannot claim them; after expiry without an ACK they become claimable again.',
  ack: 'ACK when you have read a message: ACK with the current claim token marks it read (read, not done). Extend the lease if you need longer before you can. It does not require downloading the file and does not extend retention. An expired, released or replaced token is rejected.',
  leases:
    'POST /inbox/extend sets a live claim to expire at now + seconds (1 to claim_seconds, default claim_seconds) with the same token; POST /inbox/release ends it now, so the message is claimable again at once and the token no longer ACKs or extends. Refusals use the ACK codes (and already_read); a refused item changes nothing.',
  parking:
    'max_deliveries (0: no limit) caps how often a message is claimed: one claimed that many times whose last claim ends (expires or is released) without an ACK is parked. A claim leaves it out and GET /inbox counts it as parked (still unread, not claimable); claim with parked: true to take parked messages only. An ACK reads it, an unACKed claim parks it again, and retention deletes it like any other.',
  polling: 'Nothing is pushed: poll GET /inbox or POST /inbox/claim; both return at once, also when empty.',
  files:
    'A message carries at most one file: send multipart/form-data with a "metadata" part (the JSON body) and one "file" part. The server measures the size (max_file_bytes, file_too_large) and computes the SHA-256 itself; the file name is kept as metadata only. Each private target gets its own copy; a group message has one.',
  uploads:
    'An upload is admitted while fewer than max_concurrent_uploads are in progress and its reserved temporary bytes (the request Content-Length, else max_file_bytes) fit within max_upload_temp_bytes; otherwise 429 upload_admission_denied with retry_after_ms. One agent may hold at most max_concurrent_uploads_per_agent uploads at once, and while it has one in progress its others must fit within max_upload_temp_bytes_per_agent (a quarter of each limit), so no agent can take the admission from the others. While deleting stored files is failing, new files are refused with 503 cleanup_unavailable until it recovers; text messages are unaffected.',
  upload_stall:
    'An upload that sends less than min_upload_bytes_per_second on average over any upload_stall_seconds that the server waits for it (nothing at all included) is cancelled with 408 upload_stalled: its admission is freed and nothing of it is kept. Send the file again on a better link.',
  units: 'Sizes are bytes; MB in the console means 1,000,000 bytes.',
};

/**
 * Field lengths, said once: the contract's zod models enforce them, the console's forms show them
 * (`maxlength`, `minlength`; a plain module with no zod, so the console imports it by value) and
 * the launcher checks SWITCHBOARD_ADMIN_PASSWORD against the same administrator password bounds.
 */
export const FIELD_LIMITS = {
  admin_username: 64,
  admin_password_min: 12,
  admin_password_max: 1024,
  agent_name: 64,
  display_name: 100,
  host_name: 100,
  host_os: 100,
  host_addresses: 32,
  description: 2000,
  content_search: 200,
  /** The agent list's search text (name, display name, description, host name). */
  agent_search: 200,
} as const;
