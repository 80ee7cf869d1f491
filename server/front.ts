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
import net, { type Socket } from 'node:net';
import { pipeline } from 'node:stream/promises';
import { isWorkerPath as isWorkerPathname } from '../core/domain/console-pages.js';
import { BodyRelay } from './body-relay.js';
import { closeAfterAnswer } from './client-close.js';
import { clientErrorAnswer, errorBody, newRequestId, rawErrorResponse } from './front-errors.js';
import { forwardRequestHeaders, forwardResponseHeaders, LOG_HEADERS, peerAddress } from './front-headers.js';
import type { ServerLog } from './log.js';
import { DEFAULT_SOCKET_LIMITS, SocketGuard, type SocketLimits } from './socket-guard.js';
import { TLS_PROFILE } from './tls-profile.js';

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
  /** Deadlines and caps on client sockets (socket-guard.ts). */
  limits?: SocketLimits;
  /** Where each request is logged (JSON format only). */
  log?: ServerLog;
}

export interface Front {
  /** The HTTP(S) server; it does not listen itself: `listener` hands it the connections it admits. */
  server: http.Server;
  listener: net.Server;
  guard: SocketGuard;
  listen(host: string, port: number): Promise<number>;
  /** Stops accepting, lets running requests finish for up to `graceMs`, then cuts the rest. */
  close(graceMs?: number): Promise<void>;
  /**
   * Holds every new request (its head is read; it waits, unanswered, before it reaches workerd)
   * and resolves once no forwarded exchange is running. Rejects, holding nothing, when some are
   * still running after `waitMs`. For the online backup (serve.ts): workerd can be stopped and
   * restarted under a held front without a client seeing an error.
   */
  hold(waitMs: number): Promise<void>;
  /** Lets held and new requests through again, to new workerd sockets when given. */
  resume(targets?: { upstream: URL; direct?: URL }): void;
}

/** HSTS under TLS: a browser that once reached the console over HTTPS never tries plain HTTP. */
const HSTS: [string, string] = ['Strict-Transport-Security', 'max-age=31536000'];

/** A structured error (api-v1.md) for the few answers the front gives itself. */
function sendError(
  res: http.ServerResponse,
  status: number,
  code: string,
  message: string,
  extra: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const requestId = newRequestId();
  const body = errorBody(requestId, { status, code, message });
  res.writeHead(status, {
    ...extra,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'x-request-id': requestId,
  });
  res.end(body);
}

/** A plain-HTTP request on the TLS port: one clear answer in plain HTTP, then the connection ends. */
const PLAIN_HTTP_ON_TLS = rawErrorResponse({
  status: 400,
  code: 'validation_failed',
  message: 'This port speaks HTTPS: use an https:// URL.',
});

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
  const limits = options.limits ?? DEFAULT_SOCKET_LIMITS;
  const log = options.log;
  const hsts: Record<string, string> = options.tls ? { [HSTS[0]]: HSTS[1] } : {};
  /** How to give up on the upstream exchange of a request whose body stalled. */
  const stalled = new WeakMap<http.ServerResponse, () => void>();
  // Keep-alive to Miniflare: one loopback connection per concurrent request, reused.
  let agent = new http.Agent({ keepAlive: true, maxFreeSockets: 64 });
  let upstreamUrl = options.upstream;
  let directUrl = options.direct;
  /** Exchanges forwarded to workerd whose answer is not over. */
  let running = 0;
  let whenIdle: (() => void) | undefined;
  /** While the front holds (hold()), the requests waiting to be forwarded. */
  let held: (() => void)[] | undefined;

  const handle = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const path = req.url ?? '';
    const internal: Record<string, string> = {};
    if (log?.json) logWhenDone(req, res, internal);
    if (!guard.requestStarted(req, res, hasBody(req))) {
      sendError(res, 429, 'too_many_attempts', 'Too many requests in flight from this address; try again shortly.', {
        ...hsts,
        'retry-after': '1',
      });
      return;
    }
    // Only origin-form targets: an absolute URL or `*` would let a client pick what Miniflare sees.
    if (!path.startsWith('/') || path.startsWith('//')) {
      sendError(res, 400, 'validation_failed', 'Malformed request target.', hsts);
      return;
    }
    // Miniflare's own endpoints live under /cdn-cgi/; on Cloudflare that prefix belongs to the edge.
    if (/^\/cdn-cgi(\/|$|\?)/i.test(path)) {
      sendError(res, 404, 'not_found', 'Not found.', hsts);
      return;
    }
    // HTTP/1.1 requires Host (RFC 9112 §3.2); Node's own refusal would not be a structured error.
    if (req.headers.host === undefined && req.httpVersion !== '1.0') {
      sendError(res, 400, 'validation_failed', 'Missing Host header.', hsts);
      return;
    }
    const host = req.headers.host ?? `localhost:${req.socket.localPort ?? ''}`;
    if (!HOST_HEADER.test(host)) {
      sendError(res, 400, 'validation_failed', 'Malformed Host header.', hsts);
      return;
    }
    if (held) {
      // Not read while held, so the socket guard does not blame the client for a slow body.
      req.pause();
      held.push(() => {
        if (!res.destroyed) forward(req, res, host, internal);
      });
      return;
    }
    forward(req, res, host, internal);
  };

  const forward = (
    req: http.IncomingMessage,
    res: http.ServerResponse,
    host: string,
    internal: Record<string, string>,
  ) => {
    const path = req.url ?? '';
    running++;
    res.once('close', () => {
      running--;
      if (running === 0) whenIdle?.();
    });
    const originalUrl = `${scheme}://${host}${path}`;
    const direct = directUrl !== undefined && isWorkerPath(originalUrl) ? directUrl : undefined;
    const target = direct ?? upstreamUrl;

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
    stalled.set(res, () => {
      body.detach();
      upstream.destroy();
    });

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
        const headers = forwardResponseHeaders(answer.rawHeaders, internal);
        const answerId = answer.headers['x-request-id'];
        if (typeof answerId === 'string') internal['x-request-id'] = answerId;
        if (options.tls) headers.push(HSTS);
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, headers.flat());
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
        sendError(res, 503, 'unavailable', 'The server closed the connection before answering; try again.', hsts);
      });
      body.attach(attempt);
    };
    send(false);
  };

  /** One record per request, once its answer is over (or the client went away). */
  const logWhenDone = (req: http.IncomingMessage, res: http.ServerResponse, internal: Record<string, string>) => {
    const started = performance.now();
    res.once('close', () => {
      const actor = internal[LOG_HEADERS.actor] ?? '';
      const [kind, id] = [actor.slice(0, actor.indexOf(':')), actor.slice(actor.indexOf(':') + 1)];
      const ownId = res.getHeader('x-request-id');
      log?.request({
        request_id: internal['x-request-id'] ?? (typeof ownId === 'string' ? ownId : ''),
        method: req.method ?? '',
        route: internal[LOG_HEADERS.route] ?? (res.headersSent ? 'static' : 'none'),
        status: res.headersSent ? res.statusCode : null,
        duration_ms: Math.round((performance.now() - started) * 10) / 10,
        client_ip: peerAddress(req.socket.remoteAddress),
        ...(kind === 'agent' && { agent_id: id }),
        ...(kind === 'admin' && { admin: id }),
        ...(!res.writableFinished && { aborted: true as const }),
      });
    });
  };

  // Missing Host is refused by `handle` with a structured error instead of Node's bare 400.
  const server: http.Server = options.tls
    ? https.createServer(
        { cert: options.tls.cert, key: options.tls.key, requireHostHeader: false, ...TLS_PROFILE },
        handle,
      )
    : http.createServer({ requireHostHeader: false }, handle);
  // The socket guard bounds heads, bodies and idle time (socket-guard.ts); Node's own deadlines
  // stay as outer bounds. Large uploads on slow links need more than Node's 5-minute default.
  server.requestTimeout = 30 * 60_000;
  server.headersTimeout = 60_000;
  server.keepAliveTimeout = limits.idleTimeoutMs;

  const guard = new SocketGuard(limits, {
    onHeadTimeout(socket, partial) {
      // A half-sent head gets its answer (plain HTTP only: under TLS the bytes would be noise).
      if (partial && !options.tls && socket.writable) {
        socket.end(
          rawErrorResponse({
            status: 400,
            code: 'validation_failed',
            message: 'The request was not received in time.',
          }),
        );
        setTimeout(() => socket.destroy(), 1000).unref();
      } else {
        socket.destroy();
      }
    },
    onBodyStall(req, res) {
      res.setHeader('connection', 'close');
      // No lingering close: this client is not sending its body.
      req.socket.once('finish', () => req.socket.destroy());
      setTimeout(() => req.socket.destroy(), 1000).unref();
      if (res.headersSent) {
        res.destroy();
        return;
      }
      sendError(res, 408, 'upload_stalled', 'The request body stopped arriving; the connection is closed.', hsts);
      // After the answer began, so the upstream's failure is not answered as a 503 as well.
      stalled.get(res)?.();
    },
    onRefused(socket, perAddress) {
      if (!options.tls && socket.writable) {
        socket.end(
          rawErrorResponse({
            status: 503,
            code: 'unavailable',
            message: perAddress
              ? 'Too many connections from this address.'
              : 'The server has too many connections; try again.',
          }),
        );
        setTimeout(() => socket.destroy(), 1000).unref();
      } else {
        socket.destroy();
      }
    },
  });

  /** Every client connection: admitted by the guard, then given to the HTTP(S) server. */
  const listener = net.createServer({ pauseOnConnect: options.tls !== undefined }, (socket) => {
    if (!guard.admit(socket)) return;
    socket.on('error', () => socket.destroy());
    if (!options.tls) {
      server.emit('connection', socket);
      return;
    }
    // A TLS connection starts with a handshake record (0x16); anything else is most likely
    // plain HTTP sent to the HTTPS port, which gets an answer it can read instead of silence.
    socket.once('data', (chunk: Buffer) => {
      socket.pause();
      if (chunk[0] === 0x16) {
        socket.unshift(chunk);
        server.emit('connection', socket);
      } else {
        socket.end(PLAIN_HTTP_ON_TLS);
        setTimeout(() => socket.destroy(), 1000).unref();
      }
    });
    socket.resume();
  });
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
    listener,
    guard,
    listen(host, port) {
      return new Promise((resolve, reject) => {
        listener.once('error', reject);
        listener.listen({ host, port }, () => {
          listener.off('error', reject);
          // Past start-up an accept error (out of file descriptors) must not end the process.
          listener.on('error', () => {});
          const address = listener.address();
          resolve(typeof address === 'object' && address ? address.port : port);
        });
      });
    },
    hold(waitMs) {
      held ??= [];
      if (running === 0) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          whenIdle = undefined;
          this.resume();
          reject(new Error(`requests still running after ${Math.round(waitMs / 1000)} s (a long upload?)`));
        }, waitMs);
        whenIdle = () => {
          whenIdle = undefined;
          clearTimeout(timer);
          resolve();
        };
      });
    },
    resume(targets) {
      if (targets) {
        upstreamUrl = targets.upstream;
        directUrl = targets.direct;
        // The pooled connections went to the old workerd.
        agent.destroy();
        agent = new http.Agent({ keepAlive: true, maxFreeSockets: 64 });
      }
      const waiting = held ?? [];
      held = undefined;
      for (const go of waiting) go();
    },
    close(graceMs = 5000) {
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          server.closeAllConnections();
          guard.destroyAll();
        }, graceMs);
        timer.unref();
        listener.close(() => {
          clearTimeout(timer);
          guard.stop();
          agent.destroy();
          resolve();
        });
        server.closeIdleConnections();
        // Connections still in their head (or never speaking) have no request to finish.
        guard.destroyWaiting();
      });
    },
  };
}
