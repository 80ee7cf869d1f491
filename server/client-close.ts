/**
 * Ends a client connection after an answer sent while the client is still uploading (the worker
 * refused early, or the upstream failed mid-body). The answer says `Connection: close`, so the
 * client never reuses a connection whose request was cut short. Node would then close the socket
 * as soon as the answer is written; a client still sending would get a TCP reset, which can make
 * it drop the answer unread. So the front closes like a lingering close (Apache, nginx): it sends
 * its FIN after the answer, keeps reading and dropping the rest of the request body, and closes
 * once that body ends, or after `LINGER_MAX_BYTES` or `LINGER_MAX_MS`, whichever comes first.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export const LINGER_MAX_BYTES = 64_000_000;
export const LINGER_MAX_MS = 30_000;

/** Call before the answer's headers are written. */
export function closeAfterAnswer(req: IncomingMessage, res: ServerResponse): void {
  res.setHeader('connection', 'close');
  const socket = res.socket as (Socket & { destroySoon?: () => void }) | null;
  if (!socket || req.complete) return;
  // Node's HTTP server ends a `Connection: close` exchange with socket.destroySoon() once the
  // answer is written: end, then destroy as soon as flushed. Linger instead, for this socket only.
  socket.destroySoon = () => {
    if (socket.writable) socket.end();
    if (req.complete) {
      destroyWhenFlushed(socket);
      return;
    }
    let seen = 0;
    let stopped = false;
    const stop = () => {
      if (stopped) return;
      stopped = true;
      clearTimeout(timer);
      req.off('data', count);
      destroyWhenFlushed(socket);
    };
    const count = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > LINGER_MAX_BYTES) stop();
    };
    const timer = setTimeout(stop, LINGER_MAX_MS);
    timer.unref();
    req.on('data', count);
    req.once('end', stop);
    req.once('close', stop);
    socket.once('close', () => clearTimeout(timer));
    // Whoever consumed the body before may have stopped; the rest is read and dropped here.
    req.resume();
  };
}

function destroyWhenFlushed(socket: Socket): void {
  if (socket.writableFinished) socket.destroy();
  else socket.once('finish', () => socket.destroy());
}
