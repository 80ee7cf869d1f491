/**
 * Opt-in measuring aids for `npm run profile` and `npm run bench`, read only by `switchboard
 * serve` and off unless their variable is set:
 *
 * - `SWITCHBOARD_INSPECTOR_PORT=<port>` opens workerd's V8 inspector (the DevTools protocol) on
 *   loopback at that port. Whoever reaches it can run code inside the worker and read its
 *   secrets, and it has no authentication, so it is never on by default and the launcher says so
 *   on stderr when it is.
 * - `SWITCHBOARD_BENCH_HELLO=1` adds a tiny worker answering `hello` at `/__bench/hello` in the
 *   same Miniflare, reached through the same front: the ceiling that benchmark results are read
 *   against (everything the self-host shell costs, none of what Switchboard's worker does). It also
 *   lets a request with `x-switchboard-bench-metrics: off` skip the metrics counting
 *   (core/env.ts BENCH_METRICS_SWITCH), so the bench measures the hot path with and without it.
 * - `SWITCHBOARD_TEST_FAULT_POINT=<name>` (tests only, test/faults/) sets the worker's FAULT_POINT
 *   binding: the object that reaches that point logs it and holds there for a minute, so the test
 *   can SIGKILL the server at exactly that moment (durable-objects/shared/fault-point.ts). It
 *   stalls requests on purpose, so the launcher says so on stderr too.
 */
import { ConfigError } from './config.js';

export interface Diagnostics {
  inspectorPort?: number;
  benchHello: boolean;
  faultPoint?: string;
}

/** The fault points durable-objects/shared/fault-point.ts knows. */
const FAULT_POINTS = ['send-committed'];

export const HELLO_PATH = '/__bench/hello';

export function diagnosticsFromEnv(env: NodeJS.ProcessEnv): Diagnostics {
  const diagnostics: Diagnostics = { benchHello: env.SWITCHBOARD_BENCH_HELLO === '1' };
  const port = env.SWITCHBOARD_INSPECTOR_PORT;
  if (port !== undefined && port !== '') {
    if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) {
      throw new ConfigError(`SWITCHBOARD_INSPECTOR_PORT must be a port number from 1 to 65535, not "${port}".`);
    }
    diagnostics.inspectorPort = Number(port);
  }
  const point = env.SWITCHBOARD_TEST_FAULT_POINT;
  if (point !== undefined && point !== '') {
    if (!FAULT_POINTS.includes(point)) {
      throw new ConfigError(`SWITCHBOARD_TEST_FAULT_POINT must be one of ${FAULT_POINTS.join(', ')}, not "${point}".`);
    }
    diagnostics.faultPoint = point;
  }
  return diagnostics;
}

/** Miniflare options for the opted-in aids (nothing when none is); `bindings` go to our worker. */
export function diagnosticsMiniflareOptions(diagnostics: Diagnostics, compatibilityDate: string | undefined) {
  const shared = diagnostics.inspectorPort === undefined ? {} : { inspectorPort: diagnostics.inspectorPort };
  const bindings = {
    ...(diagnostics.faultPoint !== undefined && { FAULT_POINT: diagnostics.faultPoint }),
    ...(diagnostics.benchHello && { BENCH_METRICS_SWITCH: '1' }),
  };
  const workers = diagnostics.benchHello
    ? [
        {
          name: 'bench-hello',
          modules: true,
          script: 'export default { fetch() { return new Response("hello"); } };',
          compatibilityDate,
          routes: [`*${HELLO_PATH}`],
        },
      ]
    : [];
  return { shared, workers, bindings };
}

/** One stderr line per aid that is on, so an exposed inspector is never silent. */
export function announceDiagnostics(diagnostics: Diagnostics, write: (text: string) => void): void {
  if (diagnostics.inspectorPort !== undefined) {
    write(
      `Switchboard: V8 inspector open on localhost:${diagnostics.inspectorPort} (SWITCHBOARD_INSPECTOR_PORT): ` +
        'any local process can run code in the worker through it; profiling only.\n',
    );
  }
  if (diagnostics.benchHello)
    write(`Switchboard: benchmark hello worker at ${HELLO_PATH} (SWITCHBOARD_BENCH_HELLO).\n`);
  if (diagnostics.faultPoint !== undefined) {
    write(
      `Switchboard: fault point ${diagnostics.faultPoint} armed (SWITCHBOARD_TEST_FAULT_POINT): requests that reach it ` +
        'stall for a minute; tests only.\n',
    );
  }
}
