/**
 * The self-host front (server/front.ts) against a real upstream HTTP server that behaves like
 * workerd at its worst: it closes a keep-alive connection right after answering (as workerd does
 * when a request body was left unread), dies in the middle of an upload, or answers before the
 * body has arrived. The front must never hand a client a 503 for a pooled connection that was
 * stale, must send each request upstream exactly once and whole, and must end a cut-short
 * exchange with an answer and `Connection: close`, never with a reset. The same guarantees
 * against the real launcher: test/e2e/keep-alive.test.ts.
 */
import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createFront, type Front } from '../../server/front.js';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function upstreamServer(handler: Handler): Promise<{ url: URL; connections: () => number }> {
  let connections = 0;
  const server = http.createServer(handler);
  server.on('connection', () => connections++);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  closers.push(
    () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  );
  const { port } = server.address() as AddressInfo;
  return { url: new URL(`http://127.0.0.1:${port}`), connections: () => connections };
}

async function startFront(upstream: URL, maxReplayBytes?: number): Promise<string> {
  const front: Front = createFront({ upstream, secret: 'front-secret', maxReplayBytes });
  const port = await front.listen('127.0.0.1', 0);
  closers.unshift(() => front.close(0));
  return `http://127.0.0.1:${port}`;
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

function request(
  base: string,
  agent: http.Agent | false,
  method: string,
  path: string,
  body?: Buffer | Readable,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return new Promise((done, fail) => {
    const out = http.request(`${base}${path}`, { method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', fail);
      res.on('end', () =>
        done({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString() }),
      );
    });
    out.on('error', fail);
    // Node sends no Content-Length for a GET body unless told: say it, as clients do.
    if (Buffer.isBuffer(body)) out.setHeader('content-length', body.length);
    if (body instanceof Readable) body.pipe(out);
    else out.end(body);
  });
}

/**
 * A raw upstream that behaves like workerd after an unread request body: it answers one request
 * per connection (without `Connection: close`), then ignores what comes next and closes a moment
 * later, so a request the front sends on that pooled connection meanwhile is never answered.
 */
async function closingUpstream(
  answer: (head: string, body: Buffer) => string,
): Promise<{ url: URL; staleHits: () => number }> {
  let staleHits = 0;
  const server = net.createServer((socket) => {
    let buffered = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = buffered.subarray(0, end).toString('latin1');
      const length = Number(/^content-length: *(\d+)/im.exec(head)?.[1] ?? 0);
      if (buffered.length < end + 4 + length) return;
      socket.off('data', onData);
      // Whatever comes next on this connection is ignored, as workerd ignores it.
      socket.once('data', () => staleHits++);
      const id = answer(head, buffered.subarray(end + 4, end + 4 + length));
      const text = JSON.stringify({ id });
      socket.write(
        `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nx-request-id: req_1\r\ncontent-length: ${text.length}\r\n\r\n${text}`,
      );
      setTimeout(() => socket.destroy(), 5);
    };
    socket.on('data', onData);
    socket.on('error', () => {});
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  closers.push(() => new Promise((done) => server.close(() => done())));
  const { port } = server.address() as AddressInfo;
  return { url: new URL(`http://127.0.0.1:${port}`), staleHits: () => staleHits };
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('the front and stale keep-alive connections', () => {
  it('resends a request that hit a pooled connection the upstream had closed, once and whole', async () => {
    // Every request id, with the hash of the body the upstream received for it.
    const received = new Map<string, string[]>();
    const { url, staleHits } = await closingUpstream((head, body) => {
      const id = /^x-test-id: (.+)$/im.exec(head)?.[1]?.trim() ?? '';
      received.set(id, [...(received.get(id) ?? []), sha256(body)]);
      return id;
    });
    const base = await startFront(url);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const sent = new Map<string, string>();
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) {
      const id = randomUUID();
      // Bodies of a few bytes to a few hundred KB, and none.
      const body = i % 3 === 0 ? undefined : Buffer.alloc(i % 3 === 1 ? 37 : 300_000, i);
      sent.set(id, sha256(body ?? Buffer.alloc(0)));
      const answer = await request(base, agent, body ? 'POST' : 'GET', `/x/${i}`, body, { 'x-test-id': id });
      statuses.push(answer.status);
      if (answer.status === 200) expect(JSON.parse(answer.text)).toEqual({ id });
    }
    agent.destroy();
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    for (const [id, hash] of sent) expect(received.get(id), id).toEqual([hash]);
    // The race was really run: requests met connections the upstream was closing.
    expect(staleHits()).toBeGreaterThan(5);
  });

  it('answers 503 with Connection: close when the upstream dies mid-upload, and the next request works', async () => {
    const { url } = await upstreamServer((req, res) => {
      if (req.method === 'GET') {
        res.end('fine');
        return;
      }
      let seen = 0;
      req.on('data', (chunk: Buffer) => {
        seen += chunk.length;
        if (seen > 100_000) req.socket.destroy();
      });
    });
    const base = await startFront(url, 1024);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const upload = Readable.from(
      (function* () {
        for (let i = 0; i < 80; i++) yield Buffer.alloc(64 * 1024, i);
      })(),
    );
    const answer = await request(base, agent, 'POST', '/upload', upload);
    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.text).error.code).toBe('unavailable');
    expect(answer.headers.connection).toBe('close');
    const next = await request(base, agent, 'GET', '/after');
    expect(next).toMatchObject({ status: 200, text: 'fine' });
    agent.destroy();
  });

  it('passes on an answer given before the body arrived, then closes the client connection cleanly', async () => {
    const { url } = await upstreamServer((req, res) => {
      if (req.method === 'GET') {
        res.end('fine');
        return;
      }
      // Answers at once, before the body (as the worker does past its drain bounds), then reads
      // and drops the rest.
      res.writeHead(413, { 'content-type': 'application/json', 'x-request-id': 'req_early' });
      res.end('{"error":{"code":"payload_too_large"}}');
      req.resume();
    });
    const base = await startFront(url);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    for (let round = 0; round < 5; round++) {
      let sent = 0;
      const upload = Readable.from(
        (function* () {
          for (let i = 0; i < 160; i++) {
            sent++;
            yield Buffer.alloc(64 * 1024, i);
          }
        })(),
      );
      const answer = await request(base, agent, 'POST', '/upload', upload);
      expect(answer.status).toBe(413);
      expect(answer.headers.connection).toBe('close');
      // The answer came while the client was still sending: the exchange really was cut short.
      expect(sent).toBeLessThan(160);
      expect(await request(base, agent, 'GET', '/after')).toMatchObject({ status: 200, text: 'fine' });
    }
    agent.destroy();
  });

  it('does not pool a connection after a body the answer does not prove was read', async () => {
    const { url, connections } = await upstreamServer((req, res) => {
      // No X-Request-Id: not an API answer (e.g. a static asset), whose body nobody read.
      res.end('asset');
      req.resume();
    });
    const base = await startFront(url);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    for (let i = 0; i < 5; i++) {
      expect((await request(base, agent, 'GET', '/a.js', Buffer.from('x'))).status).toBe(200);
    }
    for (let i = 0; i < 5; i++) expect((await request(base, agent, 'GET', '/a.js')).status).toBe(200);
    agent.destroy();
    // One fresh upstream connection per request with a body, then one pooled for the five without.
    expect(connections()).toBe(6);
  });
});
