/**
 * The per-recipient delivery state machine of protocol-design.md, as pure functions of a delivery
 * and the time, so every rule is testable without storage:
 *
 *   unread --claim (count+1)--> leased --valid ACK--> read
 *   leased --valid extend--> leased (same token, expiry now + seconds)
 *   leased --expiry, or valid release (expiry := now)--> ended lease:
 *       count < max_deliveries (or max_deliveries = 0) -> claimable again
 *       count >= max_deliveries                        -> parked
 *   parked --claim {parked: true} (count+1)--> leased (its end parks it again; an ACK reads it)
 *   any --retention purge--> absent
 *
 * A lease past its expiry is not rewritten when it expires; it simply stops counting as leased,
 * so expiry needs no timer and can never touch a delivery that is already read. A release is an
 * expiry brought forward to now. Parked is not stored either: it is an ended lease whose
 * delivery count has reached `max_deliveries` (the setting in force when it is asked), so a
 * lease that ends parks its delivery without a timer, and raising the setting (or 0) unparks it.
 */

export type DeliveryState = 'unread' | 'leased' | 'read';

export interface DeliveryClaimState {
  state: DeliveryState;
  /** SHA-256 of the current claim token (leased, or leased and expired). */
  claimHash: string | null;
  claimExpiresAt: number | null;
  /** Hashes of the tokens this delivery's later claims replaced, newest first (bounded). */
  replacedHashes: readonly string[];
  /** SHA-256 of the token whose ACK made the delivery read, and that claim's expiry. */
  ackHash: string | null;
  ackDeadline: number | null;
  /** How many times this delivery was claimed (1 after the first claim). */
  deliveryCount: number;
}

/** How many replaced token hashes a delivery remembers to tell `claim_replaced` from a bad token. */
export const REPLACED_HASHES_KEPT = 8;

export function isLeased(d: DeliveryClaimState, now: number): boolean {
  return d.state === 'leased' && d.claimExpiresAt !== null && now < d.claimExpiresAt;
}

/** A lease that ended without an ACK after `maxDeliveries` claims (0: no limit, nothing parks). */
export function isParked(d: DeliveryClaimState, now: number, maxDeliveries: number): boolean {
  return maxDeliveries > 0 && d.state === 'leased' && !isLeased(d, now) && d.deliveryCount >= maxDeliveries;
}

/** What an ordinary claim may take: unread, or an ended lease that is not parked. */
export function isClaimable(d: DeliveryClaimState, now: number, maxDeliveries = 0): boolean {
  return d.state === 'unread' || (d.state === 'leased' && !isLeased(d, now) && !isParked(d, now, maxDeliveries));
}

/** The delivery after a claim with a fresh token: the previous token, if any, becomes replaced. */
export function claimed(d: DeliveryClaimState, tokenHash: string, expiresAt: number): DeliveryClaimState {
  const replacedHashes = d.claimHash
    ? [d.claimHash, ...d.replacedHashes].slice(0, REPLACED_HASHES_KEPT)
    : d.replacedHashes;
  return {
    ...d,
    state: 'leased',
    claimHash: tokenHash,
    claimExpiresAt: expiresAt,
    replacedHashes,
    deliveryCount: d.deliveryCount + 1,
  };
}

export type AckRejection = 'claim_expired' | 'claim_replaced' | 'invalid_claim_token';
export type AckDecision = { status: 'read' } | { status: 'already_read' } | { status: 'rejected'; code: AckRejection };

/**
 * What an ACK presenting a token with hash `tokenHash` does to this (the caller's own) delivery.
 * `already_read` needs the very token that was accepted, before that claim's expiry; after it the
 * token is refused, and the delivery stays read (expiry never reopens a read delivery).
 */
export function decideAck(d: DeliveryClaimState, tokenHash: string, now: number): AckDecision {
  if (d.state === 'read') {
    if (d.ackHash === tokenHash) {
      return d.ackDeadline !== null && now < d.ackDeadline
        ? { status: 'already_read' }
        : { status: 'rejected', code: 'claim_expired' };
    }
  } else if (d.claimHash === tokenHash) {
    return d.claimExpiresAt !== null && now < d.claimExpiresAt
      ? { status: 'read' }
      : { status: 'rejected', code: 'claim_expired' };
  }
  if (d.replacedHashes.includes(tokenHash)) return { status: 'rejected', code: 'claim_replaced' };
  return { status: 'rejected', code: 'invalid_claim_token' };
}

/** The delivery after an accepted ACK: read, remembering the accepted token until its deadline. */
export function acknowledged(d: DeliveryClaimState): DeliveryClaimState {
  return {
    ...d,
    state: 'read',
    ackHash: d.claimHash,
    ackDeadline: d.claimExpiresAt,
    claimHash: null,
    claimExpiresAt: null,
  };
}

export type LeaseRejection = AckRejection | 'already_read';
export type LeaseDecision = { status: 'accepted' } | { status: 'rejected'; code: LeaseRejection };

/**
 * Whether an extend or a release presenting `tokenHash` may act on this delivery: exactly when an
 * ACK with it would read the delivery (the current token of a live lease). The refusals are the
 * ACK's, and a delivery already read is `already_read` whatever the token's age.
 */
export function decideLease(d: DeliveryClaimState, tokenHash: string, now: number): LeaseDecision {
  const ack = decideAck(d, tokenHash, now);
  if (ack.status === 'read') return { status: 'accepted' };
  if (ack.status === 'already_read' || (d.state === 'read' && d.ackHash === tokenHash)) {
    return { status: 'rejected', code: 'already_read' };
  }
  return ack;
}

/** The lease after an accepted extend: the same token, expiring at `expiresAt` (now + seconds). */
export function extended(d: DeliveryClaimState, expiresAt: number): DeliveryClaimState {
  return { ...d, claimExpiresAt: expiresAt };
}

/**
 * The delivery after an accepted release: its lease ends now, so it is claimable at once (or
 * parked, when it has had its `max_deliveries`), and its token, kept as the current one, is
 * refused as expired by ACK, extend and release.
 */
export function released(d: DeliveryClaimState, now: number): DeliveryClaimState {
  return { ...d, claimExpiresAt: now };
}
