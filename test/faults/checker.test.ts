/**
 * The fault run's checker can fail: synthetic histories with one anomaly each must be counted.
 * (The fault run itself only ever shows it zeros.)
 */
import { describe, expect, it } from 'vitest';
import {
  type AckRecord,
  type ClaimRecord,
  check,
  type LeaseOpRecord,
  MAX_DELIVERIES,
  type SendRecord,
} from './fault-run.js';

const options = { rounds: 1, roundMs: 1, agents: 2, seed: 1 };
const send = (op: number, messageId: string, over: Partial<SendRecord> = {}): SendRecord => ({
  op,
  kind: 'direct',
  from: 'agt_a',
  body: `fault op ${op}`,
  recipients: ['agt_b'],
  file: false,
  outcome: 'acked',
  promised: [{ messageId, recipient: 'agt_b' }],
  duplicateAnswers: 0,
  ...over,
});
const claim = (
  messageId: string,
  op: number,
  token: string,
  leaseStart: number,
  over: Partial<ClaimRecord> = {},
): ClaimRecord => ({
  agent: 'agt_b',
  messageId,
  body: `fault op ${op}`,
  token,
  leaseStart,
  leaseEnd: leaseStart + 1000,
  sentAt: leaseStart - 1,
  answeredAt: leaseStart + 1,
  // Rising with time, as the server counts them.
  deliveryCount: Math.floor(leaseStart / 1000),
  parked: false,
  ...over,
});
const leaseOp = (
  kind: LeaseOpRecord['kind'],
  messageId: string,
  token: string,
  sentAt: number,
  status: string,
  expiresAt?: number,
): LeaseOpRecord => ({
  kind,
  agent: 'agt_b',
  messageId,
  token,
  sentAt,
  answeredAt: sentAt + 1,
  status,
  ...(expiresAt !== undefined && { expiresAt }),
});
const ack = (messageId: string, token: string, sentAt: number, status = 'read'): AckRecord => ({
  agent: 'agt_b',
  messageId,
  token,
  sentAt,
  answeredAt: sentAt + 1,
  status,
});
const run = (
  history: Partial<{
    sends: SendRecord[];
    claims: ClaimRecord[];
    acks: AckRecord[];
    leaseOps: LeaseOpRecord[];
    history: { messageId: string; recipient: string }[];
  }>,
  owned = { live: [] as string[], pending: [] as string[], deleting: [] as string[] },
  objects: string[] = [],
) => check({ options, crashes: 1, sends: [], claims: [], acks: [], ...history, owned, objects }).violations;

describe('fault-run checker', () => {
  it('counts nothing in a clean history', () => {
    const v = run({
      sends: [send(1, 'm1')],
      claims: [claim('m1', 1, 't1', 1000)],
      acks: [ack('m1', 't1', 1500)],
      history: [{ messageId: 'm1', recipient: 'agt_b' }],
    });
    expect(Object.values(v).every((n) => n === 0)).toBe(true);
  });

  it('takes extends and releases as they are: a lease extended, then released, and a claim after each end', () => {
    const v = run({
      sends: [send(1, 'm1')],
      claims: [claim('m1', 1, 't1', 1000), claim('m1', 1, 't2', 2700), claim('m1', 1, 't3', 3000)],
      leaseOps: [
        leaseOp('extend', 'm1', 't1', 1800, 'extended', 2800),
        leaseOp('release', 'm1', 't1', 2600, 'released'),
        leaseOp('release', 'm1', 't2', 2900, 'released'),
      ],
      acks: [ack('m1', 't3', 3200)],
      history: [{ messageId: 'm1', recipient: 'agt_b' }],
    });
    expect(Object.values(v).every((n) => n === 0)).toBe(true);
  });

  it('counts a claim inside an extended lease, and stale extends and releases accepted', () => {
    const v = run({
      sends: [send(1, 'm1')],
      // t1 ran to 2000, extended to 2900 at 1900: t2 at 2500 overlaps it.
      claims: [claim('m1', 1, 't1', 1000), claim('m1', 1, 't2', 2500)],
      leaseOps: [
        leaseOp('extend', 'm1', 't1', 1900, 'extended', 2900),
        // After t2 was answered: t1 is replaced and must extend nothing.
        leaseOp('extend', 'm1', 't1', 2600, 'extended', 3600),
        // A released token must not release (or extend) again.
        leaseOp('release', 'm1', 't2', 2700, 'released'),
        leaseOp('release', 'm1', 't2', 2800, 'released'),
      ],
    });
    expect(v).toMatchObject({ doubleLeases: 1, staleExtendsOrReleasesAccepted: 2 });
  });

  it('counts a claim overlapping a lease released only later, and an ACK accepted after a release', () => {
    const v = run({
      sends: [send(1, 'm1')],
      claims: [claim('m1', 1, 't1', 1000), claim('m1', 1, 't2', 1500)],
      leaseOps: [leaseOp('release', 'm1', 't1', 1700, 'released')],
      acks: [ack('m1', 't1', 1800)],
    });
    expect(v).toMatchObject({ doubleLeases: 1, staleTokenAcksAccepted: 1 });
  });

  it('counts broken delivery counts and park rules', () => {
    const v = run({
      sends: [send(1, 'm1'), send(2, 'm2')],
      claims: [
        claim('m1', 1, 't1', 1000, { deliveryCount: 2 }),
        claim('m1', 1, 't2', 3000, { deliveryCount: 2 }),
        claim('m2', 2, 't3', 1000, { deliveryCount: MAX_DELIVERIES + 1 }),
        claim('m2', 2, 't4', 3000, { deliveryCount: MAX_DELIVERIES + 2, parked: true }),
        claim('m2', 2, 't5', 5000, { deliveryCount: MAX_DELIVERIES + 3 }),
      ],
    });
    expect(v).toMatchObject({ deliveryCountsWrong: 1, parkRuleBroken: 2 });
    const parkedTooEarly = run({
      sends: [send(1, 'm1')],
      claims: [claim('m1', 1, 't1', 1000, { deliveryCount: 1, parked: true })],
    });
    expect(parkedTooEarly.parkRuleBroken).toBe(1);
  });

  it('counts a message in history its recipient was never offered', () => {
    const v = run({
      sends: [send(1, 'm1', { outcome: 'unknown', promised: [] })],
      history: [
        { messageId: 'm1', recipient: 'agt_b' },
        { messageId: 'm1', recipient: 'agt_c' },
      ],
      claims: [claim('m1', 1, 't1', 1000)],
    });
    expect(v.unreadable).toBe(1);
    expect(v.lostAckedSends).toBe(0);
    // Offered, but only after the bound.
    const late = check({
      options,
      crashes: 1,
      sends: [send(1, 'm1', { outcome: 'unknown', promised: [] })],
      claims: [claim('m1', 1, 't1', 5000)],
      acks: [],
      history: [{ messageId: 'm1', recipient: 'agt_b' }],
      offerDeadline: 4000,
      owned: { live: [], pending: [], deleting: [] },
      objects: [],
    }).violations;
    expect(late.unreadable).toBe(1);
  });

  it('counts a lost acknowledged send, a duplicate, a phantom and a purge', () => {
    const v = run({
      sends: [send(1, 'm1'), send(2, 'm2')],
      claims: [claim('m2', 2, 't1', 1000), claim('m2b', 2, 't2', 3000), claim('m9', 9, 't3', 5000)],
      acks: [ack('m2', 't1', 1500, 'message_purged')],
    });
    expect(v).toMatchObject({ lostAckedSends: 1, duplicateDeliveries: 1, phantomDeliveries: 1, purgedAnswers: 1 });
  });

  it('counts a double lease, a stale ACK accepted and a redelivery after an ACK', () => {
    const overlapping = run({
      sends: [send(1, 'm1')],
      claims: [claim('m1', 1, 't1', 1000), claim('m1', 1, 't2', 1500)],
    });
    expect(overlapping.doubleLeases).toBe(1);
    const expired = run({
      sends: [send(1, 'm1')],
      claims: [claim('m1', 1, 't1', 1000)],
      acks: [ack('m1', 't1', 2001)],
    });
    expect(expired.staleTokenAcksAccepted).toBe(1);
    const replaced = run({
      sends: [send(1, 'm1')],
      claims: [claim('m1', 1, 't1', 1000), claim('m1', 1, 't2', 2000)],
      acks: [ack('m1', 't1', 2500), ack('m1', 't2', 2600)],
    });
    expect(replaced.staleTokenAcksAccepted).toBeGreaterThanOrEqual(1);
    const redelivered = run({
      sends: [send(1, 'm1')],
      claims: [claim('m1', 1, 't1', 1000), claim('m1', 1, 't2', 3000)],
      acks: [ack('m1', 't1', 1500)],
    });
    expect(redelivered.redeliveredAfterAck).toBe(1);
  });

  it('counts objects without an owner, attachments without an object and unexplained copies', () => {
    const v = run(
      { sends: [send(1, 'm1', { file: true, outcome: 'failed', promised: [] })] },
      { live: ['files/c/live', 'files/c/gone'], pending: ['files/c/copy'], deleting: [] },
      ['files/c/live', 'files/c/copy', 'files/c/stray', 'tmp/x'],
    );
    expect(v).toMatchObject({ orphanObjects: 2, attachmentsWithoutObject: 1, unexplainedPendingCopies: 1 });
  });
});
