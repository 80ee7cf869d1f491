/**
 * Sends one operation whose input is already checked: the connection from the profile, the
 * timeout, the administrator's cookies, and the answer as an outcome. It loads neither zod nor
 * the registry (an operation is passed in), so the CLI's quick path for a cold `switchboard inbox`
 * (cli/quick-inbox.ts) shares it with every other command.
 */
import { type Env, type Resolved, resolveProfile, updateProfile } from './config.js';
import { applySetCookies } from './cookies.js';
import { configError } from './errors.js';
import type { SplitInput } from './fields.js';
import type { FileAccess } from './files.js';
import { type ApiErrorBody, callOperation, type HttpOperation } from './http.js';
import { countRejected } from './rejected.js';

export interface InvokeContext {
  /** `--profile`, when given. */
  profile?: string;
  env: Env;
}

export type Outcome =
  | { ok: true; status: number; data: unknown; items: number; rejected: number }
  | { ok: false; status: number; error: ApiErrorBody };

export interface SendRequest {
  op: HttpOperation;
  input: SplitInput;
  filePath?: string;
  download?: { outPath: string; overwrite: boolean };
  files?: FileAccess;
}

const DEFAULT_TIMEOUT_MS = 30_000;

function timeoutFor(request: SendRequest, env: Env): number | undefined {
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

export async function sendOperation(request: SendRequest, context: InvokeContext): Promise<Outcome> {
  const { op, input } = request;
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
      ...(request.download && { download: request.download }),
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
