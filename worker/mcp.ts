/**
 * `/mcp`: the remote MCP server (mcp/remote.ts) on the worker, authenticated exactly like the API
 * (requireAgent: the bearer key and the host's source addresses, the same 401/403 bodies). Each
 * tool call is one request to this same app, made in-process with the caller's key: no network
 * hop, and every rule of the API applies unchanged. The call is marked as in-process
 * (worker/in-process.ts), so what this request already did (its request ID and client address, the
 * request metrics, the front secret, key and host address checks) is not done twice; what depends
 * on the call (routing, the schemas, channel access, the body and its limits) is.
 *
 * The body is read here, through the body module: a body larger than any JSON call of the API can
 * only carry an inline file, so it is admitted as an upload (the per-agent lease multipart sends
 * take) before it is read on, and the upload the call makes adopts that lease. A refused call costs
 * no parsing and no decoding: its bytes are drained and dropped.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { ApiError, reviveApiError } from '../core/contract/errors.js';
import { maxJsonRequestBytes } from '../core/lib/limits.js';
import { currentSettings } from '../core/lib/settings-cache.js';
import { findInlineBase64 } from '../mcp/inline-base64.js';
import {
  type ApiCall,
  handleRemoteMcp,
  INLINE_FILE_MAX_BYTES,
  type InlineUpload,
  MCP_MAX_REQUEST_BYTES,
  takesInlineFile,
} from '../mcp/remote.js';
import { bodyReader, drainBody, type ReadGate, readBounded } from './body/index.js';
import type { AppEnv } from './handlers/types.js';
import { markInProcess } from './in-process.js';
import { requireAgent } from './middleware/auth.js';
import { ownHostAndOrigin } from './middleware/same-origin.js';
import { API_BASE } from './openapi.js';
import { type Admission, admitUpload } from './uploads/admission.js';

export const MCP_PATH = '/mcp';

/** Room around the API body in a tool call: the JSON-RPC envelope, the tool name, a file's name and type. */
const CALL_ENVELOPE_BYTES = 64 * 1024;

/** The admission of one `/mcp` request, if its size says it may carry a file. */
class CallAdmission {
  admission: Admission | null = null;
  adopted = false;

  take(): Admission | null {
    if (this.adopted || !this.admission) return null;
    this.adopted = true;
    return this.admission;
  }

  /** Released when the answer is over, unless the call's upload took it (and releases it itself). */
  async done(): Promise<void> {
    if (this.admission && !this.adopted) await this.admission.release();
  }
}

/** The gate before a large body is read on: the upload admission, or undefined for a small call. */
async function admissionGate(c: Context<AppEnv>, held: CallAdmission): Promise<ReadGate | undefined> {
  const { limits } = await currentSettings(c.env);
  const threshold = maxJsonRequestBytes(limits) + CALL_ENVELOPE_BYTES;
  const declared = Number(c.req.header('content-length') ?? Number.NaN);
  if (declared <= threshold) return undefined;
  const agentId = (c.get('agent') as { agent_id: string }).agent_id;
  // Base64 is 4 characters for 3 bytes: the file is at most three quarters of the body.
  const file = Number.isFinite(declared) ? Math.ceil((declared * 3) / 4) : INLINE_FILE_MAX_BYTES;
  const reserveBytes = Math.min(file, INLINE_FILE_MAX_BYTES, limits.max_file_bytes);
  return {
    afterBytes: Number.isFinite(declared) ? 0 : threshold,
    open: async () => {
      held.admission = await admitUpload(c, agentId, reserveBytes, limits);
    },
  };
}

/** The JSON-RPC error a refused body gets (no ID: the body was not read), with the API's error. */
function refusal(c: Context<AppEnv>, error: ApiError): Response {
  const tooLarge = error.code === 'payload_too_large';
  const message = tooLarge
    ? `Payload Too Large: Request body must not exceed ${MCP_MAX_REQUEST_BYTES} bytes`
    : `${error.code}: ${error.text}`;
  const { limit, retryAfterMs } = error.details;
  const data = {
    request_id: c.get('requestId'),
    error: {
      code: error.code,
      message: error.text,
      ...(limit !== undefined && { limit }),
      ...(retryAfterMs !== undefined && { retry_after_ms: retryAfterMs }),
    },
  };
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (retryAfterMs !== undefined) headers['Retry-After'] = String(Math.max(1, Math.ceil(retryAfterMs / 1000)));
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message, data }, id: null }), {
    status: error.status,
    headers,
  });
}

/**
 * The body, read and parsed here: `parsed` for the transport, or `request` again (text) when it is
 * not JSON, so that the transport answers it as it answers every malformed message.
 */
async function readCall(
  c: Context<AppEnv>,
  held: CallAdmission,
): Promise<{ parsed: unknown; aside?: FileAside } | { request: Request } | { refused: Response }> {
  let bytes: Uint8Array;
  if (Number(c.req.header('content-length')) > MCP_MAX_REQUEST_BYTES) {
    return { refused: refusal(c, new ApiError('payload_too_large', 'The call is too large.')) };
  }
  try {
    const declared = Number(c.req.header('content-length') ?? Number.NaN);
    // The runtime's own stream (the drain middleware sets no relay for this route), read into one
    // array of the declared size: no relay copies, no chunks to join.
    bytes = await readBounded(c.req.raw.body, MCP_MAX_REQUEST_BYTES, await admissionGate(c, held), declared);
  } catch (raw) {
    const error = reviveApiError(raw);
    if (!(error instanceof ApiError)) throw raw;
    return { refused: refusal(c, error) };
  }
  const aside = parseWithFileAside(bytes as Uint8Array<ArrayBuffer>);
  if (aside) return aside;
  const text = new TextDecoder().decode(bytes);
  try {
    return { parsed: JSON.parse(text) };
  } catch {
    const headers = new Headers(c.req.raw.headers);
    headers.delete('content-length');
    return { request: new Request(c.req.raw.url, { method: 'POST', headers, body: text }) };
  }
}

/** Below this, a file's base64 is parsed with the rest of its call: keeping it aside saves little. */
const ASIDE_MIN_CHARS = 64 * 1024;

/** An inline file's base64 kept out of the parse: the placeholder that stands for it, its bytes. */
interface FileAside {
  placeholder: string;
  base64: Uint8Array<ArrayBuffer>;
}

/**
 * The call parsed with its inline file's base64 left in the body's bytes (mcp/inline-base64.ts),
 * or null for the ordinary parse: no large base64 string, not JSON, or the placeholder is not
 * where an upload tool's call carries its file (then the ordinary parse gives the call as it is).
 */
function parseWithFileAside(bytes: Uint8Array<ArrayBuffer>): { parsed: unknown; aside: FileAside } | null {
  if (bytes.length <= ASIDE_MIN_CHARS) return null;
  const found = findInlineBase64(bytes, ASIDE_MIN_CHARS);
  if (!found) return null;
  // Not base64 ('-'), and unguessable: it cannot be taken for a client's text or bytes.
  const placeholder = `inline-file-${crypto.randomUUID()}`;
  // Cut next to quotes (ASCII), so the two pieces decode exactly as the whole body would.
  const decoder = new TextDecoder();
  const text = decoder.decode(bytes.subarray(0, found.start)) + placeholder + decoder.decode(bytes.subarray(found.end));
  let parsed: { method?: unknown; params?: { name?: unknown; arguments?: { file?: { content_base64?: unknown } } } };
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  const params = parsed?.params;
  if (
    parsed?.method !== 'tools/call' ||
    !takesInlineFile(params?.name) ||
    params?.arguments?.file?.content_base64 !== placeholder
  ) {
    return null;
  }
  return { parsed, aside: { placeholder, base64: bytes.subarray(found.start, found.end) } };
}

/**
 * `api`, answering the kept base64 of `aside` for its placeholder (once), and freeing the body's
 * buffer once the upload made from it is answered.
 */
function withFileAside(api: ApiCall, aside: FileAside | undefined): ApiCall {
  if (!aside) return api;
  const buffer = aside.base64.buffer;
  let kept: Uint8Array<ArrayBuffer> | undefined = aside.base64;
  const call: ApiCall = async (method, path, body) => {
    try {
      return await api(method, path, body);
    } finally {
      // The answer comes once the upload was staged (or refused) and its body read to the end:
      // the buffer, the file's one copy, goes now rather than when garbage collection comes to
      // it, which may be after several more admitted calls have each taken one.
      if (body && 'upload' in body && body.upload.bytes.buffer === buffer && !buffer.detached) buffer.transfer(0);
    }
  };
  call.inlineBase64 = (text) => {
    if (text !== aside.placeholder) return undefined;
    const bytes = kept;
    kept = undefined;
    return bytes;
  };
  return call;
}

/** Lets `held` go once the answer is over (or the client has gone). */
function releaseAfter(c: Context<AppEnv>, response: Response, held: CallAdmission): Response {
  if (!held.admission) return response;
  if (!response.body) {
    waitUntil(c, held.done());
    return response;
  }
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  waitUntil(
    c,
    response.body
      .pipeTo(writable)
      .catch(() => {})
      .then(() => held.done()),
  );
  return new Response(readable, response);
}

function waitUntil(c: Context<AppEnv>, work: Promise<unknown>): void {
  try {
    c.executionCtx.waitUntil(work);
  } catch {
    // No execution context (the app called directly in a test): the work still runs.
  }
}

/** A name in a part header as browsers write it (the multipart parser reads it back the same way). */
const headerValue = (text: string) => text.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');

/** A media type as a Blob keeps it (File API): lower case, or empty when it is not printable ASCII. */
const blobType = (type: string) => (/^[\x20-\x7e]*$/.test(type) ? type.toLowerCase() : '');

/**
 * A send with its file as a multipart body (metadata, then the file), streamed from the bytes the
 * call decoded: neither a Blob nor workerd's form encoding copies them again.
 */
function multipartOf(upload: InlineUpload): { body: ReadableStream<Uint8Array>; type: string } {
  const boundary = `----switchboard-mcp-${crypto.randomUUID()}`;
  const encoder = new TextEncoder();
  const parts = [
    encoder.encode(
      `--${boundary}\r\nContent-Disposition: form-data; name="metadata"\r\n\r\n${JSON.stringify(upload.metadata)}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${headerValue(upload.filename)}"\r\n` +
        `Content-Type: ${blobType(upload.mediaType) || 'application/octet-stream'}\r\n\r\n`,
    ),
    upload.bytes,
    encoder.encode(`\r\n--${boundary}--\r\n`),
  ];
  let at = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const part = parts[at];
      if (part === undefined) return controller.close();
      parts[at++] = undefined as never;
      controller.enqueue(part);
    },
  });
  return { body, type: `multipart/form-data; boundary=${boundary}` };
}

/** Into one reused buffer (bodyReader): a refused inline upload allocates nothing per chunk. */
async function drainRefused(body: ReadableStream<Uint8Array> | null, declared: number): Promise<void> {
  if (!body || body.locked) return;
  const reader = bodyReader(body, declared);
  await drainBody(reader, MCP_MAX_REQUEST_BYTES);
  try {
    reader.releaseLock();
  } catch {
    // A read still pending (the drain ran out of time): the stream stays with it, as it would have.
  }
}

function inProcessApi(app: OpenAPIHono<AppEnv>, c: Context<AppEnv>, held: CallAdmission): ApiCall {
  const outer = c.req.raw;
  let ctx: ExecutionContext | undefined;
  try {
    ctx = c.executionCtx;
  } catch {
    // No execution context (the app called directly in a test).
  }
  const agent = c.get('agent');
  const requestId = c.get('requestId');
  const clientIp = c.get('clientIp');
  const authorization = outer.headers.get('authorization');
  return (method, path, body) => {
    // The key, for the calls whose channels are checked with it (requireAgentFor); the address and
    // the request ID come with the mark, and the front's secret is not asked for again.
    const headers = new Headers();
    if (authorization) headers.set('authorization', authorization);
    let payload: BodyInit | undefined;
    if (body && 'json' in body) {
      headers.set('content-type', 'application/json');
      payload = JSON.stringify(body.json);
    } else if (body) {
      const form = multipartOf(body.upload);
      headers.set('content-type', form.type);
      payload = form.body;
    }
    const request = new Request(new URL(API_BASE + path, outer.url), { method, headers, body: payload });
    if (agent) markInProcess(request, { agent, requestId, clientIp, takeAdmission: () => held.take() });
    return Promise.resolve(app.fetch(request, c.env, ctx));
  };
}

/**
 * A 401 names the one scheme we take, with no OAuth parameters: a client that finds no
 * `resource_metadata` here does not start an OAuth flow and shows our `unauthenticated` error.
 */
const bearerChallenge = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  if (c.res.status === 401) c.res.headers.set('WWW-Authenticate', 'Bearer');
});

async function serveMcp(app: OpenAPIHono<AppEnv>, c: Context<AppEnv>): Promise<Response> {
  const held = new CallAdmission();
  const api = inProcessApi(app, c, held);
  if (c.req.method !== 'POST') return handleRemoteMcp(c.req.raw, api);
  const call = await readCall(c, held);
  if ('refused' in call) {
    await held.done();
    // The rest is read (and dropped) before the refusal goes out: an HTTP client still sending its
    // body when the answer comes and the connection closes sees a failed write instead of the
    // answer. The body is the runtime's own (the drain middleware sets no relay for this route);
    // readBounded released it, and it is released again for the drain middleware to read on
    // whatever these bounds leave.
    await drainRefused(c.req.raw.body, Number(c.req.header('content-length') ?? Number.NaN));
    return call.refused;
  }
  try {
    const response =
      'parsed' in call
        ? await handleRemoteMcp(c.req.raw, withFileAside(api, call.aside), call.parsed)
        : await handleRemoteMcp(call.request, api);
    return releaseAfter(c, response, held);
  } catch (error) {
    await held.done();
    throw error;
  }
}

export function mountRemoteMcp(app: OpenAPIHono<AppEnv>): void {
  // Tool calls change state, so a foreign browser Origin is refused as on every API write, and
  // Host must be one of the server's names on every request (the MCP specification asks servers
  // to guard against DNS rebinding); MCP clients that are not browsers send no Origin.
  app.all(MCP_PATH, bearerChallenge, ownHostAndOrigin, requireAgent, (c) => serveMcp(app, c));
}
