/**
 * `switchboard mcp`: the MCP server over stdio. stdout carries the protocol only; logs go to stderr.
 *
 * Clients give a server about a second to list its tools before they start without it, so the
 * first answers come before anything heavy is loaded: `initialize`, `tools/list` and `ping` are
 * answered from the listing recorded at build time (mcp/listing.ts) by the full server itself.
 * Any other message hands the session to the full server (mcp/server.ts, the SDK and the
 * registry), which then gets every message in order, after a replay of the client's
 * `initialize`; it is also loaded in the background once the tools are listed, so that the first
 * tool call does not wait for it.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Env } from '../client/config.js';
import { resolveProfile } from '../client/config.js';
import { describePolicy, type FilePolicy, filePolicy } from './file-policy.js';
import type { StdioListing } from './listing.js';
import { type LineEvent, LineReader, MAX_LINE_BYTES } from './stdio-lines.js';

/** The build (scripts/build-node.mjs) puts the recorded listing here, as JSON text. */
declare const __SWITCHBOARD_MCP_LISTING__: string | undefined;

export interface StdioOptions {
  profile?: string;
  env?: Env;
  allowDirs?: readonly string[];
  /** Default: the listing of the build; none (running from source) means the full server at once. */
  listing?: StdioListing | null;
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
  stderr?: NodeJS.WritableStream;
}

function builtListing(): StdioListing | null {
  return typeof __SWITCHBOARD_MCP_LISTING__ === 'string'
    ? (JSON.parse(__SWITCHBOARD_MCP_LISTING__) as StdioListing)
    : null;
}

type Id = string | number;
type Message = Record<string, unknown>;

/** The id of the client's `initialize` when it is replayed to the full server (its answer is dropped). */
const REPLAY_ID = 'switchboard-replayed-initialize';

const isObject = (value: unknown): value is Message =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isId = (value: unknown): value is Id =>
  typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
const onlyKeys = (value: Message, keys: readonly string[]) => Object.keys(value).every((key) => keys.includes(key));

/**
 * The answer the full server would give, for the few requests whose answer is fixed; undefined for
 * anything else, including a request the SDK would refuse (those go to the full server).
 */
export function fastAnswer(listing: StdioListing, message: Message): Message | undefined {
  if (message.jsonrpc !== '2.0' || !isId(message.id) || !onlyKeys(message, ['jsonrpc', 'id', 'method', 'params'])) {
    return undefined;
  }
  const { params } = message;
  const meta = (p: Message) => p._meta === undefined || isObject(p._meta);
  let result: Message | undefined;
  switch (message.method) {
    case 'initialize': {
      if (!isObject(params) || typeof params.protocolVersion !== 'string' || !meta(params)) return undefined;
      const { capabilities, clientInfo } = params;
      if (!isObject(capabilities) || !Object.values(capabilities).every((c) => c === undefined || isObject(c))) {
        return undefined;
      }
      if (!isObject(clientInfo) || typeof clientInfo.name !== 'string' || typeof clientInfo.version !== 'string') {
        return undefined;
      }
      const supported = listing.protocolVersions.includes(params.protocolVersion);
      result = {
        protocolVersion: supported ? params.protocolVersion : listing.protocolVersions[0],
        ...listing.initialize,
      };
      break;
    }
    case 'tools/list':
      if (params !== undefined) {
        if (!isObject(params) || !onlyKeys(params, ['cursor', '_meta']) || !meta(params)) return undefined;
        if (params.cursor !== undefined && typeof params.cursor !== 'string') return undefined;
      }
      result = listing.tools;
      break;
    case 'ping':
      if (params !== undefined && !(isObject(params) && meta(params))) return undefined;
      result = {};
      break;
    default:
      return undefined;
  }
  return { jsonrpc: '2.0', id: message.id, result };
}

/** The SDK transport the full server is connected to once it takes over: our framing, its protocol. */
class HandoffTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: Transport['onclose'];
  onerror?: Transport['onerror'];

  constructor(
    private readonly write: (message: unknown) => Promise<void>,
    private readonly validate: (message: unknown) => JSONRPCMessage,
  ) {}

  async start(): Promise<void> {}

  deliver(message: unknown): void {
    let checked: JSONRPCMessage;
    try {
      checked = this.validate(message);
    } catch (error) {
      // As the SDK's own stdio transport: a line that is JSON but not JSON-RPC is reported, not answered.
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    this.onmessage?.(checked);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if ('id' in message && message.id === REPLAY_ID) return;
    await this.write(message);
  }

  async close(): Promise<void> {
    this.onclose?.();
  }
}

export async function runStdioServer(options: StdioOptions = {}): Promise<void> {
  const env = options.env ?? process.env;
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const log = (text: string) => stderr.write(`switchboard mcp: ${text}\n`);
  const files = filePolicy({ env, ...(options.allowDirs && { allowDirs: options.allowDirs }) });
  log(describePolicy(files));
  const configured = reportConfig(options.profile, env, log);
  const listing = options.listing === undefined ? builtListing() : options.listing;

  const write = (message: unknown) =>
    new Promise<void>((resolve) => {
      if (stdout.write(`${JSON.stringify(message)}\n`)) resolve();
      else stdout.once('drain', resolve);
    });

  let initialize: Message | undefined;
  let initialized: Message | undefined;
  let full: Promise<HandoffTransport> | undefined;
  const loadFull = () => {
    full ??= connectFull({ ...(options.profile && { profile: options.profile }), env, files }, write, log);
    return full;
  };
  /** Set once the full server takes every message (in order, through this promise chain). */
  let handedOff: Promise<HandoffTransport> | undefined;
  const handOff = (message: unknown) => {
    if (!handedOff) {
      handedOff = loadFull().then((transport) => {
        if (initialize) transport.deliver({ ...initialize, id: REPLAY_ID });
        if (initialized) transport.deliver(initialized);
        return transport;
      });
    }
    handedOff = handedOff.then((transport) => {
      transport.deliver(message);
      return transport;
    });
    handedOff.catch((error: unknown) => {
      log(`internal error: ${error instanceof Error ? error.message : String(error)}`);
      process.exitCode = 1;
      stdin.pause();
    });
  };

  // The start-up check and the background load, after the tools are listed (or a second after
  // start if they are not): neither may delay that answer.
  let warmed = false;
  const warm = () => {
    if (warmed) return;
    warmed = true;
    clearTimeout(warmTimer);
    setImmediate(() => {
      loadFull().catch(() => {});
      if (configured) void startupCheck(options.profile, env, log, abort.signal);
    });
  };
  const warmTimer = setTimeout(warm, 1000).unref();
  const abort = new AbortController();

  const onLine = (event: LineEvent) => {
    if (event.kind === 'oversize') {
      log(`refused a message of ${event.bytes} bytes (at most ${MAX_LINE_BYTES} per line)`);
      void write({
        jsonrpc: '2.0',
        id: event.id,
        error: {
          code: -32600,
          message: `Request too large: ${event.bytes} bytes in one line, at most ${MAX_LINE_BYTES}; it was not processed`,
        },
      });
      return;
    }
    if (event.text.trim() === '') return;
    let message: unknown;
    try {
      message = JSON.parse(event.text);
    } catch {
      log('refused a line that is not JSON');
      void write({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the line is not JSON' } });
      return;
    }
    if (handedOff || !listing || !isObject(message)) {
      handOff(message);
      return;
    }
    if (message.method === 'notifications/initialized' && !('id' in message)) {
      initialized = message;
      return;
    }
    const answer = fastAnswer(listing, message);
    if (!answer) {
      handOff(message);
      return;
    }
    if (message.method === 'initialize') initialize = message;
    void write(answer).then(() => {
      if (message.method === 'tools/list') warm();
    });
  };

  // Running from source (no recorded listing): the full server answers everything.
  if (!listing) warm();
  const reader = new LineReader(onLine);
  stdin.on('data', (chunk: Buffer | string) => reader.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
  stdin.on('end', () => abort.abort());
}

async function connectFull(
  context: { profile?: string; env: Env; files: FilePolicy },
  write: (message: unknown) => Promise<void>,
  log: (text: string) => void,
): Promise<HandoffTransport> {
  const [{ buildServer }, { JSONRPCMessageSchema }] = await Promise.all([
    import('./server.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  const server = await buildServer(context);
  server.server.onerror = (error) => log(`protocol error: ${error.message}`);
  const transport = new HandoffTransport(write, (message) => JSONRPCMessageSchema.parse(message));
  await server.connect(transport);
  return transport;
}

/**
 * A bad config is reported at start-up, where the client's log shows it; the tools still start
 * so that a later `switchboard login` fixes them without restarting the client. True when there
 * is a URL and a key to check.
 */
function reportConfig(profile: string | undefined, env: Env, log: (text: string) => void): boolean {
  try {
    const resolved = resolveProfile(profile, env);
    for (const name of resolved.ignored) log(`--profile ${resolved.profileName} wins over ${name} (ignored)`);
    if (!resolved.url || !resolved.apiKey) {
      log(
        `profile "${resolved.profileName}" has no ${resolved.url ? 'API key' : 'URL'} yet; ` +
          'tools will answer not_configured until `switchboard login` or SWITCHBOARD_URL/SWITCHBOARD_API_KEY set it',
      );
      return false;
    }
    return true;
  } catch (error) {
    log(error instanceof Error ? error.message : String(error));
    return false;
  }
}

/** One GET /me with the configured key: one line on stderr saying who this is, or what is wrong. */
async function startupCheck(profile: string | undefined, env: Env, log: (text: string) => void, signal: AbortSignal) {
  const { checkConnection } = await import('./startup-check.js');
  const line = await checkConnection({ ...(profile && { profile }), env, signal });
  if (line && !signal.aborted) log(line);
}
