/**
 * Wire models, defined once. Operations, the CLI, the MCP tools and the admin console all derive
 * their shapes from these (with `.pick()`/`.extend()`), so a field is never spelled twice.
 */
import { extendZodWithOpenApi, z } from '@hono/zod-openapi';
import { canonicalIp } from '../lib/ip.js';
import { FIELD_LIMITS, MAX_DELIVERIES_MAX } from '../lib/limits.js';
import { ERROR_CODES, ERROR_REASONS } from './errors.js';

// @hono/zod-openapi adds `.openapi()` to zod when its module runs, but the Node bundle is split
// into chunks and esbuild does not order one chunk's side effects before another's: a lazily
// loaded chunk (the MCP server's start-up check) could build these schemas first and crash.
// Extending here (it is idempotent) ties the extension to every module that imports the models.
extendZodWithOpenApi(z);

export const Timestamp = z.iso.datetime({ precision: 3 }).openapi({ example: '2026-11-29T21:45:05.123Z' });
export const NullableTimestamp = Timestamp.nullable();

const prefixed = (prefix: string, example: string) =>
  z
    .string()
    .regex(new RegExp(`^${prefix}[A-Za-z0-9_-]{1,64}$`), `must be an ID starting with ${prefix}`)
    .openapi({ example });

export const HostId = prefixed('hst_', 'hst_4k2m9x');
export const AgentId = prefixed('agt_', 'agt_7fq2cd');
export const GroupId = prefixed('grp_', 'grp_9xk1ab');
export const MessageId = prefixed('msg_', 'msg_2b7c1e');
export const FileId = prefixed('fil_', 'fil_5d0a9c');
export const ChannelId = z
  .string()
  .regex(/^(dm|grp)_[A-Za-z0-9_-]{1,64}$/, 'must be a channel ID (dm_… or grp_…)')
  .openapi({ example: 'dm_3f9a0c1d2e' });

export const Cursor = z
  .string()
  .max(512)
  .regex(/^[A-Za-z0-9_-]*$/, 'must be a cursor from a previous page')
  .optional()
  .openapi({
    description:
      'Opaque cursor from a previous page (its next_cursor). A cursor this server did not issue is refused (validation_failed).',
  });
export const PageLimit = z.coerce.number().int().min(1).max(1000).optional().openapi({
  description: 'Page size; capped by max_page_size.',
});

/** Paging through a channel in seq order: history, files, and the administrator's read-only view. */
export const SeqPageQuery = z.object({
  cursor: Cursor,
  limit: PageLimit,
  order: z.enum(['asc', 'desc']).optional().openapi({ description: 'asc (oldest first, default) or desc.' }),
});

export const ErrorBody = z
  .object({
    request_id: z.string(),
    error: z.object({
      code: z.enum(ERROR_CODES),
      message: z.string(),
      field: z.string().optional(),
      target: z.string().optional(),
      limit: z.number().optional(),
      settings_revision: z.number().int(),
      retry_after_ms: z.number().int().optional(),
      reason: z.enum(ERROR_REASONS).optional().openapi({
        description:
          'Why, as a stable code (validation_failed: the schema issue kind, e.g. too_small with limit; conflict: e.g. host_name_taken). `message` says the same in English.',
      }),
      params: z
        .record(z.string(), z.union([z.string(), z.number()]))
        .optional()
        .openapi({ description: 'Values to phrase the reason with, e.g. {origin: "string"} for too_small.' }),
      rows: z
        .array(
          z.object({
            row: z.number().int(),
            field: z.string().optional(),
            code: z.enum(ERROR_CODES),
            reason: z.enum(ERROR_REASONS).optional(),
            limit: z.number().optional(),
            message: z.string(),
          }),
        )
        .optional()
        .openapi({ description: 'POST /admin/agents/import refused whole: every refused row (from 1) and why.' }),
    }),
  })
  .openapi('Error');

type WireErrorBody = z.output<typeof ErrorBody>;

/**
 * The error body as clients read and relay it (the CLI, the MCP tools): the API's, with the code
 * as any string (a newer server may answer one this client does not know yet, and a client's own
 * refusals have codes of their own), and settings_revision absent on answers not from the API.
 */
export type ClientErrorBody = Pick<WireErrorBody, 'request_id'> & {
  error: Omit<WireErrorBody['error'], 'code' | 'settings_revision'> & {
    code: string;
    settings_revision?: number;
  };
};

/** The per-item error inside a 200 answer (per target, per ACK, per invitee). */
export const ItemError = z.object({
  code: z.enum(ERROR_CODES),
  message: z.string().optional(),
  limit: z.number().optional(),
});

/** An exact IPv4 or IPv6 address, answered in canonical form (`::ffff:a.b.c.d` becomes `a.b.c.d`). */
export const IpAddress = z
  .string()
  .max(64)
  .transform((text, ctx) => {
    const ip = canonicalIp(text);
    if (ip === null) {
      ctx.addIssue({
        code: 'custom',
        message: `"${text}" is not an exact IPv4 or IPv6 address (no CIDR, no names)`,
        params: { reason: 'not_ip_address' },
      });
      return z.NEVER;
    }
    return ip;
  })
  .openapi({
    type: 'string',
    // What canonicalIp takes, in JSON Schema's own formats: a document-driven client (or fuzzer)
    // sends only addresses this server accepts.
    anyOf: [
      { type: 'string', format: 'ipv4' },
      { type: 'string', format: 'ipv6' },
    ],
    example: '192.168.1.20',
  });

export const Host = z
  .object({
    host_id: HostId,
    name: z.string(),
    addresses: z.array(z.string()),
    os: z.string(),
    description: z.string(),
    created_at: Timestamp,
  })
  .openapi('Host');

export const HostInput = z.object({
  name: z.string().trim().min(1).max(FIELD_LIMITS.host_name),
  addresses: z.array(IpAddress).min(1).max(FIELD_LIMITS.host_addresses),
  os: z.string().max(FIELD_LIMITS.host_os).optional(),
  description: z.string().max(FIELD_LIMITS.description).optional(),
});

export const Agent = z
  .object({
    agent_id: AgentId,
    name: z.string(),
    display_name: z.string(),
    description: z.string().openapi({ description: 'What the agent does (set by an administrator; may be empty).' }),
    host_id: HostId,
    enabled: z.boolean(),
    last_access_at: NullableTimestamp,
    created_at: Timestamp,
    key_status: z.enum(['active', 'revoked', 'none']).openapi({
      description:
        'active: the agent has a working API key (it still needs to be enabled and call from its host); ' +
        'revoked: an administrator revoked it; none: no key is stored.',
    }),
    key_prefix: z
      .string()
      .nullable()
      .openapi({
        description:
          'The visible start of the active key (`sbk_<agent id>.` and 4 characters), to tell keys apart; ' +
          'null without an active key or for a key issued before prefixes were kept. Never the secret.',
        example: 'sbk_agt_7fq2cd.Qx3v',
      }),
    key_issued_at: NullableTimestamp.openapi({ description: 'When the active key was issued (null if unknown).' }),
    key_revoked_at: NullableTimestamp.openapi({ description: 'When the key was revoked (key_status revoked).' }),
    last_access_address: z.string().nullable().openapi({
      description: 'The source address of the last authenticated request, recorded with last_access_at.',
    }),
  })
  .openapi('Agent');

export const AGENT_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export const AgentName = z
  .string()
  .min(1)
  .max(FIELD_LIMITS.agent_name)
  .regex(AGENT_NAME_PATTERN, 'letters, digits, dot, dash and underscore; starts with a letter or digit');

export const AgentInput = z.object({
  name: AgentName,
  host_id: HostId,
  display_name: z.string().min(1).max(FIELD_LIMITS.display_name).optional(),
  description: z
    .string()
    .max(FIELD_LIMITS.description)
    .optional()
    .openapi({ description: 'What the agent does, shown to agents in the directory (empty: none).' }),
  enabled: z.boolean().optional(),
});

export const ApiKey = z.string().openapi({ description: 'Shown once; store it now.', example: 'sbk_…' });

/** Settings: counts and sizes are positive integers; sizes are bytes (MB = 1,000,000 bytes). */
export const Limits = z
  .object({
    max_body_code_points: z.number().int().positive(),
    max_messages_per_channel: z.number().int().positive(),
    max_files_per_channel: z.number().int().positive(),
    max_file_bytes: z.number().int().positive(),
    claim_seconds: z.number().int().min(1).max(86_400),
    max_claim_batch: z.number().int().positive(),
    max_page_size: z.number().int().positive(),
    max_recipients: z.number().int().positive(),
    max_group_members: z.number().int().positive(),
    max_concurrent_uploads: z.number().int().positive(),
    max_upload_temp_bytes: z.number().int().positive(),
    /** An upload that delivers less than MIN_UPLOAD_BYTES_PER_SECOND over this many seconds is cancelled. */
    upload_stall_seconds: z.number().int().min(1).max(86_400),
    /**
     * How many claims a delivery gets before an unACKed end of its lease parks it (0: no limit):
     * core/domain/deliveries.ts.
     */
    max_deliveries: z
      .number()
      .int()
      .min(0)
      .max(MAX_DELIVERIES_MAX)
      .openapi({
        description:
          'Claims a message gets before it is parked: a claim that ends (expires or is released) without an ACK ' +
          'after this many claims parks the message, and only claim {parked: true} offers it again. 0: no limit.',
      }),
  })
  .openapi('Limits');
export type Limits = z.infer<typeof Limits>;

/** Fixed (not admin-set) limits that agents still need to know. */
export const DerivedLimits = z.object({
  max_json_request_bytes: z.number().int().positive(),
  /** One agent's share of the upload admission (core/lib/limits.ts: uploadShare). */
  max_concurrent_uploads_per_agent: z.number().int().positive(),
  max_upload_temp_bytes_per_agent: z.number().int().positive(),
  min_upload_bytes_per_second: z.number().int().positive(),
});

export const LimitsPatch = Limits.partial()
  .strict()
  .refine((v) => Object.keys(v).length > 0, {
    message: 'name at least one setting',
    params: { reason: 'empty_patch' },
  })
  .openapi({ minProperties: 1 });

export const Attachment = z
  .object({
    file_id: FileId,
    filename: z.string(),
    media_type: z.string(),
    size: z.number().int().nonnegative(),
    sha256: z.string(),
  })
  .openapi('Attachment');

export const ChannelKind = z.enum(['private', 'group']);

export const Message = z
  .object({
    message_id: MessageId,
    channel_id: ChannelId,
    sender_id: AgentId,
    sender_display_name: z.string().openapi({
      description: "The sender's display name when it sent the message (the directory has the current one).",
    }),
    channel_kind: ChannelKind,
    group_name: z.string().nullable().openapi({ description: 'Group channels: the group name; null otherwise.' }),
    body: z.string(),
    created_at: Timestamp,
    seq: z.number().int().positive(),
    attachment: Attachment.nullable(),
    reply_to: MessageId.nullable().openapi({
      description:
        'The message of this channel this one answers (it may have been deleted by retention since); null: none.',
    }),
    thread_id: MessageId.openapi({
      description: "The root message's ID (its own ID for a root); kept when the root is deleted.",
    }),
  })
  .openapi('Message');

/** The optional reply_to of every send (JSON body or multipart metadata). */
export const ReplyTo = MessageId.optional().openapi({
  description: 'A message_id of this channel to answer: the reply joins its thread.',
});

/** What a send answers about the threading of the message it names (sent: the new one; duplicate: the retained one). */
export const SentThread = {
  thread_id: MessageId.optional().openapi({ description: 'sent/duplicate: the thread of message_id.' }),
  reply_to: MessageId.nullable().optional().openapi({
    description: "sent/duplicate: what message_id answers (for a duplicate, the retained message's own reply_to).",
  }),
  reply_to_purged: z.boolean().optional().openapi({
    description:
      'sent with reply_to: true when retention had already deleted the replied-to message (the thread ID stays).',
  }),
};

export const Capabilities = z.array(z.string());

/**
 * Why a figure is phrased the way it is, as stable codes a client renders in its own language
 * (the console does); `detail` and `reason` keep the English text for other clients.
 */
export const RESOURCE_DETAIL_CODES = ['logical_cpus', 'data_dir_file_system', 'os_free_memory', 'gpu_count'] as const;
export const RESOURCE_REASON_CODES = [
  'cloudflare',
  'metrics_unreachable',
  'metrics_http_error',
  'metrics_not_json',
  'metrics_bad_shape',
  'cpu_unreadable',
  'cpu_not_advancing',
  'disk_no_capacity',
  'disk_unreadable',
  'gpu_not_installed',
  'gpu_none_listed',
  'gpu_no_utilization',
  'gpu_timeout',
  'gpu_failed',
] as const;
const ResourceParams = z
  .record(z.string(), z.union([z.string(), z.number()]))
  .optional()
  .openapi({ description: 'Values for the code, e.g. {count: 2} for logical_cpus, {timeout_ms} for gpu_timeout.' });

/**
 * One server resource on the admin overview: a figure, or explicitly unavailable with the reason
 * (as on Cloudflare, or on a machine without a GPU).
 */
export const ResourceMetric = z
  .union([
    z.object({
      available: z.literal(true),
      utilization_percent: z.number().min(0).max(100),
      used_bytes: z.number().nonnegative().optional(),
      total_bytes: z.number().nonnegative().optional(),
      detail: z.string().optional(),
      detail_code: z.enum(RESOURCE_DETAIL_CODES).optional(),
      params: ResourceParams,
    }),
    z.object({
      available: z.literal(false),
      reason: z.string(),
      reason_code: z.enum(RESOURCE_REASON_CODES).optional(),
      params: ResourceParams,
    }),
  ])
  .openapi('ResourceMetric');

export const Resources = z.object({
  cpu: ResourceMetric,
  memory: ResourceMetric,
  disk: ResourceMetric,
  gpu: ResourceMetric,
});
export type Resources = z.infer<typeof Resources>;
