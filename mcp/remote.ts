/**
 * The remote MCP server: the same registry-generated tools as `switchboard mcp` (mcp/tools.ts),
 * served by the worker itself over Streamable HTTP at `/mcp` (worker/mcp.ts mounts it), for
 * clients that cannot start a local process. Runtime-independent: no `node:` imports, so it runs
 * inside the worker on Cloudflare and in Miniflare alike.
 *
 * Differences from the stdio server, and why:
 * - Stateless (no `Mcp-Session-Id`), as the SDK recommends for Workers: any isolate can answer any
 *   request and nothing of a client is kept between calls. The server and its tools are built once
 *   per isolate; each POST gets a transport of its own, joined to that server by RequestMux.
 *   GET (a standalone server-to-client stream) and DELETE (ending a session) have nothing to serve
 *   and answer 405, as in the SDK's stateless examples.
 * - No local files: the server has no file system of the caller's. `file_path` is replaced by
 *   `file`, the bytes in base64; `download_file` returns the bytes in base64 instead of writing to
 *   `out_path`. Both are capped at INLINE_FILE_MAX_BYTES; the normal limits (max_file_bytes,
 *   upload admission) apply on top, because every call goes through the API itself.
 * - Every tool call is one request to the API app, made in-process by the caller of
 *   `handleRemoteMcp` with the same key and client address, so authentication, validation, limits
 *   and the claim/ACK rules are exactly the API's.
 */
import { z } from '@hono/zod-openapi';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type CallToolResult,
  type JSONRPCMessage,
  type JSONRPCRequest,
  ListToolsRequestSchema,
  type RequestId,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import { filenameFromDisposition } from '../client/download-result.js';
import { type FieldInfo, operationFields, splitInput } from '../client/fields.js';
import { operationList } from '../core/contract/index.js';
import type { OperationDef } from '../core/contract/registry.js';
import { VERSION } from '../core/version.js';
import { errorResult, registerTools, serverInstructions, successResult, type ToolErrorBody } from './core.js';
import { decodeBase64InPlace } from './inline-base64.js';
import {
  DATA_NOT_INSTRUCTIONS,
  FILE_PATH_FIELD,
  OUT_PATH_FIELD,
  OVERWRITE_FIELD,
  type ToolDefinition,
  toolDefinitions,
} from './tools.js';

/** The most bytes one call carries inline, either way (4 MB, MB = 1,000,000 bytes). */
export const INLINE_FILE_MAX_BYTES = 4_000_000;
/** The upload field of the send tools. */
export const INLINE_FILE_FIELD = 'file';
/** Base64 of INLINE_FILE_MAX_BYTES is 5.33 MB; the rest of a JSON-RPC call fits in the margin. */
const MAX_REQUEST_BYTES = 6 * 1024 * 1024;
const MAX_BASE64_CHARS = Math.ceil(INLINE_FILE_MAX_BYTES / 3) * 4;
const CAP_SIZE = `${INLINE_FILE_MAX_BYTES / 1_000_000} MB (${INLINE_FILE_MAX_BYTES.toLocaleString('en-US')} bytes)`;
const CAP_TEXT = `at most ${CAP_SIZE}`;

const InlineFile = z.object({
  filename: z.string().min(1).describe("The file's name as recipients see it (metadata only, never a path)."),
  media_type: z.string().min(1).optional().describe('Its media type (default application/octet-stream).'),
  content_base64: z
    .string()
    .describe(`The bytes in standard base64 with padding: ${CAP_TEXT} decoded, and within max_file_bytes.`),
});

const InlineDownload = {
  size: z.number().int().nonnegative(),
  media_type: z.string().describe('The media type the sender declared.'),
  filename: z.string().nullable().describe("The sender's file name."),
  sha256: z.string().describe('SHA-256 (hex) of the bytes returned, computed by the server as they were read.'),
  content_base64: z.string().describe('The bytes, base64.'),
};

/**
 * A stdio tool text in remote terms: `file_path` becomes the inline `file`, and a sentence about
 * `out_path`/`overwrite` (where the stdio download writes) is left out; the remote download says
 * what it returns instead.
 */
function remoteText(text: string): string {
  const local = new RegExp(`\\b(?:${OUT_PATH_FIELD}|${OVERWRITE_FIELD})\\b`);
  return text
    .split(/(?<=\.)\s+(?=[A-Z])/)
    .filter((sentence) => !local.test(sentence))
    .join(' ')
    .replace(new RegExp(`\\b${FILE_PATH_FIELD}\\b`, 'g'), INLINE_FILE_FIELD);
}

/**
 * The remote tool set: every registry tool, with its file fields carrying bytes instead of local
 * paths. Built from `toolDefinitions`, so names, schemas, texts and annotations follow the registry.
 */
export function remoteToolDefinitions(operations: readonly OperationDef[] = operationList): ToolDefinition[] {
  return toolDefinitions(operations).map((tool) => {
    const { op } = tool;
    const inputShape = { ...tool.inputShape };
    let outputShape = tool.outputShape;
    let description = remoteText(tool.description);
    let annotations = tool.annotations;
    if (op.upload) {
      delete inputShape[FILE_PATH_FIELD];
      inputShape[INLINE_FILE_FIELD] = InlineFile.optional().describe(
        `One file to attach, its bytes in base64 (${CAP_TEXT} here; send larger files with the CLI).`,
      );
    }
    if (op.rawResponse) {
      delete inputShape[OUT_PATH_FIELD];
      delete inputShape[OVERWRITE_FIELD];
      const { path: _path, size: _size, media_type: _type, filename: _name, sha256: _sha, ...rest } = outputShape;
      outputShape = { ...rest, ...InlineDownload };
      const parts = [op.summary.endsWith('.') ? op.summary : `${op.summary}.`];
      const text = (op.mcp || undefined)?.description ?? op.description;
      if (text) parts.push(remoteText(text));
      parts.push(
        `Returns the bytes as content_base64 with size, media type, file name and SHA-256, and as an embedded resource; ` +
          `files over ${CAP_SIZE} ` +
          'are refused with payload_too_large (download those with the CLI).',
        // Unlike the stdio download (which writes them to a file), the result carries a peer's bytes.
        DATA_NOT_INSTRUCTIONS,
      );
      description = parts.join(' ');
      // It writes nothing anywhere (the stdio download writes a local file): a read, repeatable.
      annotations = { ...annotations, readOnlyHint: true, destructiveHint: false, idempotentHint: true };
    }
    return { ...tool, inputShape, outputShape, description, annotations };
  });
}

/**
 * One API request, made by the host of the server (worker/mcp.ts) in-process with the caller's
 * credentials. `path` is below `/api/v1`, with its query string.
 */
export type ApiCall = ((method: string, path: string, body?: ApiBody) => Promise<Response>) & {
  /**
   * The base64 of a call's inline file as the bytes of its body, when the host kept it out of the
   * parse and `text` is the placeholder that stands for it there (mcp/inline-base64.ts); taken
   * once. The bytes are the caller's to decode in place.
   */
  inlineBase64?: (text: string) => Uint8Array<ArrayBuffer> | undefined;
};

/** A JSON body, or a send with one file: the operation's body and the file's bytes, sent as multipart. */
export type ApiBody = { json: unknown } | { upload: InlineUpload };

export interface InlineUpload {
  metadata: unknown;
  filename: string;
  mediaType: string;
  bytes: Uint8Array;
}

const tooLarge = (message: string, field?: string): ToolErrorBody => ({
  error: {
    code: 'payload_too_large',
    message,
    ...(field && { field }),
    limit: INLINE_FILE_MAX_BYTES,
  },
});

function apiPath(op: OperationDef, params: Record<string, unknown>, query: Record<string, unknown>): string {
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(params[name] ?? '')));
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item !== undefined && item !== null) search.append(name, String(item));
    }
  }
  const text = search.toString();
  return text ? `${path}?${text}` : path;
}

// A plain character class: a grouped repetition over megabytes overflows the regex engine's stack.
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Strict standard base64 (what every client library writes): anything else is refused, not guessed. */
function decodeBase64(text: string): Uint8Array<ArrayBuffer> | null {
  if (text.length % 4 !== 0 || !BASE64.test(text)) return null;
  // Straight to bytes where the runtime can (no binary string in between, no loop over it).
  const fromBase64 = (Uint8Array as { fromBase64?: (text: string) => Uint8Array<ArrayBuffer> }).fromBase64;
  if (fromBase64) {
    try {
      return fromBase64.call(Uint8Array, text);
    } catch {
      return null;
    }
  }
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    return null;
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function encodeBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let at = 0; at < bytes.length; at += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  }
  return btoa(binary);
}

async function sha256Hex(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The API's structured error, or one made up for an answer that has none (it should not happen). */
async function apiError(response: Response): Promise<CallToolResult> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as ToolErrorBody;
    if (typeof body?.error?.code === 'string') return errorResult(body);
  } catch {
    // Not JSON: reported below.
  }
  return errorResult({ error: { code: 'internal_error', message: `HTTP ${response.status} without an error body.` } });
}

/** Reads at most INLINE_FILE_MAX_BYTES; more (declared or seen) is refused and the rest cancelled. */
async function readCapped(response: Response): Promise<Uint8Array<ArrayBuffer> | null> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > INLINE_FILE_MAX_BYTES) {
    await response.body?.cancel();
    return null;
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (response.body) {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > INLINE_FILE_MAX_BYTES) {
        await reader.cancel();
        return null;
      }
      chunks.push(value);
    }
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

// An operation's fields are pure data of the registry (each one read off its zod schema): once per isolate.
const fields = new WeakMap<OperationDef, FieldInfo[]>();
function fieldsOf(op: OperationDef): FieldInfo[] {
  let known = fields.get(op);
  if (!known) {
    known = operationFields(op);
    fields.set(op, known);
  }
  return known;
}

export async function callRemoteTool(
  tool: ToolDefinition,
  args: Record<string, unknown>,
  api: ApiCall,
): Promise<CallToolResult> {
  const { op } = tool;
  const { [INLINE_FILE_FIELD]: file, ...values } = args;
  const input = splitInput(fieldsOf(op), values);
  const path = apiPath(op, input.params, input.query);

  let body: ApiBody | undefined = op.body ? { json: input.body } : undefined;
  if (op.upload && file !== undefined) {
    const { filename, media_type, content_base64 } = file as z.infer<typeof InlineFile>;
    // Its characters as bytes, when the host kept them out of the parse (base64 characters only).
    const kept = api.inlineBase64?.(content_base64);
    // Measured before decoding, so an oversized file costs no decoding.
    if ((kept ? kept.length : content_base64.length) > MAX_BASE64_CHARS) {
      return errorResult(tooLarge(`file: ${CAP_TEXT} can be sent in a tool call`, 'file.content_base64'));
    }
    const bytes = kept ? decodeBase64InPlace(kept) : decodeBase64(content_base64);
    if (!bytes) {
      return errorResult({
        error: {
          code: 'validation_failed',
          message: 'file.content_base64: not valid base64 (standard alphabet, with padding)',
          field: 'file.content_base64',
        },
      });
    }
    if (bytes.byteLength > INLINE_FILE_MAX_BYTES) {
      return errorResult(tooLarge(`file: ${CAP_TEXT} can be sent in a tool call`, 'file.content_base64'));
    }
    // The bytes as they are: the host sends them as a multipart body without copying them.
    body = { upload: { metadata: input.body, filename, mediaType: media_type ?? 'application/octet-stream', bytes } };
  }

  const response = await api(op.method.toUpperCase(), path, body);
  if (!response.ok) return apiError(response);
  if (!op.rawResponse) {
    // The text is the result's text block as it is: parsed once, never written again.
    const text = await response.text();
    return successResult(op, JSON.parse(text), text);
  }

  const bytes = await readCapped(response);
  if (!bytes) {
    return errorResult(tooLarge(`the file is larger than the ${CAP_SIZE} a tool call can return; use the CLI`));
  }
  const result = {
    ...input.params,
    size: bytes.byteLength,
    media_type: response.headers.get('content-type') ?? 'application/octet-stream',
    filename: filenameFromDisposition(response.headers.get('content-disposition')),
    sha256: await sha256Hex(bytes),
  };
  const structured = { ...result, content_base64: encodeBase64(bytes) };
  return {
    // MCP: the text block is the serialized structured content; the bytes also travel as an
    // embedded resource, which clients that show only `content` hand to the model as a file.
    content: [
      { type: 'text', text: JSON.stringify(structured) },
      {
        type: 'resource',
        resource: { uri: fileUri(input.params), mimeType: result.media_type, blob: structured.content_base64 },
      },
    ],
    structuredContent: structured,
  };
}

/** The resource URI of a downloaded file: its ID under the server's own scheme. */
function fileUri(params: Record<string, unknown>): string {
  return `switchboard://files/${encodeURIComponent(String(params.file_id ?? ''))}`;
}

let tools: ToolDefinition[] | undefined;
let instructions: string | undefined;

/** Whether `name` names a tool that takes an inline file (its `file` argument). */
export function takesInlineFile(name: unknown): boolean {
  tools ??= remoteToolDefinitions();
  return tools.some((tool) => tool.name === name && tool.op.upload === true);
}

/** The remote server's instructions: the stdio ones, with files inline and no local errors. */
export function remoteInstructions(operations: readonly OperationDef[] = operationList): string {
  return serverInstructions(operations, { inlineFiles: { field: INLINE_FILE_FIELD, cap: CAP_TEXT } });
}

/** The SDK's ajv validator is only used for elicitation, which this server never asks for. */
const noSchemaValidation = {
  getValidator: () => () => ({
    valid: false as const,
    data: undefined,
    errorMessage: 'JSON Schema validation is not used by this server.',
  }),
};

/** A server whose tool calls go to `apiFor(requestId)`: the caller of the JSON-RPC request it serves. */
function buildServer(apiFor: (requestId: string | number) => ApiCall | undefined): McpServer {
  // The definitions are pure data of the registry: built once per isolate.
  tools ??= remoteToolDefinitions();
  instructions ??= remoteInstructions();
  const server = new McpServer(
    { name: 'switchboard', title: 'Switchboard', version: VERSION },
    { instructions, jsonSchemaValidator: noSchemaValidation },
  );
  registerTools(
    server,
    tools,
    (tool, args, requestId) => {
      const api = apiFor(requestId);
      if (!api) throw new Error('A tool call with no caller.');
      return callRemoteTool(tool, args, api);
    },
    { ListToolsRequestSchema },
  );
  return server;
}

/** A server whose every tool call goes to `api`. */
export function buildRemoteServer(api: ApiCall): McpServer {
  return buildServer(() => api);
}

/** The largest JSON-RPC body `/mcp` reads (worker/mcp.ts reads it, this bound included). */
export const MCP_MAX_REQUEST_BYTES = MAX_REQUEST_BYTES;

const isRequest = (message: JSONRPCMessage): message is JSONRPCRequest => 'method' in message && 'id' in message;
const isResponse = (message: JSONRPCMessage) => 'id' in message && ('result' in message || 'error' in message);

/**
 * The transport of the isolate's one server: it stands for every request's own transport. The SDK
 * answers a request through the transport it is connected to, and a stateless HTTP transport serves
 * one HTTP request, so each request's transport hands its messages here; their IDs are renamed
 * (two clients may both send ID 1) and mapped back, with their caller, until each is answered.
 */
class RequestMux implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private next = 0;
  private readonly open = new Map<string, { transport: Transport; id: RequestId; api: ApiCall }>();

  async start(): Promise<void> {}
  async close(): Promise<void> {}

  apiFor(requestId: string | number): ApiCall | undefined {
    return this.open.get(String(requestId))?.api;
  }

  /** Routes what `transport` receives to the server, its calls made through `api`. */
  attach(transport: Transport, api: ApiCall): void {
    transport.onmessage = (message, extra) => {
      if (!isRequest(message)) {
        this.onmessage?.(message, extra);
        return;
      }
      const id = `r${++this.next}`;
      this.open.set(id, { transport, id: message.id, api });
      this.onmessage?.({ ...message, id }, extra);
    };
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const key = isResponse(message) ? (message as { id: RequestId }).id : options?.relatedRequestId;
    const call = key === undefined ? undefined : this.open.get(String(key));
    // Nothing else has anywhere to go: a stateless server has no stream of its own to the client.
    if (!call) return;
    if (isResponse(message)) {
      this.open.delete(String(key));
      await call.transport.send({ ...message, id: call.id } as JSONRPCMessage);
    } else {
      await call.transport.send(message, { relatedRequestId: call.id });
    }
  }
}

/** The isolate's server and its transport, built on the first request. */
let shared: Promise<RequestMux> | undefined;

function sharedServer(): Promise<RequestMux> {
  shared ??= (async () => {
    const mux = new RequestMux();
    await buildServer((requestId) => mux.apiFor(requestId)).connect(mux);
    return mux;
  })();
  return shared;
}

function methodNotAllowed(): Response {
  return new Response(
    JSON.stringify({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Method not allowed: this server is stateless; POST JSON-RPC messages.' },
      id: null,
    }),
    { status: 405, headers: { Allow: 'POST', 'Content-Type': 'application/json' } },
  );
}

/**
 * The common request, answered without the SDK's transport: one JSON-RPC request of these
 * methods. The transport would validate the message with zod, open an SSE stream, arm a keep-alive
 * timer and write one event to it; the lean path writes the same event as one string.
 */
const LEAN_METHODS = new Set(['tools/call', 'tools/list', 'initialize']);
const LEAN_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
/** `Content-Type` values that are plainly JSON (the transport's own check, for these, is a string compare). */
const LEAN_TYPES = new Set(['application/json', 'application/json; charset=utf-8', 'application/json;charset=utf-8']);
/** The transport's SSE answer headers (webStandardStreamableHttp.ts, handlePostRequest). */
const SSE_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
} as const;
const plainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * True when `body` is one JSON-RPC request that the SDK's JSONRPCMessageSchema accepts as is, of a
 * lean method, sent with headers the transport accepts without a second look. Stricter than the
 * SDK on purpose: anything else (batches, notifications, responses, an unusual `_meta`, a
 * protocol-version header the SDK would refuse, other media types) goes to the SDK's transport.
 */
function leanRequest(request: Request, body: unknown): body is JSONRPCRequest {
  if (!plainObject(body) || body.jsonrpc !== '2.0') return false;
  if (typeof body.method !== 'string' || !LEAN_METHODS.has(body.method)) return false;
  const { id, params } = body;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return false;
  for (const key in body) if (!LEAN_KEYS.has(key)) return false;
  if (params !== undefined) {
    if (!plainObject(params)) return false;
    const meta = params._meta;
    if (meta !== undefined) {
      if (!plainObject(meta)) return false;
      for (const key in meta) if (key !== 'progressToken') return false;
      const token = meta.progressToken;
      if (token !== undefined && typeof token !== 'string' && !Number.isSafeInteger(token)) return false;
    }
  }
  const accept = request.headers.get('accept');
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return false;
  if (!LEAN_TYPES.has(request.headers.get('content-type')?.toLowerCase() ?? '')) return false;
  // The transport checks this header on every request but initialize.
  const version = request.headers.get('mcp-protocol-version');
  return version === null || body.method === 'initialize' || SUPPORTED_PROTOCOL_VERSIONS.includes(version);
}

const sseEvent = (message: JSONRPCMessage) => `event: message\ndata: ${JSON.stringify(message)}\n\n`;

/**
 * One request's transport on the lean path: what the server sends for the request (its response,
 * and anything it sends before it) becomes SSE events, as the SDK's transport writes them, and the
 * answer is one string once the response is there. The SDK's transport would send its headers at
 * once and a keep-alive comment every 15 s until then; a tool call is one API request, over long
 * before that, and SSE clients skip comments. No timer is armed per call (in workerd a timer is
 * one of the dearer things a request can ask for).
 */
class LeanCall implements Transport {
  onmessage?: Transport['onmessage'];
  private events = '';
  private finish!: (response: Response) => void;
  readonly answer = new Promise<Response>((resolve) => {
    this.finish = resolve;
  });

  async start(): Promise<void> {}
  async close(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    this.events += sseEvent(message);
    if (isResponse(message)) this.finish(new Response(this.events, { status: 200, headers: SSE_HEADERS }));
  }
}

/**
 * Answers one HTTP request to `/mcp` (already authenticated by the caller). `parsedBody` is the
 * body when the caller has read and parsed it already.
 */
export async function handleRemoteMcp(request: Request, api: ApiCall, parsedBody?: unknown): Promise<Response> {
  if (request.method !== 'POST') return methodNotAllowed();
  const mux = await sharedServer();
  if (parsedBody !== undefined && leanRequest(request, parsedBody)) {
    const call = new LeanCall();
    mux.attach(call, api);
    call.onmessage?.(parsedBody);
    return call.answer;
  }
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    maxRequestBodySize: MAX_REQUEST_BYTES,
  });
  mux.attach(transport, api);
  await transport.start();
  // The answer is an SSE stream that the transport closes after the last response of this
  // request; the transport is garbage once it is done.
  return transport.handleRequest(request, parsedBody === undefined ? undefined : { parsedBody });
}
