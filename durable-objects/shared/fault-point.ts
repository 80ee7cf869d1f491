/**
 * Fault points for the fault run (test/faults/, docs/fault-testing.md): a named place in a write
 * path where a test needs the whole server killed, exactly there. Off unless the FAULT_POINT
 * binding names the point, which only the self-host launcher sets, and only from the test-only
 * variable SWITCHBOARD_TEST_FAULT_POINT (server/diagnostics.ts); wrangler.toml never declares it.
 *
 * At the point the object logs `fault point <name> reached: <detail>` (the test watches the
 * server's output for it) and then waits, so the test can SIGKILL workerd and the launcher while
 * the object is held right there. If nobody kills it, it goes on after the wait.
 */
import type { Env } from '../../core/env.js';

/** The points there are. `send-committed`: a send's message and outbox rows are committed, no index note has gone out. */
export type FaultPointName = 'send-committed';

/** Long enough for any test to see the line and kill the server; short enough that a forgotten switch does not hang forever. */
const HOLD_MS = 60_000;

export async function faultPoint(env: Env, name: FaultPointName, detail: string): Promise<void> {
  if (env.FAULT_POINT !== name) return;
  console.log(`fault point ${name} reached: ${detail}`);
  // A timer, not a promise that never settles: workerd cancels a request that waits on nothing.
  await new Promise((resolve) => setTimeout(resolve, HOLD_MS));
}
