/**
 * The fault run's checker can fail: synthetic histories with one anomaly each must be counted.
 * (The fault run itself only ever shows it zeros.)
 */
import { describe, expect, it } from 'vitest';
import { type AckRecord, type ClaimRecord, check, type SendRecord } from './fault-run.js';

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
const claim = (messageId: string, op: number, token: string, leaseStart: number, over: Partial<ClaimRecord> = {}) => ({
  agent: 'agt_b',
  messageId,
  body: `fault op ${op}`,
  token,
  leaseStart,
  leaseEnd: leaseStart + 1000,
  sentAt: leaseStart - 1,
  answeredAt: leaseStart + 1,
  ...over,
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
  history: Partial<{ sends: SendRecord[]; claims: ClaimRecord[]; acks: AckRecord[] }>,
  owned = { live: [] as string[], pending: [] as string[], deleting: [] as string[] },
  objects: string[] = [],
) => check({ options, crashes: 1, sends: [], claims: [], acks: [], ...history, owned, objects }).violations;

describe('fault-run checker', () => {
  it('counts nothing in a clean history', () => {
    const v = run({
      sends: [send(1, 'm1')],
      claims: [claim('m1', 1, 't1', 1000)],
      acks: [ack('m1', 't1', 1500)],
    });
    expect(Object.values(v).every((n) => n === 0)).toBe(true);
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
