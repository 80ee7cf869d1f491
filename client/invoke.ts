/**
 * Calls one registry operation with flat, field-keyed input: the one path shared by every CLI
 * command and every MCP tool. Input is checked with the operation's own zod schemas first, so a
 * bad value is a local error and nothing is sent; the connection comes from the profile.
 */
import type { z } from '@hono/zod-openapi';
import type { OperationDef } from '../core/contract/registry.js';
import { type Env, type Resolved, resolveProfile, updateProfile } from './config.js';
import { applySetCookies } from './cookies.js';
import { configError, usageError } from './errors.js';
import { type FieldInfo, operationFields, type SplitInput, splitInput } from './fields.js';
import { type FileAccess, userFiles } from './files.js';
import { type ApiErrorBody, callOperation } from './http.js';
import { countRejected } from './rejected.js';

// Lives in a file without `node:` imports, shared with the worker's remote MCP server.
export { countRejected };

export interface InvokeRequest {
  op: OperationDef;
  /** Field name -> value, for params, query and body alike. */
  values: Record<string, unknown>;
  filePath?: string;
  outPath?: string;
  overwrite?: boolean;
  /** How local paths are opened: the MCP server confines them; the CLI uses them as given. */
  files?: FileAccess;
}

export interface InvokeContext {
  /** `--profile`, when given. */
  profile?: string;
  env: Env;
}

export type Outcome =
  | { ok: true; status: number; data: unknown; items: number; rejected: number }
  | { ok: false; status: number; error: ApiErrorBody };

const DEFAULT_TIMEOUT_MS = 30_000;

function validatePart(schema: z.ZodType | undefined, values: Record<string, unknown>): Record<string, unknown> {
  if (!schema) return values;
  const result = schema.safeParse(values);
  if (result.success) return result.data as Record<string, unknown>;
  const issue = result.error.issues[0];
  const field = issue?.path.map(String).join('.') || undefined;
  const top = issue?.path[0];
  const missing = top !== undefined && values[String(top)] === undefined && issue?.path.length === 1;
  const detail = missing ? 'is required' : (issue?.message ?? 'is invalid');
  throw usageError(field ? `${field}: ${detail}` : detail, field, detail);
}

export function validateInput(op: OperationDef, fields: readonly FieldInfo[], values: Record<string, unknown>) {
  const split = splitInput(fields, values);
  const checked: SplitInput = {
    params: validatePart(op.params, split.params),
    query: validatePart(op.query, split.query),
    body: validatePart(op.body, split.body),
  };
  return checked;
}

function timeoutFor(request: InvokeRequest, env: Env): number | undefined {
  const configured = Number(env.SWITCHBOARD_TIMEOUT_MS);
  if (env.SWITCHBOARD_TIMEOUT_MS && Number.isFinite(configured) && configured > 0) return configured;
  // A file transfer may legitimately take long; its progress is bounded by the server instead.
  return request.filePath !== undefined || request.op.rawResponse ? undefined : DEFAULT_TIMEOUT_MS;
}

function rememberCookies(resolved: Resolved, setCookies: readonly string[]): void {
  const jar = applySetCookies(resolved.adminCookie, setCookies);
  if (jar === resolved.adminCookie) return;
  updateProfile(resolved.configPath, resolved.profileName, {
    ...(!resolved.stored && { url: resolved.url }),
    admin_cookie: jar,
  });
}

export async function invokeOperation(request: InvokeRequest, context: InvokeContext): Promise<Outcome> {
  const { op } = request;
  const input = validateInput(op, operationFields(op), request.values);
  if (request.filePath !== undefined && !op.upload) throw usageError(`${op.id} does not take a file`);
  let download: { outPath: string; overwrite: boolean } | undefined;
  if (op.rawResponse) {
    if (!request.outPath) throw usageError('out: give the path to write the bytes to', 'out', 'is required');
    download = {
      outPath: (request.files ?? userFiles).checkDestination(request.outPath, request.overwrite ?? false),
      overwrite: !!request.overwrite,
    };
  }

  const resolved = resolveProfile(context.profile, context.env);
  if (!resolved.url) {
    throw configError(
      `no server URL for profile "${resolved.profileName}": run \`switchboard login --url URL --key KEY\` or set SWITCHBOARD_URL`,
    );
  }
  const result = await callOperation(
    {
      op,
      input,
      ...(request.filePath !== undefined && { filePath: request.filePath }),
      ...(download && { download }),
      ...(request.files && { files: request.files }),
      timeoutMs: timeoutFor(request, context.env),
    },
    {
      url: resolved.url,
      ...(resolved.apiKey !== undefined && { apiKey: resolved.apiKey }),
      ...(resolved.adminCookie !== undefined && { cookie: resolved.adminCookie }),
    },
  );
  // Only the administrator session lives in cookies; agent calls never change the profile.
  if (op.role !== 'agent' && result.setCookies.length > 0) rememberCookies(resolved, result.setCookies);

  if (result.kind === 'error') return { ok: false, status: result.status, error: result.body };
  const data = result.kind === 'download' ? { ...input.params, ...result.data } : result.data;
  return { ok: true, status: result.status, data, ...countRejected(data) };
}
