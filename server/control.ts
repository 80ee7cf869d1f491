/**
 * The launcher's control socket: how `switchboard backup` asks a running server for a consistent
 * snapshot. It listens on loopback only, on a random port, and refuses (401) every request
 * without the per-boot control secret, compared in constant time before anything else is looked
 * at. The port and the secret are in <data>/run/launcher.json (mode 0600, in a 0700 folder), so
 * only who may read the data directory, and could copy it anyway, can ask.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import http from 'node:http';

export interface ControlHandlers {
  /** Makes a snapshot of the data directory; answers the folder it is in. */
  snapshot(): Promise<{ dir: string }>;
}

export interface ControlServer {
  url: string;
  secret: string;
  close(): Promise<void>;
}

function authorized(header: string | undefined, secret: Buffer): boolean {
  const given = Buffer.from(header?.startsWith('Bearer ') ? header.slice(7) : '');
  return given.length === secret.length && timingSafeEqual(given, secret);
}

function answer(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', connection: 'close' });
  res.end(JSON.stringify(body));
}

export async function startControlServer(handlers: ControlHandlers): Promise<ControlServer> {
  const secret = randomBytes(32).toString('base64url');
  const expected = Buffer.from(secret);
  /** One snapshot at a time: a second asker waits for the first one's to finish. */
  let queue: Promise<unknown> = Promise.resolve();
  const server = http.createServer((req, res) => {
    req.resume();
    if (!authorized(req.headers.authorization, expected)) {
      answer(res, 401, { error: 'unauthorized' });
      return;
    }
    if (req.method !== 'POST' || req.url !== '/snapshot') {
      answer(res, 404, { error: 'not_found' });
      return;
    }
    const run = queue.then(() => handlers.snapshot());
    queue = run.catch(() => {});
    run.then(
      (result) => answer(res, 200, result),
      (error: Error) => answer(res, 503, { error: 'unavailable', message: error.message }),
    );
  });
  server.headersTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    secret,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
