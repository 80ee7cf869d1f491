/**
 * The front's socket limits (server/socket-guard.ts) against a real server: thousands of idle and
 * slowloris connections from 127.0.0.x (nothing sent, a partial request line, a header every
 * second, a body at a byte a second) do not keep a new client out, and every one of them is
 * closed by its deadline; an address's requests in flight are capped; 200 agents behind one
 * address still work. The deadlines are shortened through the test-only
 * SWITCHBOARD_TEST_SOCKET_LIMITS so this runs in seconds; the caps are the defaults but the total.
 */
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Server, startServer } from './harness.js';

const LIMITS = {
  headerTimeoutMs: 2000,
  idleTimeoutMs: 2000,
  bodyWindowMs: 2000,
  bodyMinBytes: 1024,
  maxConnections: 1500,
  sweepMs: 250,
};
/** A deadline has passed once its own time, two sweeps and some slack for a loaded machine are over. */
const CLOSE_WITHIN_MS = 2000 + 5000;

let server: Server;

beforeAll(async () => {
  server = await startServer({ env: { SWITCHBOARD_TEST_SOCKET_LIMITS: JSON.stringify(LIMITS) } });
});

afterAll(async () => {
  await server?.stop();
});

type Kind = 'silent' | 'partial-line' | 'header-trickle' | 'body-trickle';

interface Attack {
  kind: Kind;
  socket: net.Socket;
  opened: number;
  closedAt?: number;
  received: string;
  timer?: NodeJS.Timeout;
}

function open(kind: Kind, localAddress: string): Promise<Attack> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port: server.port, localAddress });
    const attack: Attack = { kind, socket, opened: Date.now(), received: '' };
    socket.setEncoding('utf8');
    socket.on('data', (text: string) => {
      attack.received += text;
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      attack.closedAt = Date.now();
      clearInterval(attack.timer);
    });
    socket.once('connect', () => {
      if (kind === 'partial-line') socket.write('GET /api/v1/li');
      if (kind === 'header-trickle') {
        socket.write('GET /api/v1/limits HTTP/1.1\r\nHost: 127.0.0.1\r\n');
        attack.timer = setInterval(() => socket.writable && socket.write('X-Slow: 1\r\n'), 1000);
      }
      if (kind === 'body-trickle') {
        socket.write(
          'POST /api/v1/admin/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
            'Content-Length: 200\r\n\r\n{',
        );
        attack.timer = setInterval(() => socket.writable && socket.write(' '), 1000);
      }
      resolve(attack);
    });
    // A connection refused at a cap may close before `connect` is even seen.
    socket.once('close', () => resolve(attack));
  });
}

function request(
  localAddress: string,
  agent?: http.Agent,
): Promise<{ status: number; requestId: string | undefined; socket: net.Socket }> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      { host: '127.0.0.1', port: server.port, path: '/api/v1/no-such-route', localAddress, agent: agent ?? false },
      (res) => {
        res.resume();
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            requestId: res.headers['x-request-id'] as string,
            socket: req.socket as net.Socket,
          }),
        );
      },
    );
    req.on('error', reject);
    req.setTimeout(15_000, () => req.destroy(new Error('no answer within 15 s')));
  });
}

const waitFor = async (done: () => boolean, ms: number) => {
  const end = Date.now() + ms;
  while (!done() && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
};

it('serves a new client while thousands of idle and slowloris sockets are open, then closes them all', async () => {
  const kinds: Kind[] = ['silent', 'partial-line', 'header-trickle', 'body-trickle'];
  const attacks: Attack[] = [];
  // 2,800 connections from eight addresses, more than the total cap (1,500) of this server.
  for (let round = 0; round < 14; round++) {
    const batch: Promise<Attack>[] = [];
    for (let a = 2; a <= 9; a++) {
      for (let i = 0; i < 25; i++) batch.push(open(kinds[(round + i) % 4] as Kind, `127.0.0.${a}`));
    }
    attacks.push(...(await Promise.all(batch)));
  }
  expect(attacks.length).toBe(2800);

  // A new client, and one from an address already in the flood, are answered by the worker.
  const fresh = await request('127.0.0.1');
  expect(fresh.status).toBe(404);
  expect(fresh.requestId).toMatch(/^req_/);
  const neighbour = await request('127.0.0.10');
  expect(neighbour.status).toBe(404);

  // Every attack connection ends by its deadline, whatever it keeps sending.
  await waitFor(() => attacks.every((a) => a.closedAt !== undefined), CLOSE_WITHIN_MS + 3000);
  const open_ = attacks.filter((a) => a.closedAt === undefined);
  expect(open_.map((a) => a.kind).slice(0, 5)).toEqual([]);
  for (const kind of kinds) {
    const lived = attacks.filter((a) => a.kind === kind).map((a) => (a.closedAt as number) - a.opened);
    expect(Math.max(...lived), kind).toBeLessThan(CLOSE_WITHIN_MS + 3000);
  }
  // The trickled bodies that were admitted got a clear 408, not a silent close.
  const answered = attacks.filter((a) => a.kind === 'body-trickle' && a.received.startsWith('HTTP/1.1 408'));
  expect(answered.length).toBeGreaterThan(0);
  expect(answered[0]?.received).toContain('"upload_stalled"');
  // A half-sent head that was admitted got its 400.
  expect(attacks.some((a) => a.kind === 'partial-line' && a.received.startsWith('HTTP/1.1 400'))).toBe(true);
});

it('closes an idle keep-alive connection after its deadline', async () => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const first = await request('127.0.0.1', agent);
  expect(first.status).toBe(404);
  const started = Date.now();
  let closedAt: number | undefined;
  first.socket.once('close', () => {
    closedAt = Date.now();
  });
  await waitFor(() => closedAt !== undefined, CLOSE_WITHIN_MS);
  expect(closedAt).toBeDefined();
  expect((closedAt as number) - started).toBeGreaterThanOrEqual(1500);
  agent.destroy();
});

it('caps the requests in flight from one address at 256 with a 429', async () => {
  // Slow bodies hold their requests in flight (within the body deadline).
  const held = await Promise.all(Array.from({ length: 256 }, () => open('body-trickle', '127.0.0.20')));
  await new Promise((r) => setTimeout(r, 300));
  const refused = await request('127.0.0.20');
  expect(refused.status).toBe(429);
  // Another address is not affected.
  expect((await request('127.0.0.21')).status).toBe(404);
  for (const attack of held) attack.socket.destroy();
});

it('serves 200 polling agents behind one address', async () => {
  const agents = Array.from({ length: 200 }, () => new http.Agent({ keepAlive: true, maxSockets: 1 }));
  for (let poll = 0; poll < 3; poll++) {
    const answers = await Promise.all(agents.map((agent) => request('127.0.0.30', agent)));
    expect(answers.filter((a) => a.status !== 404)).toEqual([]);
  }
  for (const agent of agents) agent.destroy();
});
