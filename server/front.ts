/**
 * The Node front: the only public listener. It proxies each request to Miniflare's loopback
 * port, streaming both bodies (a 50 MB upload is never held in memory), with the client address
 * taken from the TCP connection and the per-boot secret that tells the worker the request came
 * through here. It logs nothing per request: no key, no body, no URL.
 *
 * Connections to workerd are pooled. A request that fails on a pooled connection before any answer
 * byte (workerd had closed it) reached nothing and is sent again on a fresh connection, body
 * included (body-relay.ts); a connection whose last request body may have been left unread is not
 * pooled at all. An exchange cut short while the client is still uploading ends with an answer and
 * `Connection: close`, and a lingering close (client-close.ts), never with a reset.
 */
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { pipeline } from 'node:stream/promises';
import { isWorkerPath as isWorkerPathname } from '../core/domain/console-pages.js';
import { BodyRelay } from './body-relay.js';
import { closeAfterAnswer } from './client-close.js';
import { clientErrorAnswer, errorBody, newRequestId, rawErrorResponse } from './front-errors.js';
import { forwardRequestHeaders, forwardResponseHeaders } from './front-headers.js';

export interface FrontOptions {
  /** workerd's entry socket (Miniflare's `core:entry`, then the assets router). */
  upstream: URL;
  /** A direct socket to the worker itself (worker-runtime.ts): the worker's own paths
   *  (wrangler.toml `run_worker_first`) go there, past three isolates. Without it, all go to
   *  `upstream`. */
  direct?: URL;
  secret: string;
  tls?: { cert: Buffer; key: Buffer };
  /** How much of a request body is kept for a resend after a stale pooled connection. */
  maxReplayBytes?: number;
}

export interface Front {
  server: http.Server;
  listen(host: string, port: number): Promise<number>;
  /** Stops accepting, lets running requests finish for up to `graceMs`, then cuts the rest. */
  close(graceMs?: number): Promise<void>;
}

/** A structured error (api-v1.md) for the few answers the front gives itself. */
function sendError(res: http.ServerResponse, status: number, code: string, message: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const requestId = newRequestId();
  const body = errorBody(requestId, { status, code, message });
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'x-request-id': requestId,
  });
  res.end(body);
}

/** How a request fails on a pooled connection that workerd had already closed. */
const STALE_SOCKET = new Set(['ECONNRESET', 'EPIPE']);

function hasBody(req: http.IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** A host name or address and an optional port: nothing that could add a path or credentials. */
const HOST_HEADER = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~-]+)(:\d{1,5})?$/;

/**
 * The paths the worker answers before any asset (core/domain/console-pages.ts, wrangler.toml),
 * judged on the URL as workerd will parse it (dot segments resolved), like the assets router does.
 */
export function isWorkerPath(url: string): boolean {
  let pathname: string;
  try {
    pathname = new URL(url).pathname;
  } catch {
    return false;
  }
  return isWorkerPathname(pathname);
}

export function createFront(options: FrontOptions): Front {
  const scheme = options.tls ? 'https' : 'http';
  // Keep-alive to Miniflare: one loopback connection per concurrent request, reused.
  const agent = new http.Agent({ keepAlive: true, maxFreeSockets: 64 });

  const handle = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const path = req.url ?? '';
    // Only origin-form targets: an absolute URL or `*` would let a client pick what Miniflare sees.
    if (!path.startsWith('/') || path.startsWith('//')) {
      sendError(res, 400, 'validation_failed', 'Malformed request target.');
      return;
    }
    // Miniflare's own endpoints live under /cdn-cgi/; on Cloudflare that prefix belongs to the edge.
    if (/^\/cdn-cgi(\/|$|\?)/i.test(path)) {
      sendError(res, 404, 'not_found', 'Not found.');
      return;
    }
    // HTTP/1.1 requires Host (RFC 9112 §3.2); Node's own refusal would not be a structured error.
    if (req.headers.host === undefined && req.httpVersion !== '1.0') {
      sendError(res, 400, 'validation_failed', 'Missing Host header.');
      return;
    }
    const host = req.headers.host ?? `localhost:${req.socket.localPort ?? ''}`;
    if (!HOST_HEADER.test(host)) {
      sendError(res, 400, 'validation_failed', 'Malformed Host header.');
      return;
    }
    const originalUrl = `${scheme}://${host}${path}`;
    const direct = options.direct !== undefined && isWorkerPath(originalUrl) ? options.direct : undefined;
    const target = direct ?? options.upstream;

    const requestOptions: http.RequestOptions = {
      host: target.hostname,
      port: target.port,
      method: req.method,
      path,
      headers: forwardRequestHeaders(req.headers, {
        remoteAddress: req.socket.remoteAddress,
        secret: options.secret,
        host,
        originalUrl,
        direct: direct !== undefined,
      }),
    };
    const body = new BodyRelay(req, options.maxReplayBytes);
    let upstream: http.ClientRequest;
    let answered = false;

    // A client that goes away mid-request or mid-answer: stop the upstream exchange too.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.on('error', () => upstream.destroy());

    const send = (fresh: boolean) => {
      // The retry takes a connection of its own (agent: false), never another pooled one.
      const attempt = http.request({ ...requestOptions, agent: fresh ? false : agent });
      upstream = attempt;
      attempt.once('socket', () => {
        // Only a reused connection can be stale; on a fresh one nothing needs keeping.
        if (!attempt.reusedSocket) body.forget();
      });
      attempt.on('response', (answer) => {
        answered = true;
        body.forget();
        if (hasBody(req) && answer.headers['x-request-id'] === undefined) {
          // Not an answer of the API, which reads every body before answering (worker/middleware/
          // drain-body.ts), but e.g. a static asset served without reading the body: workerd closes
          // that connection after the answer, so it must not go back to the pool.
          attempt.shouldKeepAlive = false;
        }
        if (!req.complete) {
          // The worker answered without reading the whole body: past its drain bounds, that
          // connection closes. Send it nothing more, and end the client's connection after the
          // answer (cleanly: see closeAfterAnswer).
          body.discard();
          closeAfterAnswer(req, res);
          answer.on('end', () => attempt.destroy());
        }
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, forwardResponseHeaders(answer.rawHeaders).flat());
        pipeline(answer, res).catch(() => {
          // The client disconnected or Miniflare went away mid-answer; `close` above cleans up.
        });
      });
      attempt.on('error', (error: NodeJS.ErrnoException) => {
        // After the answer began, its own stream reports the failure; a replaced attempt is over.
        if (upstream !== attempt || answered || res.headersSent || res.destroyed) return;
        if (!fresh && attempt.reusedSocket && STALE_SOCKET.has(error.code ?? '') && body.replayable) {
          // workerd had closed this pooled connection: the request reached nothing. Again, fresh.
          send(true);
          return;
        }
        body.discard();
        if (!req.complete) closeAfterAnswer(req, res);
        sendError(res, 503, 'unavailable', 'The server closed the connection before answering; try again.');
      });
      body.attach(attempt);
    };
    send(false);
  };

  // Missing Host is refused by `handle` with a structured error instead of Node's bare 400.
  const server: http.Server = options.tls
    ? https.createServer({ cert: options.tls.cert, key: options.tls.key, requireHostHeader: false }, handle)
    : http.createServer({ requireHostHeader: false }, handle);
  // Large uploads on slow links need more than Node's 5-minute default; headers stay bounded.
  server.requestTimeout = 30 * 60_000;
  server.headersTimeout = 60_000;
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable || error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    // An answer already under way on this socket cannot be followed by another one.
    if ((socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent) {
      socket.destroy();
      return;
    }
    socket.end(rawErrorResponse(clientErrorAnswer(error)));
  });
  // Without these listeners Node closes a CONNECT without an answer and answers an unknown
  // Expect with a bare 417; the front proxies nothing but origin-form requests.
  server.on('connect', (_req: http.IncomingMessage, socket: Socket) => {
    socket.end(rawErrorResponse({ status: 405, code: 'method_not_allowed', message: 'CONNECT is not supported.' }));
  });
  server.on('checkExpectation', handle);

  return {
    server,
    listen(host, port) {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen({ host, port }, () => {
          server.off('error', reject);
          const address = server.address();
          resolve(typeof address === 'object' && address ? address.port : port);
        });
      });
    },
    close(graceMs = 5000) {
      return new Promise((resolve) => {
        const timer = setTimeout(() => server.closeAllConnections(), graceMs);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          agent.destroy();
          resolve();
        });
        server.closeIdleConnections();
      });
    },
  };
}
