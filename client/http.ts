/**
 * One HTTP call of one registry operation: URL from the path template, query string, JSON or
 * multipart body, the role's credentials, and the answer sorted into JSON, download or error.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { ClientErrorBody } from '../core/contract/models.js';
import type { OperationDef } from '../core/contract/registry.js';
import { VERSION } from '../core/version.js';
import { configError, LocalError, usageError } from './errors.js';
import type { SplitInput } from './fields.js';
// Types only: the file code (and the zod it brings) loads when a call sends or saves a file, so a
// plain JSON call such as a cold `switchboard inbox` starts without it.
import type { DownloadResult, FileAccess } from './files.js';

export const API_BASE = '/api/v1';

export interface Connection {
  url: string;
  apiKey?: string;
  cookie?: string;
}

/** What a call needs of its operation (the registry's entry, or the build's copy of it). */
export type HttpOperation = Pick<OperationDef, 'id' | 'method' | 'path' | 'role' | 'body' | 'upload' | 'rawResponse'>;

export interface HttpCall {
  op: HttpOperation;
  input: SplitInput;
  /** A local file to send as the multipart `file` part (upload operations). */
  filePath?: string;
  /** Where a raw answer is written (rawResponse operations). */
  download?: { outPath: string; overwrite: boolean };
  /** How local paths are opened (default: as given, for the CLI). */
  files?: FileAccess;
  /** Milliseconds before giving up; undefined = no limit (file transfers). */
  timeoutMs?: number;
  /** Gives up when aborted (a JSON call only), as a timeout does. */
  signal?: AbortSignal;
}

/** The structured error body of api-v1.md (or one synthesized for a non-API answer). */
export type ApiErrorBody = ClientErrorBody;

export type HttpResult =
  | { kind: 'json'; status: number; data: unknown; setCookies: string[] }
  | { kind: 'download'; status: number; data: DownloadResult; setCookies: string[] }
  | { kind: 'error'; status: number; body: ApiErrorBody; setCookies: string[] };

export function buildUrl(base: string, op: HttpOperation, input: SplitInput): string {
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = input.params[name];
    if (value === undefined) throw usageError(`missing ${name}`, name);
    return encodeURIComponent(String(value));
  });
  const url = new URL(base.replace(/\/+$/, '') + API_BASE + path);
  for (const [name, value] of Object.entries(input.query)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item !== undefined && item !== null) url.searchParams.append(name, String(item));
    }
  }
  return url.toString();
}

const UNREACHABLE_HINTS: Record<string, string> = {
  ECONNREFUSED: 'connection refused (is the server running?)',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_SOCKET: 'connection closed',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed TLS certificate (trust it with NODE_EXTRA_CA_CERTS=ca.pem)',
  SELF_SIGNED_CERT_IN_CHAIN: 'untrusted TLS certificate (trust it with NODE_EXTRA_CA_CERTS=ca.pem)',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'untrusted TLS certificate (trust it with NODE_EXTRA_CA_CERTS=ca.pem)',
  ERR_TLS_CERT_ALTNAME_INVALID: 'the TLS certificate does not match the host name',
};

function unreachable(base: string, error: unknown, timeoutMs: number | undefined): LocalError {
  const name = (error as { name?: string }).name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new LocalError('unreachable', `no answer from ${base} within ${timeoutMs} ms`);
  }
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const code = cause?.code ?? (error as { code?: string }).code;
  const reason = (code && UNREACHABLE_HINTS[code]) ?? code ?? cause?.message ?? String(error);
  return new LocalError('unreachable', `cannot reach ${base}: ${reason}`);
}

function credentials(op: HttpOperation, connection: Connection): Record<string, string> {
  if (op.role === 'agent') {
    if (!connection.apiKey) {
      throw configError(
        'no API key configured: run `switchboard login --url URL --key KEY` or set SWITCHBOARD_API_KEY',
      );
    }
    return { authorization: `Bearer ${connection.apiKey}` };
  }
  if (op.role === 'admin') {
    if (!connection.cookie) {
      throw configError('not signed in as an administrator: run `switchboard admin login --username NAME`');
    }
    return { cookie: connection.cookie };
  }
  return connection.cookie ? { cookie: connection.cookie } : {};
}

async function requestBody(call: HttpCall): Promise<{ body?: BodyInit; type?: string }> {
  const { op } = call;
  if (call.filePath !== undefined) {
    if (!op.upload) throw usageError(`${op.id} does not take a file`);
    const upload = await (call.files ?? (await import('./files.js')).userFiles).openUpload(call.filePath);
    const form = new FormData();
    form.append('metadata', JSON.stringify(call.input.body));
    form.append('file', upload.blob, upload.filename);
    // fetch sets the multipart boundary itself.
    return { body: form };
  }
  if (op.body) return { body: JSON.stringify(call.input.body), type: 'application/json' };
  return {};
}

/** What the answer handling below reads from an answer: fetch's Response, or a node:http one. */
interface Answer {
  ok: boolean;
  status: number;
  headers: { get(name: string): string | null; getSetCookie(): string[] };
  text(): Promise<string>;
}

/**
 * A JSON call over node:http(s). The CLI runs once per poll, and Node's fetch (undici) costs
 * tens of milliseconds of start-up on its first use; node:http is already loaded. Files keep
 * fetch (multipart from a Blob, streamed downloads), where that cost is noise.
 */
function plainRequest(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  timeoutMs: number | undefined,
  signal?: AbortSignal,
): Promise<Answer> {
  const send = url.startsWith('https:') ? httpsRequest : httpRequest;
  const allHeaders = body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
  return new Promise((resolve, reject) => {
    const req = send(url, { method, headers: allHeaders }, (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const status = res.statusCode ?? 0;
        resolve({
          ok: status >= 200 && status < 300,
          status,
          headers: {
            get: (name) => {
              const value = res.headers[name.toLowerCase()];
              return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
            },
            getSetCookie: () => res.headers['set-cookie'] ?? [],
          },
          text: async () => text,
        });
      });
    });
    // The whole exchange, like fetch's AbortSignal.timeout (not an idle timeout); unref'd so
    // it never holds the process open by itself.
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            const error = new Error('timeout');
            error.name = 'TimeoutError';
            req.destroy(error);
          }, timeoutMs).unref();
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.on('close', () => clearTimeout(timer));
    signal?.addEventListener('abort', () => req.destroy(Object.assign(new Error('aborted'), { name: 'AbortError' })), {
      once: true,
    });
    req.end(body);
  });
}

async function errorBody(response: Answer): Promise<ApiErrorBody> {
  const text = await response.text().catch(() => '');
  try {
    const parsed = JSON.parse(text) as ApiErrorBody;
    if (parsed && typeof parsed.error?.code === 'string') return parsed;
  } catch {
    // Not an API answer (a proxy page, say): described below.
  }
  return {
    request_id: response.headers.get('x-request-id') ?? 'req_unknown',
    error: {
      code: response.status >= 500 ? 'unavailable' : 'unexpected_response',
      message: `HTTP ${response.status}${text ? `: ${text.slice(0, 200)}` : ''}`,
    },
  };
}

export async function callOperation(call: HttpCall, connection: Connection): Promise<HttpResult> {
  const { op } = call;
  const url = buildUrl(connection.url, op, call.input);
  const headers: Record<string, string> = {
    accept: 'application/json',
    'user-agent': `switchboard-cli/${VERSION}`,
    ...credentials(op, connection),
  };
  if (call.download) headers.accept = '*/*';
  const { body, type } = await requestBody(call);
  if (type) headers['content-type'] = type;

  let response: Answer;
  let fetched: Response | undefined;
  try {
    if (call.download || (body !== undefined && typeof body !== 'string')) {
      fetched = await fetch(url, {
        method: op.method.toUpperCase(),
        headers,
        ...(body !== undefined && { body }),
        redirect: 'error',
        ...(call.timeoutMs !== undefined && { signal: AbortSignal.timeout(call.timeoutMs) }),
      });
      response = fetched;
    } else {
      // No redirect is ever followed here either: a 3xx is answered as an error below.
      response = await plainRequest(url, op.method.toUpperCase(), headers, body, call.timeoutMs, call.signal);
    }
  } catch (error) {
    throw unreachable(connection.url, error, call.timeoutMs);
  }
  const setCookies = response.headers.getSetCookie();
  if (!response.ok) return { kind: 'error', status: response.status, body: await errorBody(response), setCookies };
  if (call.download && fetched) {
    const { saveDownload } = await import('./files.js');
    const data = await saveDownload(fetched, call.download.outPath, call.download.overwrite, call.files);
    return { kind: 'download', status: response.status, data, setCookies };
  }
  const text = await response.text();
  try {
    return { kind: 'json', status: response.status, data: text ? JSON.parse(text) : null, setCookies };
  } catch {
    return {
      kind: 'error',
      status: response.status,
      body: {
        request_id: response.headers.get('x-request-id') ?? 'req_unknown',
        error: { code: 'unexpected_response', message: `the server answered non-JSON: ${text.slice(0, 200)}` },
      },
      setCookies,
    };
  }
}
