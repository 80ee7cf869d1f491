/**
 * Issue 10, item 1: no listening socket of the server's process tree, other than the front,
 * answers anything useful to a process that lacks the per-boot secret.
 *
 * The sockets are not assumed: the test lists every listening TCP and Unix socket of the launcher
 * and its descendants (workerd, the orphan guard) from /proc (socket inodes of /proc/<pid>/fd
 * matched against /proc/<pid>/net/{tcp,tcp6,unix}). Each one except the front then gets the
 * requests that worked against an unpatched Miniflare loopback server: a `store-temp-file` path
 * traversal, a Durable Object file listing, a call of the HOST_METRICS service binding (as fetch,
 * as Node service, and as a WebSocket upgrade), a line in the server log, Miniflare's other
 * `/core/*` and `/browser/*` routes, and on workerd's entry socket the magic proxy and the
 * `/cdn-cgi/*` handlers. Every answer must be a refusal, or (entry socket, GET of a non-API path)
 * byte for byte the public console asset that the front serves to anyone; no traversal may write
 * a file, and nothing may appear in the server's output.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminLogin, api, createAgent, createHost, type Server, startServer, tempDir } from './harness.js';
import { processTree } from './processes.js';

interface Listener {
  kind: 'tcp' | 'unix';
  pid: number;
  /** TCP: address to connect to; Unix: socket path ('\0…' for an abstract name). */
  host?: string;
  port?: number;
  path?: string;
  label: string;
}

function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match) inodes.add(match[1] as string);
    } catch {
      // closed meanwhile
    }
  }
  return inodes;
}

/** /proc/net/tcp addresses are the bytes of the in-memory address, in host (little-endian) order. */
function decodeAddress(hex: string): string {
  if (hex.length === 8) {
    return [3, 2, 1, 0].map((i) => Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16)).join('.');
  }
  const bytes: number[] = [];
  for (let word = 0; word < 4; word++) {
    const chunk = hex.slice(word * 8, word * 8 + 8);
    for (const i of [3, 2, 1, 0]) bytes.push(Number.parseInt(chunk.slice(i * 2, i * 2 + 2), 16));
  }
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((((bytes[i] as number) << 8) | (bytes[i + 1] as number)).toString(16));
  return groups.join(':').replace(/\b(?:0:){2,}/, '::');
}

function connectHost(address: string): string {
  if (address === '0.0.0.0') return '127.0.0.1';
  if (/^0(:0){7}$/.test(address) || address === '::') return '::1';
  const mapped = /^0:0:0:0:0:ffff:([0-9a-f]+):([0-9a-f]+)$/.exec(address);
  if (mapped) {
    const n = (Number.parseInt(mapped[1] as string, 16) << 16) | Number.parseInt(mapped[2] as string, 16);
    return [24, 16, 8, 0].map((s) => (n >>> s) & 255).join('.');
  }
  return address;
}

function listeningSockets(pids: number[]): Listener[] {
  const found: Listener[] = [];
  for (const pid of pids) {
    let inodes: Set<string>;
    try {
      inodes = socketInodes(pid);
    } catch {
      continue;
    }
    for (const table of ['tcp', 'tcp6']) {
      for (const line of readFileSync(`/proc/${pid}/net/${table}`, 'utf8').split('\n').slice(1)) {
        const fields = line.trim().split(/\s+/);
        // sl local_address rem_address st … inode: st 0A is LISTEN.
        if (fields.length < 10 || fields[3] !== '0A' || !inodes.has(fields[9] as string)) continue;
        const [addressHex, portHex] = (fields[1] as string).split(':') as [string, string];
        const address = decodeAddress(addressHex);
        const port = Number.parseInt(portHex, 16);
        found.push({
          kind: 'tcp',
          pid,
          host: connectHost(address),
          port,
          label: `${table} ${address}:${port} (pid ${pid})`,
        });
      }
    }
    for (const line of readFileSync(`/proc/${pid}/net/unix`, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // Num RefCount Protocol Flags Type St Inode [Path]: Flags 00010000 is __SO_ACCEPTCON (listening).
      if (fields.length < 7 || !inodes.has(fields[6] as string)) continue;
      if ((Number.parseInt(fields[3] as string, 16) & 0x10000) === 0) continue;
      const name = fields[7] ?? '';
      found.push({
        kind: 'unix',
        pid,
        path: name.replace(/^@/, '\0'),
        label: `unix ${name || '(unnamed)'} (pid ${pid})`,
      });
    }
  }
  return found;
}

interface Probe {
  name: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** Send as a WebSocket upgrade. */
  upgrade?: boolean;
}

interface Answer {
  /** 0: the connection closed without an HTTP answer, -1: no answer in time; 101: the upgrade
   *  was accepted. */
  status: number;
  body: Buffer;
}

function send(target: Listener, probe: Probe): Promise<Answer> {
  const headers: Record<string, string> = { ...probe.headers };
  if (probe.body !== undefined) headers['content-length'] = String(Buffer.byteLength(probe.body));
  if (probe.upgrade) {
    Object.assign(headers, {
      connection: 'Upgrade',
      upgrade: 'websocket',
      'sec-websocket-version': '13',
      'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
    });
  }
  return new Promise((done) => {
    const request = http.request({
      ...(target.kind === 'tcp' ? { host: target.host, port: target.port } : { socketPath: target.path }),
      method: probe.method,
      path: probe.path,
      headers,
      agent: false,
    });
    request.setTimeout(15_000, () => request.destroy(new Error('timeout')));
    request.on('upgrade', (_response, socket) => {
      socket.destroy();
      done({ status: 101, body: Buffer.alloc(0) });
    });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => done({ status: response.statusCode ?? 0, body: Buffer.concat(chunks) }));
      response.on('error', () => done({ status: response.statusCode ?? 0, body: Buffer.concat(chunks) }));
    });
    request.on('error', (error) => done({ status: error.message === 'timeout' ? -1 : 0, body: Buffer.alloc(0) }));
    request.end(probe.body);
  });
}

/** Every file below `dir` (relative paths), to compare before and after the probes. */
function filesBelow(dir: string): string[] {
  const out: string[] = [];
  const walk = (sub: string) => {
    for (const entry of readdirSync(join(dir, sub), { withFileTypes: true })) {
      const rel = join(sub, entry.name);
      if (entry.isDirectory()) walk(rel);
      else out.push(rel);
    }
  };
  walk('');
  return out.sort();
}

/** Up past the file system root from wherever Miniflare's temporary directory is, then down to `target`. */
const climb = (target: string) => `${'../'.repeat(40)}${target.replace(/^\//, '')}`;

const LOG_MARKER = `loopback-log-injection-${process.pid}`;
/** Words that only a successful answer would contain. */
const USEFUL = [
  'utilization_percent', // host metrics
  'metadata.sqlite', // a Durable Object file listing
  '.sqlite',
  'pwn',
  '"wsEndpoint"',
  'RegistryDO',
  'KEY_PEPPER',
  'FRONT_SECRET',
];

let server: Server;
/** The launcher's TMPDIR: Miniflare's temporary directory (miniflare-<random>) is created in it. */
let launcherTmp: string;
/** Where the traversals aim; it must stay empty. */
let pwnDir: string;
let listeners: Listener[];

beforeAll(async () => {
  if (process.platform !== 'linux') return;
  launcherTmp = tempDir('switchboard-e2e-mftmp-');
  pwnDir = tempDir('switchboard-e2e-pwn-');
  server = await startServer({ env: { TMPDIR: launcherTmp } });
  listeners = listeningSockets(processTree(server.pid).map((p) => p.pid));
});

afterAll(async () => {
  await server?.stop();
});

function probesFor(): Probe[] {
  const doNamespace = readdirSync(join(server.dataDir, 'state', 'do')).find((name) => name.includes('RegistryDO'));
  const metrics = { 'MF-Custom-Fetch-Service': '0/#HOST_METRICS' };
  return [
    {
      name: 'store-temp-file, traversal in extension',
      method: 'POST',
      path: `/core/store-temp-file?prefix=x&extension=${encodeURIComponent(`/${climb(join(pwnDir, 'pwn-ext.sh'))}`)}`,
      body: '#!/bin/sh\necho pwned\n',
    },
    {
      name: 'store-temp-file, traversal in prefix',
      method: 'POST',
      path: `/core/store-temp-file?prefix=${encodeURIComponent(climb(join(pwnDir, 'pwn-dir')))}&extension=sh`,
      body: '#!/bin/sh\necho pwned\n',
    },
    { name: 'store-temp-file', method: 'POST', path: '/core/store-temp-file?prefix=x&extension=txt', body: 'x' },
    { name: 'do-storage listing', method: 'GET', path: `/core/do-storage/${encodeURIComponent(doNamespace ?? '')}` },
    { name: 'workflow-storage listing', method: 'GET', path: '/core/workflow-storage/x' },
    { name: 'workflow-storage delete', method: 'DELETE', path: '/core/workflow-storage/x' },
    { name: 'HOST_METRICS as fetch service', method: 'GET', path: '/', headers: metrics },
    { name: 'HOST_METRICS on an API path', method: 'GET', path: '/api/v1/admin/overview', headers: metrics },
    {
      name: 'HOST_METRICS as node service',
      method: 'GET',
      path: '/',
      headers: { 'MF-Custom-Node-Service': '0/#HOST_METRICS' },
    },
    { name: 'HOST_METRICS as upgrade', method: 'GET', path: '/', headers: metrics, upgrade: true },
    {
      name: 'log injection',
      method: 'POST',
      path: '/core/log',
      headers: { 'MF-Log-Level': '1' },
      body: `ERROR ${LOG_MARKER}`,
    },
    {
      name: 'pretty error page',
      method: 'POST',
      path: '/core/error',
      headers: { 'MF-Experimental-Error-Stack': 'true' },
      body: JSON.stringify({ message: LOG_MARKER, stack: LOG_MARKER }),
    },
    { name: 'dev registry', method: 'GET', path: '/core/dev-registry' },
    { name: 'public url', method: 'GET', path: '/core/public-url' },
    { name: 'browser sessions', method: 'GET', path: '/browser/sessionIds' },
    { name: 'browser launch', method: 'GET', path: '/browser/launch' },
    { name: 'live reload', method: 'GET', path: '/cdn-cgi/mf/reload', upgrade: true },
    // workerd's entry socket: Miniflare's core:entry worker answers these before our worker runs.
    {
      name: 'magic proxy (getDurableObjectNamespace), env',
      method: 'POST',
      path: '/cdn-cgi/platform-proxy',
      headers: { 'MF-Op': 'GET', 'MF-Op-Target': '1' },
    },
    {
      name: 'magic proxy with a guessed secret',
      method: 'POST',
      path: '/cdn-cgi/platform-proxy',
      headers: { 'MF-Op': 'GET', 'MF-Op-Target': '1', 'MF-Op-Secret': '00'.repeat(16) },
    },
    { name: 'scheduled handler', method: 'GET', path: '/cdn-cgi/handler/scheduled' },
    { name: 'legacy scheduled handler', method: 'GET', path: '/cdn-cgi/mf/scheduled' },
    { name: 'email handler', method: 'POST', path: '/cdn-cgi/handler/email?from=a@b.c&to=d@e.f', body: 'x' },
    { name: 'local explorer', method: 'GET', path: '/cdn-cgi/explorer/api/' },
    { name: 'route override', method: 'GET', path: '/api/v1/me', headers: { 'MF-Route-Override': 'switchboard' } },
    { name: 'proxy shared secret', method: 'GET', path: '/api/v1/me', headers: { 'MF-Proxy-Shared-Secret': 'x' } },
    {
      name: 'original URL and client address',
      method: 'POST',
      path: '/api/v1/admin/login',
      headers: {
        'content-type': 'application/json',
        'MF-Original-URL': 'http://127.0.0.1/api/v1/admin/login',
        'CF-Connecting-IP': '127.0.0.1',
      },
      body: JSON.stringify({ username: 'admin', password: server.adminPassword }),
    },
    { name: 'API read', method: 'GET', path: '/api/v1/limits', headers: { 'CF-Connecting-IP': '127.0.0.1' } },
    { name: 'OpenAPI document', method: 'GET', path: '/openapi.json' },
  ];
}

// /proc is Linux's; CI and the reference machine are Linux.
describe.skipIf(process.platform !== 'linux')('the listening sockets of the server process tree', () => {
  it('are found: the front, workerd entry socket and Miniflare loopback server', () => {
    const labels = listeners.map((l) => l.label);
    const front = listeners.filter((l) => l.kind === 'tcp' && l.port === server.port);
    expect(front, labels.join('\n')).toHaveLength(1);
    expect(front[0]?.pid).toBe(server.pid);
    const entryPort = Number(new URL(server.internalUrl).port);
    const entry = listeners.filter((l) => l.kind === 'tcp' && l.port === entryPort);
    expect(entry, labels.join('\n')).toHaveLength(1);
    expect(entry[0]?.pid).not.toBe(server.pid); // workerd's own socket
    // Miniflare's loopback server lives in the launcher's Node process: if the listing missed
    // it, the probes below would prove nothing.
    const others = listeners.filter((l) => l.pid === server.pid && l !== front[0]);
    expect(others.length, labels.join('\n')).toBeGreaterThanOrEqual(1);
    for (const l of listeners) {
      if (l.kind === 'tcp') expect(['127.0.0.1', '::1'], l.label).toContain(l.host);
    }
  });

  it('except the front, refuse every request without the secret and answer nothing useful', async () => {
    const tmpBefore = filesBelow(launcherTmp);
    const entryPort = Number(new URL(server.internalUrl).port);
    const probes = probesFor();
    const failures: string[] = [];
    let probed = 0;
    for (const target of listeners) {
      if (target.kind === 'tcp' && target.port === server.port) continue;
      for (const probe of probes) {
        probed++;
        const answer = await send(target, probe);
        const text = answer.body.toString('utf8');
        const where = `${target.label} ${probe.name}: ${answer.status} ${text.slice(0, 200)}`;
        if (USEFUL.some((word) => text.includes(word)) || text.includes(LOG_MARKER)) failures.push(`useful: ${where}`);
        // A refusal is an HTTP 4xx: a dropped connection could be a crash (an unpatched Miniflare
        // dies on `MF-Custom-Node-Service` naming a fetch service), which is no refusal.
        if (answer.status >= 400 && answer.status < 500) continue;
        // workerd's entry socket serves the console's static files itself (the asset layer answers
        // files before the worker runs): allowed only when identical to what the front gives anyone.
        const isEntry = target.kind === 'tcp' && target.port === entryPort;
        if (isEntry && probe.method === 'GET' && answer.status === 200 && !probe.path.startsWith('/api/')) {
          const front: Listener = { kind: 'tcp', host: '127.0.0.1', port: server.port, pid: 0, label: 'front' };
          const samePath = await send(front, { name: 'public', method: 'GET', path: probe.path });
          const index = await send(front, { name: 'public', method: 'GET', path: '/' });
          if (samePath.body.equals(answer.body) || index.body.equals(answer.body)) continue;
        }
        failures.push(`answered: ${where}`);
      }
    }
    expect(probed).toBeGreaterThan(0);
    expect(failures).toEqual([]);

    // Nothing was written: not where the traversals aimed, not in Miniflare's temporary directory.
    expect(filesBelow(pwnDir)).toEqual([]);
    expect(filesBelow(launcherTmp)).toEqual(tmpBefore);
    // Nothing reached the server's log.
    expect(server.stdout()).not.toContain(LOG_MARKER);
    expect(server.stderr()).not.toContain(LOG_MARKER);
  });

  it('still serve the front: an agent request and the host metrics of the overview', async () => {
    const cookie = await adminLogin(server);
    const overview = await api(server, 'GET', '/admin/overview', { cookie });
    expect(overview.status).toBe(200);
    // The HOST_METRICS service binding is reached through Miniflare's loopback server.
    expect(overview.body.resources.memory.available, overview.text).toBe(true);
    expect(overview.body.resources.cpu.available, overview.text).toBe(true);
    const host = await createHost(server, cookie, ['127.0.0.1']);
    const { key, agent } = await createAgent(server, cookie, host.host_id);
    const me = await api(server, 'GET', '/me', { key });
    expect(me.status).toBe(200);
    expect(me.body.agent_id).toBe(agent.agent_id);
  });
});
