/**
 * The fault run (fault-run.ts): rounds of concurrent sends, claims, ACKs, extends, releases and
 * uploads cut by a SIGKILL of the whole server, one SIGKILL at the fault point between a send's
 * commit and its index notes, then a total-queue check. Every anomaly count must be 0. The
 * bounded form (inside `npm test`) runs a few short rounds; `npm run test:faults` runs more.
 */
import { describe, expect, it } from 'vitest';
import { type FaultOptions, formatSummary, runFaults } from './fault-run.js';

const full = process.env.FAULT_MODE === 'full';
const number = (name: string, fallback: number) => {
  const value = process.env[name];
  return value === undefined || value === '' ? fallback : Number(value);
};

const options: FaultOptions = {
  rounds: number('FAULT_ROUNDS', full ? 20 : 3),
  roundMs: number('FAULT_ROUND_MS', full ? 6_000 : 2_500),
  agents: number('FAULT_AGENTS', 4),
  seed: number('FAULT_SEED', Date.now() % 1_000_000),
  log: (line) => console.log(line),
};

describe('SIGKILL of the whole server under concurrent traffic', () => {
  it(`loses, duplicates and double-leases nothing over ${options.rounds} rounds`, async () => {
    const summary = await runFaults(options);
    console.log(`\n${formatSummary(summary, options)}\n`);
    expect(summary.crashes).toBe(options.rounds + 1);
    expect(summary.sends.acked).toBeGreaterThan(0);
    expect(summary.claims).toBeGreaterThan(0);
    expect(summary.historyDeliveries).toBeGreaterThanOrEqual(summary.promisedDeliveries);
    expect(summary.violations).toEqual({
      lostAckedSends: 0,
      duplicateDeliveries: 0,
      doubleLeases: 0,
      staleTokenAcksAccepted: 0,
      staleExtendsOrReleasesAccepted: 0,
      parkRuleBroken: 0,
      deliveryCountsWrong: 0,
      redeliveredAfterAck: 0,
      unreadable: 0,
      orphanObjects: 0,
      attachmentsWithoutObject: 0,
      unexplainedPendingCopies: 0,
      phantomDeliveries: 0,
      purgedAnswers: 0,
    });
  });
});
