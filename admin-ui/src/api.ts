/**
 * The console's API client. Wire types come from the operation registry (type-only imports, so
 * no zod reaches the bundle); the method and path of every admin operation come from the registry
 * too, through `virtual:console-routes`, which the build derives (admin-ui/console-routes.ts).
 */

import routes from 'virtual:console-routes';
import type { z } from '@hono/zod-openapi';
import type { ErrorCode, ErrorReason, OperationId, Operations } from '../../core/contract/index.js';

type Part<K extends OperationId, P extends string> = Operations[K] extends {
  readonly [Q in P]: infer S extends z.ZodType;
}
  ? S
  : never;
export type ResponseOf<K extends OperationId> = z.output<Part<K, 'response'>>;
export type BodyOf<K extends OperationId> = z.input<Part<K, 'body'>>;
export type QueryOf<K extends OperationId> = z.input<Part<K, 'query'>>;
export type ParamsOf<K extends OperationId> = z.input<Part<K, 'params'>>;

/** The operations the console can call: the registry's `/admin/` ones. */
export type ConsoleOperation = {
  [K in OperationId]: Operations[K]['path'] extends `/admin/${string}` ? K : never;
}[OperationId];

const ROUTES = routes as {
  readonly [K in ConsoleOperation]: readonly [Operations[K]['method'], Operations[K]['path']];
};

export const API_BASE = '/api/v1';

/**
 * Failures that never come from the API itself: no answer at all (`network_error`), or an answer
 * without Switchboard's error body from something in front of it (`gateway_error`: a proxy's 502,
 * 503 or 504 page).
 */
export type ClientFailureCode = 'network_error' | 'gateway_error';

/** The structured parts of an error body beyond code and message (api-v1.md), for phrasing. */
export interface FailureExtra {
  requestId?: string;
  reason?: ErrorReason;
  limit?: number;
  params?: Record<string, string | number>;
  /** An import refused whole: each refused row (from 1) and why. */
  rows?: ImportRowRefusal[];
}

export type ImportRowRefusal = {
  row: number;
  field?: string;
  code: string;
  reason?: ErrorReason;
  limit?: number;
  message: string;
};

/** A refusal from the API, carrying its structured error (api-v1.md). */
export class ApiFailure extends Error {
  readonly requestId?: string;
  readonly reason?: ErrorReason;
  readonly limit?: number;
  readonly params?: Record<string, string | number>;
  readonly rows?: ImportRowRefusal[];

  constructor(
    readonly status: number,
    readonly code: ErrorCode | ClientFailureCode,
    readonly detail: string,
    readonly field?: string,
    readonly retryAfterMs?: number,
    extra: FailureExtra = {},
  ) {
    super(`${status} ${code}: ${detail}`);
    this.requestId = extra.requestId;
    this.reason = extra.reason;
    this.limit = extra.limit;
    this.params = extra.params;
    this.rows = extra.rows;
  }
}

/** Raised when a call answers 401: the session is over, the shell shows the sign-in form. */
export const SESSION_ENDED_EVENT = 'sb-session-ended';

type CallOptions<K extends OperationId> = {
  params?: ParamsOf<K>;
  query?: QueryOf<K>;
  body?: BodyOf<K>;
};

export function buildPath(template: string, params: Record<string, string> | undefined): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params?.[name];
    if (value === undefined) throw new Error(`missing path parameter ${name}`);
    return encodeURIComponent(value);
  });
}

export function buildQuery(query: Record<string, unknown> | undefined): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null || value === '') continue;
    search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

export async function call<K extends ConsoleOperation>(id: K, options: CallOptions<K> = {}): Promise<ResponseOf<K>> {
  const [method, template] = ROUTES[id];
  const url =
    API_BASE +
    buildPath(template, options.params as Record<string, string> | undefined) +
    buildQuery(options.query as Record<string, unknown> | undefined);
  const init: RequestInit = { method: method.toUpperCase(), credentials: 'same-origin', headers: {} };
  if (options.body !== undefined) {
    init.body = JSON.stringify(options.body);
    init.headers = { 'content-type': 'application/json' };
  }
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch (error) {
    throw new ApiFailure(0, 'network_error', error instanceof Error ? error.message : String(error));
  }
  const text = await response.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    // An answer that is not JSON (a proxy's error page) is reported by status below.
  }
  if (!response.ok) {
    const body = json as {
      request_id?: string;
      error?: {
        code?: ErrorCode;
        message?: string;
        field?: string;
        retry_after_ms?: number;
        reason?: ErrorReason;
        limit?: number;
        params?: Record<string, string | number>;
        rows?: ImportRowRefusal[];
      };
    } | null;
    const error = body?.error;
    if (response.status === 401 && id !== 'adminLogin' && id !== 'adminSetup') {
      window.dispatchEvent(new CustomEvent(SESSION_ENDED_EVENT));
    }
    // No Switchboard error body: a proxy or the launcher's front answered for a worker that is
    // down, which the administrator should read as a server problem, not as a refusal.
    const fallback = response.status >= 500 ? 'gateway_error' : 'internal_error';
    throw new ApiFailure(
      response.status,
      error?.code ?? fallback,
      error?.message ?? `HTTP ${response.status}`,
      error?.field,
      error?.retry_after_ms,
      {
        requestId: body?.request_id ?? response.headers.get('x-request-id') ?? undefined,
        reason: error?.reason,
        limit: error?.limit,
        params: error?.params,
        rows: error?.rows,
      },
    );
  }
  return json as ResponseOf<K>;
}

export type Host = ResponseOf<'listHosts'>['hosts'][number];
export type Agent = ResponseOf<'listAgents'>['agents'][number];
export type AgentDetail = ResponseOf<'getAdminAgent'>;
export type AgentRejection = ResponseOf<'listAgentRejections'>['rejections'][number];
export type AdminGroup = ResponseOf<'adminListGroups'>['groups'][number];
export type AdminChannel = ResponseOf<'listAdminChannels'>['channels'][number];
export type AdminMessage = ResponseOf<'listAdminChannelMessages'>['messages'][number];

/** Pages through a whole admin list (hosts are few enough for the console to hold; agents are asked for as needed). */
async function collect<T>(page: (cursor: string | undefined) => Promise<{ items: T[]; next: string | null }>) {
  const all: T[] = [];
  let cursor: string | undefined;
  do {
    const { items, next } = await page(cursor);
    all.push(...items);
    cursor = next ?? undefined;
  } while (cursor);
  return all;
}

/** A host with the number of agents registered on it (the server counts them: no agent list needed). */
export type HostWithCount = Host & { agent_count: number };

export function listAllHosts(): Promise<HostWithCount[]> {
  return collect(async (cursor) => {
    const r = await call('listHosts', { query: { cursor } });
    return { items: r.hosts.map((h) => ({ ...h, agent_count: r.agent_counts[h.host_id] ?? 0 })), next: r.next_cursor };
  });
}

export type AdminAccount = ResponseOf<'listAdmins'>['admins'][number];
export type AdminSessionInfo = ResponseOf<'listAdminSessions'>['sessions'][number];
export type AuditEntry = ResponseOf<'listAuditLog'>['entries'][number];
