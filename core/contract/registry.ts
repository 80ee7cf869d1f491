/**
 * The operation registry's vocabulary. An operation is declared once, as data: the HTTP route
 * (worker/app.ts), `openapi.json`, the CLI commands (cli/) and the MCP tools (mcp/) are all
 * generated from these declarations, so none of them can drift from the others.
 */
import type { z } from '@hono/zod-openapi';
import type { ErrorCode } from './errors.js';

export type Role = 'public' | 'agent' | 'admin';
export type HttpMethod = 'get' | 'post' | 'patch' | 'delete';

/**
 * How an operation appears in the `switchboard` CLI (cli/commands/generate.ts). Everything else is
 * derived from the schemas: every params/query/body field that is not positional becomes an option
 * `--kebab-name` (numbers parsed, booleans as `--x`/`--no-x`, enums with their choices, arrays
 * repeatable, objects as JSON text); an array of objects is given as `A:B` words, its fields in
 * declaration order (`ack MESSAGE_ID:TOKEN`), or, with no words, as JSON on stdin from which each
 * item's fields are collected (so `claim | ack` composes; no items: nothing is sent, exit 0, the
 * answer's arrays printed empty). An `upload` operation gets `--file PATH`
 * (sent as multipart), a `rawResponse` operation a required `--out PATH`. Role `agent` sends the
 * profile's API key, role `admin` its session cookie.
 */
export interface CliSpec {
  /** Command words, e.g. `send` or `admin hosts create`. */
  command: string;
  /** Params, body or query fields taken as positional arguments, in order (the last may be variadic). */
  positionals?: readonly string[];
  /**
   * A body field that can also be read from stdin with `--stdin`, exactly as given (a trailing
   * newline included). With `upload`, `--file` alone sends it empty.
   */
  stdinField?: string;
  /**
   * Option names that differ from the field name: `{ to_agent_ids: 'to' }` gives a repeatable
   * `--to ID` instead of `--to-agent-ids ID`.
   */
  optionNames?: Readonly<Record<string, string>>;
  /**
   * Fields never taken from the command line, so they stay out of shell history and `ps`: asked
   * for without echo on a terminal, or read from stdin with `--<field>-stdin` (e.g. a password).
   */
  secretFields?: readonly string[];
}

/**
 * How an operation appears as an MCP tool (mcp/tools.ts). The input and output schemas come from
 * the operation's zod schemas; the description is `summary` + `description` unless `description`
 * here replaces the latter where the HTTP wording (multipart, headers) does not fit a tool call.
 * The hints become the tool's annotations: a `get` is read-only and idempotent by itself.
 */
export interface McpSpec {
  /** The tool name (snake_case, unique). */
  readonly tool: string;
  /** The tool's text after the summary, in tool terms (other tools by their tool names). */
  readonly description?: string;
  /** Its results carry text other agents wrote: the description repeats the data-not-instructions warning. */
  readonly peerContent?: boolean;
  /** Repeating the call with the same arguments changes nothing more (e.g. an ACK retried). */
  readonly idempotent?: boolean;
  /** The call may remove something (access, a local file it replaces), not only add. */
  readonly destructive?: boolean;
}

export interface OperationDef {
  /** Stable camelCase ID: the OpenAPI operationId and the key of the handler map. */
  readonly id: string;
  readonly method: HttpMethod;
  /** Path below `/api/v1`, OpenAPI style (`/channels/{channel_id}/messages`). */
  readonly path: string;
  readonly role: Role;
  readonly summary: string;
  readonly description?: string;
  readonly tags: readonly string[];
  readonly params?: z.ZodObject;
  readonly query?: z.ZodObject;
  /** A JSON request body. */
  readonly body?: z.ZodType;
  /**
   * The route also accepts `multipart/form-data` with a `metadata` part (the JSON body) and at most
   * one `file` part. The upload is streamed by the handler, never buffered by a validator.
   */
  readonly upload?: boolean;
  /** The JSON answer. Absent for operations that answer raw bytes (`rawResponse`). */
  readonly response?: z.ZodType;
  readonly rawResponse?: { readonly mediaType: string; readonly description: string };
  readonly status?: 200 | 201;
  /** A POST that only computes an answer (a preview) and changes nothing: not audited. */
  readonly changesNothing?: boolean;
  /** Codes this operation can answer with (beyond the common ones every route can). */
  readonly errors: readonly ErrorCode[];
  /** The CLI command, or `false` for operations the CLI does not expose. */
  readonly cli: CliSpec | false;
  /** The MCP tool, or `false` when agents should not get it as a tool (admin routes). */
  readonly mcp: McpSpec | false;
}

export function defineOperation<const T extends OperationDef>(def: T): T {
  return def;
}

type Infer<S> = S extends z.ZodType ? z.infer<S> : undefined;

/** The validated input an operation's handler receives. */
export interface OperationInput<O extends OperationDef> {
  params: Infer<O['params']>;
  query: Infer<O['query']>;
  body: Infer<O['body']>;
}

export type OperationOutput<O extends OperationDef> = O['response'] extends z.ZodType
  ? z.infer<O['response']>
  : Response;

/** Errors any route can answer, so operations list only their own. */
export const COMMON_ERRORS: readonly ErrorCode[] = [
  'validation_failed',
  'invalid_unicode',
  'payload_too_large',
  'unsupported_media_type',
  'internal_error',
  'unavailable',
];
export const AGENT_ERRORS: readonly ErrorCode[] = ['unauthenticated', 'source_ip_denied'];
export const ADMIN_ERRORS: readonly ErrorCode[] = ['unauthenticated', 'forbidden'];
