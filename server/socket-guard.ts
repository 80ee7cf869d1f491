/**
 * Bounds on the front's client sockets, so that nobody on the network can hold them: a deadline
 * for a request's head, a progress floor for its body, an idle keep-alive deadline, caps on
 * connections per address and in all, and a cap on requests in flight per address.
 *
 * Why by hand: Node's `headersTimeout` does not cover a connection that never sends a byte, and
 * its `requestTimeout` is one deadline for the whole request, which must be long enough for a
 * 50 MB upload over a slow link and so lets a body trickle in at a byte every few seconds for
 * that long. Here a body must keep arriving instead: at least `bodyMinBytes` in every
 * `bodyWindowMs`, counted on the TCP socket, and only while the front itself is reading (when
 * workerd is slow to take the body, the front stops reading and the client is not blamed).
 *
 * At the total cap a new connection does not lose to old ones: the address holding the most
 * connections gives one up (an idle or unfinished-head one first), unless that is the newcomer's
 * own address, whose connection is then refused. So a flood from a few addresses costs those
 * addresses their sockets, not everyone else's.
 *
 * One sweep a second visits every connection (a few thousand at most: `maxConnections`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface SocketLimits {
  /** From the connection's start (or the first byte after an idle keep-alive) to a complete head. */
  headerTimeoutMs: number;
  /** An idle keep-alive connection (between requests) is closed after this. */
  idleTimeoutMs: number;
  /** A body must bring at least `bodyMinBytes` per `bodyWindowMs` while the front reads it. */
  bodyWindowMs: number;
  bodyMinBytes: number;
  maxConnections: number;
  maxConnectionsPerAddress: number;
  /** Requests in flight from one address; more get 429. */
  maxRequestsPerAddress: number;
  /** How often the deadlines are checked. */
  sweepMs: number;
}

/**
 * Set for a LAN server with up to a few hundred agents, all of which may sit behind one NAT'd
 * address: 200 agents polling with a keep-alive connection each (an MCP server keeps one, a CLI
 * call opens and closes one) stay well inside every cap.
 */
export const DEFAULT_SOCKET_LIMITS: SocketLimits = {
  headerTimeoutMs: 15_000,
  idleTimeoutMs: 15_000,
  // Looser than the worker's own upload stall rule (upload_stall_seconds), which answers first with its limit.
  bodyWindowMs: 30_000,
  bodyMinBytes: 4096,
  maxConnections: 4096,
  maxConnectionsPerAddress: 1024,
  maxRequestsPerAddress: 256,
  sweepMs: 1000,
};

/** Test-only: `SWITCHBOARD_TEST_SOCKET_LIMITS` (JSON, a subset of SocketLimits) shortens the
 *  deadlines so a test of them runs in seconds. Not a documented setting. */
export function socketLimitsFromEnv(env: NodeJS.ProcessEnv): SocketLimits {
  const text = env.SWITCHBOARD_TEST_SOCKET_LIMITS;
  if (!text) return DEFAULT_SOCKET_LIMITS;
  const parsed = JSON.parse(text) as Record<string, unknown>;
  const limits = { ...DEFAULT_SOCKET_LIMITS };
  for (const [name, value] of Object.entries(parsed)) {
    if (!(name in limits) || typeof value !== 'number' || !(value > 0)) {
      throw new Error(`SWITCHBOARD_TEST_SOCKET_LIMITS: bad ${name}`);
    }
    limits[name as keyof SocketLimits] = value;
  }
  return limits;
}

type Phase = 'head' | 'body' | 'answer' | 'idle';

interface Tracked {
  socket: Socket;
  address: string;
  phase: Phase;
  /** When the phase began. */
  since: number;
  /** socket.bytesRead when the phase (or the body's current window) began. */
  mark: number;
  req?: IncomingMessage;
  res?: ServerResponse;
}

export interface SocketGuardEvents {
  /** A head did not arrive in time; `partial` when some of it did (worth an answer). */
  onHeadTimeout(socket: Socket, partial: boolean): void;
  /** A body stopped arriving: answer and close. */
  onBodyStall(req: IncomingMessage, res: ServerResponse): void;
  /** A connection refused at a cap (`perAddress` when its own address is over). */
  onRefused(socket: Socket, perAddress: boolean): void;
}

function addressOf(socket: Socket): string {
  const address = socket.remoteAddress ?? '';
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

/** The connection a request arrived on: the TCP socket itself, or the one under a TLS socket. */
function rawSocket(socket: Socket): Socket {
  return (socket as Socket & { _parent?: Socket })._parent ?? socket;
}

export class SocketGuard {
  private readonly tracked = new Map<Socket, Tracked>();
  private readonly byAddress = new Map<string, Set<Tracked>>();
  private readonly inFlight = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    readonly limits: SocketLimits,
    private readonly events: SocketGuardEvents,
  ) {
    this.timer = setInterval(() => this.sweep(), limits.sweepMs);
    this.timer.unref();
  }

  get connections(): number {
    return this.tracked.size;
  }

  /** A new TCP connection: false when it was refused (and is being closed). */
  admit(socket: Socket): boolean {
    const address = addressOf(socket);
    const own = this.byAddress.get(address)?.size ?? 0;
    if (own >= this.limits.maxConnectionsPerAddress) {
      this.events.onRefused(socket, true);
      return false;
    }
    if (this.tracked.size >= this.limits.maxConnections && !this.evictFor(address, own)) {
      this.events.onRefused(socket, false);
      return false;
    }
    const entry: Tracked = { socket, address, phase: 'head', since: Date.now(), mark: 0 };
    this.tracked.set(socket, entry);
    let set = this.byAddress.get(address);
    if (!set) {
      set = new Set();
      this.byAddress.set(address, set);
    }
    set.add(entry);
    socket.once('close', () => this.forget(entry));
    return true;
  }

  /**
   * A request's head arrived. False when its address already has `maxRequestsPerAddress` in flight
   * (the caller answers 429); the request is then not counted.
   */
  requestStarted(req: IncomingMessage, res: ServerResponse, hasBody: boolean): boolean {
    const entry = this.tracked.get(rawSocket(req.socket));
    if (!entry) return true;
    const running = this.inFlight.get(entry.address) ?? 0;
    if (running >= this.limits.maxRequestsPerAddress) {
      res.once('close', () => this.enterIdle(entry));
      entry.phase = 'answer';
      return false;
    }
    this.inFlight.set(entry.address, running + 1);
    entry.req = req;
    entry.res = res;
    this.enter(entry, hasBody && !req.complete ? 'body' : 'answer');
    req.once('end', () => {
      if (entry.req === req && entry.phase === 'body') this.enter(entry, 'answer');
    });
    res.once('close', () => {
      const left = (this.inFlight.get(entry.address) ?? 1) - 1;
      if (left > 0) this.inFlight.set(entry.address, left);
      else this.inFlight.delete(entry.address);
      if (entry.req === req) this.enterIdle(entry);
    });
    return true;
  }

  /** Ends every tracked connection (shutdown, after the grace period). */
  destroyAll(): void {
    for (const entry of this.tracked.values()) entry.socket.destroy();
  }

  /** Ends the connections that have no request running (shutdown). */
  destroyWaiting(): void {
    for (const entry of this.tracked.values()) {
      if (entry.phase === 'head' || entry.phase === 'idle') entry.socket.destroy();
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private enter(entry: Tracked, phase: Phase): void {
    entry.phase = phase;
    entry.since = Date.now();
    entry.mark = entry.socket.bytesRead;
  }

  private enterIdle(entry: Tracked): void {
    entry.req = undefined;
    entry.res = undefined;
    this.enter(entry, 'idle');
  }

  private forget(entry: Tracked): void {
    this.tracked.delete(entry.socket);
    const set = this.byAddress.get(entry.address);
    set?.delete(entry);
    if (set?.size === 0) this.byAddress.delete(entry.address);
  }

  /** Frees one slot for a newcomer from `address` (which holds `own`): false when it should lose. */
  private evictFor(address: string, own: number): boolean {
    let heaviest: Set<Tracked> | undefined;
    let heaviestAddress = '';
    for (const [other, set] of this.byAddress) {
      if (!heaviest || set.size > heaviest.size) {
        heaviest = set;
        heaviestAddress = other;
      }
    }
    if (!heaviest || heaviestAddress === address || heaviest.size <= own) return false;
    let victim: Tracked | undefined;
    for (const entry of heaviest) {
      const waiting = entry.phase === 'head' || entry.phase === 'idle';
      const victimWaiting = victim !== undefined && (victim.phase === 'head' || victim.phase === 'idle');
      if (!victim || (waiting && !victimWaiting) || (waiting === victimWaiting && entry.since < victim.since)) {
        victim = entry;
      }
    }
    if (!victim) return false;
    this.forget(victim);
    victim.socket.destroy();
    return true;
  }

  private sweep(): void {
    const now = Date.now();
    const { headerTimeoutMs, idleTimeoutMs, bodyWindowMs, bodyMinBytes } = this.limits;
    for (const entry of [...this.tracked.values()]) {
      const { socket } = entry;
      if (socket.destroyed) {
        this.forget(entry);
        continue;
      }
      switch (entry.phase) {
        case 'idle':
          // Bytes after an answer are the next request's head, which now has its own deadline.
          if (socket.bytesRead > entry.mark) this.enter(entry, 'head');
          else if (now - entry.since > idleTimeoutMs) socket.destroy();
          break;
        case 'head':
          if (now - entry.since > headerTimeoutMs) {
            this.forget(entry);
            this.events.onHeadTimeout(socket, socket.bytesRead > 0);
          }
          break;
        case 'body': {
          const req = entry.req;
          if (!req || req.complete) break;
          // The front is not reading (workerd has not taken what came): the client waits on us.
          if (req.readableFlowing === false || req.readableLength > 0 || socket.readableLength > 0) {
            entry.since = now;
            entry.mark = socket.bytesRead;
            break;
          }
          if (now - entry.since < bodyWindowMs) break;
          if (socket.bytesRead - entry.mark < bodyMinBytes && entry.res) {
            this.enter(entry, 'answer');
            this.events.onBodyStall(req, entry.res);
          } else {
            entry.since = now;
            entry.mark = socket.bytesRead;
          }
          break;
        }
        case 'answer':
          break;
      }
    }
  }
}
