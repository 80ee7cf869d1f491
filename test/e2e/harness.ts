/**
 * End-to-end harness: starts the real launcher (`node dist/node/switchboard.mjs serve`) on a free
 * port with a temporary data directory and talks to it over real sockets. Build first
 * (`npm run build`); `npm test` does.
 *
 *   const server = await startServer();
 *   const cookie = await adminLogin(server);
 *   const host = await createHost(server, cookie, ['127.0.0.1']);
 *   const { key } = await createAgent(server, cookie, host.host_id);
 *   const me = await api(server, 'GET', '/me', { key });
 *   await server.stop();
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';

export const ROOT = resolve(import.meta.dirname, '../..');
export const CLI = join(ROOT, 'dist/node/switchboard.mjs');
export const API_BASE = '/api/v1';
/** The password the harness gives the first administrator unless told otherwise. */
export const DEFAULT_ADMIN_PASSWORD = 'e2e-admin-password-0123';
const READY = /^Switchboard listening on (https?):\/\/(.+):(\d+)$/m;

export interface StartOptions {
  /** --host (default 127.0.0.1). */
  host?: string;
  /** Reuse a data directory (restarts); default a fresh temporary one. */
  dataDir?: string;
  /** Extra environment. SWITCHBOARD_ADMIN_PASSWORD defaults to DEFAULT_ADMIN_PASSWORD; set it to
   *  undefined to start without one. */
  env?: Record<string, string | undefined>;
  /** Extra CLI arguments (e.g. --tls-cert/--tls-key). */
  args?: string[];
  readyTimeoutMs?: number;
}

export interface Server {
  /** Where a client connects: a wildcard listen address is reached through loopback. */
  url: string;
  port: number;
  /** The URL as printed on the ready line. */
  printedUrl: string;
  dataDir: string;
  /** Miniflare's own loopback URL (from <data>/run/launcher.json): it must refuse everything. */
  internalUrl: string;
  adminPassword: string | undefined;
  pid: number;
  stdout(): string;
  stderr(): string;
  /** Sends `signal` and waits for the exit; resolves with the exit code (null when killed). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** SIGKILL, like a crash or the OOM killer. */
  kill(): Promise<void>;
}

const liveChildren = new Set<ChildProcess>();
const tempDirs = new Set<string>();
process.on('exit', () => {
  for (const child of liveChildren) child.kill('SIGKILL');
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

/** A fresh temporary directory, removed when the test process exits. */
export function tempDir(prefix = 'switchboard-e2e-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

function assertBuilt(): void {
  for (const file of ['dist/node/switchboard.mjs', 'dist/worker/index.js', 'dist/worker/miniflare-options.json']) {
    if (!existsSync(join(ROOT, file)))
      throw new Error(`${file} is missing: run \`npm run build\` before the e2e tests.`);
  }
}

interface Spawned {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function spawnServe(options: StartOptions, dataDir: string): Spawned {
  assertBuilt();
  const env: Record<string, string | undefined> = {
    ...process.env,
    SWITCHBOARD_ADMIN_PASSWORD: DEFAULT_ADMIN_PASSWORD,
    // The flags below must win; make sure an outer environment cannot interfere.
    SWITCHBOARD_HOST: undefined,
    SWITCHBOARD_PORT: undefined,
    SWITCHBOARD_DATA_DIR: undefined,
    ...options.env,
  };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
  const args = [CLI, 'serve', '--port', '0', '--data', dataDir, '--host', options.host ?? '127.0.0.1'];
  const child = spawn(process.execPath, [...args, ...(options.args ?? [])], {
    // Not the repository: `switchboard serve` must work from wherever an operator starts it.
    cwd: tmpdir(),
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  liveChildren.add(child);
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (text: string) => {
    out += text;
  });
  child.stderr?.setEncoding('utf8').on('data', (text: string) => {
    err += text;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => {
    child.once('exit', (code, signal) => {
      liveChildren.delete(child);
      // Let the pipes drain so stdout()/stderr() hold everything the process wrote.
      setImmediate(() => done({ code, signal }));
    });
  });
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Starts the launcher and resolves once it printed its ready line. */
export async function startServer(options: StartOptions = {}): Promise<Server> {
  const dataDir = options.dataDir ?? tempDir();
  const spawned = spawnServe(options, dataDir);
  const { child } = spawned;
  const timeoutMs = options.readyTimeoutMs ?? 30_000;

  const match = await new Promise<RegExpExecArray>((done, fail) => {
    const describe = () => `\n--- stdout ---\n${spawned.stdout()}\n--- stderr ---\n${spawned.stderr()}`;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`the server did not get ready within ${timeoutMs} ms${describe()}`));
    }, timeoutMs);
    const check = () => {
      const found = READY.exec(spawned.stdout());
      if (found) {
        clearTimeout(timer);
        child.stdout?.off('data', check);
        done(found);
      }
    };
    child.stdout?.on('data', check);
    spawned.exited.then(({ code, signal }) => {
      clearTimeout(timer);
      fail(new Error(`the server exited before getting ready (code ${code}, signal ${signal})${describe()}`));
    });
  });

  const [, scheme, printedHost, portText] = match as unknown as [string, string, string, string];
  const port = Number(portText);
  const launcher = JSON.parse(readFileSync(join(dataDir, 'run', 'launcher.json'), 'utf8')) as {
    pid: number;
    public_url: string;
    internal_url: string;
  };
  const connectHost =
    printedHost === '0.0.0.0' || printedHost === '[::]' ? '127.0.0.1' : printedHost === '[::1]' ? '[::1]' : printedHost;
  const adminPassword =
    options.env && 'SWITCHBOARD_ADMIN_PASSWORD' in options.env
      ? options.env.SWITCHBOARD_ADMIN_PASSWORD
      : DEFAULT_ADMIN_PASSWORD;

  return {
    url: `${scheme}://${connectHost}:${port}`,
    port,
    printedUrl: `${scheme}://${printedHost}:${port}`,
    dataDir,
    internalUrl: launcher.internal_url,
    adminPassword,
    pid: child.pid as number,
    stdout: spawned.stdout,
    stderr: spawned.stderr,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const { code } = await spawned.exited;
      return code;
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await spawned.exited;
    },
  };
}

/** Runs the launcher expecting it to stop by itself (a configuration error). */
export async function runUntilExit(
  options: StartOptions = {},
  timeoutMs = 30_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const spawned = spawnServe(options, options.dataDir ?? tempDir());
  const timer = setTimeout(() => spawned.child.kill('SIGKILL'), timeoutMs);
  const { code } = await spawned.exited;
  clearTimeout(timer);
  return { code, stdout: spawned.stdout(), stderr: spawned.stderr() };
}

export interface ApiOptions {
  /** Agent API key (Authorization: Bearer). */
  key?: string;
  /** Cookie header (see adminLogin). */
  cookie?: string;
  /** JSON body (sets Content-Type and Content-Length). */
  body?: unknown;
  /** Raw body: bytes as given, or a stream sent chunked (no Content-Length). */
  rawBody?: string | Buffer | Readable;
  headers?: Record<string, string>;
  /** Bind the client socket to this local address (e.g. 127.0.0.2). */
  localAddress?: string;
  /** A path below the origin instead of below /api/v1. */
  absolutePath?: boolean;
  /** Target URL other than server.url (e.g. server.internalUrl). */
  baseUrl?: string;
}

export interface ApiResponse {
  status: number;
  /** Parsed JSON, or the text when the answer is not JSON. */
  body: any;
  text: string;
  headers: http.IncomingHttpHeaders;
}

/** One HTTP request over node:http(s), so the client's local address can be chosen. */
export function api(
  server: Pick<Server, 'url'>,
  method: string,
  path: string,
  options: ApiOptions = {},
): Promise<ApiResponse> {
  const base = new URL(options.baseUrl ?? server.url);
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.cookie) headers.cookie = options.cookie;
  let payload: string | Buffer | Readable | undefined = options.rawBody;
  if (options.body !== undefined) {
    payload = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  if (typeof payload === 'string' || Buffer.isBuffer(payload)) {
    headers['content-length'] ??= String(Buffer.byteLength(payload));
  }
  const transport = base.protocol === 'https:' ? https : http;
  return new Promise((done, fail) => {
    const request = transport.request(
      {
        protocol: base.protocol,
        hostname: base.hostname.replace(/^\[|\]$/g, ''),
        port: base.port,
        method,
        path: options.absolutePath ? path : API_BASE + path,
        headers,
        localAddress: options.localAddress,
        agent: false,
        // Tests use self-signed certificates.
        rejectUnauthorized: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', fail);
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // not JSON
          }
          done({ status: response.statusCode ?? 0, body, text, headers: response.headers });
        });
      },
    );
    request.on('error', fail);
    if (payload === undefined) request.end();
    else if (typeof payload === 'string' || Buffer.isBuffer(payload)) request.end(payload);
    else payload.pipe(request);
  });
}

function expectStatus(res: ApiResponse, status: number, what: string): void {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status} ${res.text}`);
}

/** Signs in as an administrator and returns the Cookie header value. */
export async function adminLogin(
  server: Pick<Server, 'url' | 'adminPassword'>,
  credentials: { username?: string; password?: string } = {},
): Promise<string> {
  const res = await api(server, 'POST', '/admin/login', {
    body: { username: credentials.username ?? 'admin', password: credentials.password ?? server.adminPassword },
  });
  expectStatus(res, 200, 'admin login');
  const setCookie = res.headers['set-cookie']?.find((c) => c.startsWith('switchboard_session='));
  if (!setCookie) throw new Error('admin login: no session cookie');
  return setCookie.split(';')[0] as string;
}

export interface HostInfo {
  host_id: string;
  name: string;
  addresses: string[];
}

export async function createHost(
  server: Pick<Server, 'url'>,
  cookie: string,
  addresses: string[],
  name = `host-${randomUUID().slice(0, 8)}`,
): Promise<HostInfo> {
  const res = await api(server, 'POST', '/admin/hosts', { cookie, body: { name, addresses, os: 'linux' } });
  expectStatus(res, 201, 'create host');
  return res.body.host as HostInfo;
}

export interface AgentInfo {
  agent_id: string;
  name: string;
  host_id: string;
  enabled: boolean;
}

export async function createAgent(
  server: Pick<Server, 'url'>,
  cookie: string,
  hostId: string,
  name = `agent-${randomUUID().slice(0, 8)}`,
): Promise<{ agent: AgentInfo; key: string }> {
  const res = await api(server, 'POST', '/admin/agents', { cookie, body: { name, host_id: hostId } });
  expectStatus(res, 201, 'create agent');
  return { agent: res.body.agent as AgentInfo, key: res.body.api_key as string };
}

export type TestAgent = { agent: AgentInfo; key: string };

/**
 * The set-up most end-to-end files start from: a fresh server, its administrator's session, one
 * host for this machine's address (127.0.0.1) and two agents on it, alice and bob.
 */
export async function startWithAliceAndBob(options: StartOptions = {}): Promise<{
  server: Server;
  cookie: string;
  host: HostInfo;
  alice: TestAgent;
  bob: TestAgent;
}> {
  const server = await startServer(options);
  const cookie = await adminLogin(server);
  const host = await createHost(server, cookie, ['127.0.0.1']);
  const alice = await createAgent(server, cookie, host.host_id, 'alice');
  const bob = await createAgent(server, cookie, host.host_id, 'bob');
  return { server, cookie, host, alice, bob };
}

/** Asserts the structured error shape of api-v1.md and returns the error code. */
export function errorCode(res: ApiResponse): string {
  const requestId = res.headers['x-request-id'];
  if (typeof res.body !== 'object' || res.body === null) throw new Error(`not a JSON error: ${res.status} ${res.text}`);
  if (typeof res.body.request_id !== 'string' || res.body.request_id !== requestId) {
    throw new Error(`request_id ${res.body.request_id} does not match X-Request-Id ${requestId}`);
  }
  if (typeof res.body.error?.code !== 'string') throw new Error(`no error.code: ${res.text}`);
  return res.body.error.code;
}
