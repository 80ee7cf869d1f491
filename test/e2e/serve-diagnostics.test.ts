/**
 * The launcher's measuring aids (server/diagnostics.ts) against the real server: off by
 * default; when asked for, workerd's inspector listens on loopback only and is announced on
 * stderr, and the hello worker answers through the front.
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { startServer } from './harness.js';

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Local addresses (hex, as /proc writes them) of every listening TCP socket on `port`. */
function listenersOn(port: number): string[] {
  const found: string[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 4 || fields[3] !== '0A') continue;
      const [address, portHex] = (fields[1] as string).split(':') as [string, string];
      if (Number.parseInt(portHex, 16) === port) found.push(address);
    }
  }
  return found;
}
/** 127.0.0.0/8 in /proc's little-endian hex, and ::1. */
const LOOPBACK = /^(..){3}7F$|^0{24}01000000$/i;

describe.skipIf(process.platform !== 'linux')('serve measuring aids', () => {
  it('are off by default: no hello route, no inspector announced', async () => {
    const server = await startServer();
    try {
      const res = await fetch(`${server.url}/__bench/hello`);
      expect(await res.text()).not.toBe('hello');
      expect(server.stderr()).not.toMatch(/inspector/i);
    } finally {
      await server.stop();
    }
  });

  it('open the inspector on loopback only, announced, and the hello worker through the front', async () => {
    const port = await freePort();
    const server = await startServer({
      env: { SWITCHBOARD_INSPECTOR_PORT: String(port), SWITCHBOARD_BENCH_HELLO: '1' },
    });
    try {
      expect(server.stderr()).toMatch(new RegExp(`V8 inspector open on localhost:${port}`));
      const listeners = listenersOn(port);
      expect(listeners.length).toBeGreaterThan(0);
      for (const address of listeners) expect(address).toMatch(LOOPBACK);
      const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as { id: string }[];
      expect(targets.map((t) => t.id)).toContain('core:user:switchboard');
      const hello = await fetch(`${server.url}/__bench/hello`);
      expect(hello.status).toBe(200);
      expect(await hello.text()).toBe('hello');
    } finally {
      await server.stop();
    }
  });
});
