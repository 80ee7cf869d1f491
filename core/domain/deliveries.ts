/**
 * The per-recipient delivery state machine of protocol-design.md, as pure functions of a delivery
 * and the time, so every rule is testable without storage:
 *
 *   unread --claim--> leased --valid ACK--> read
 *   leased --expiry--> (claimable again; stored state stays `leased` until the next claim)
 *   any --retention purge--> absent
 *
 * A lease past its expiry is not rewritten when it expires; it simply stops counting as leased,
 * so expiry needs no timer and can never touch a delivery that is already read.
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
}

/** How many replaced token hashes a delivery remembers to tell `claim_replaced` from a bad token. */
export const REPLACED_HASHES_KEPT = 8;

export function isLeased(d: DeliveryClaimState, now: number): boolean {
  return d.state === 'leased' && d.claimExpiresAt !== null && now < d.claimExpiresAt;
}

export function isClaimable(d: DeliveryClaimState, now: number): boolean {
  return d.state === 'unread' || (d.state === 'leased' && !isLeased(d, now));
}

/** The delivery after a claim with a fresh token: the previous token, if any, becomes replaced. */
export function claimed(d: DeliveryClaimState, tokenHash: string, expiresAt: number): DeliveryClaimState {
  const replacedHashes = d.claimHash
    ? [d.claimHash, ...d.replacedHashes].slice(0, REPLACED_HASHES_KEPT)
    : d.replacedHashes;
  return { ...d, state: 'leased', claimHash: tokenHash, claimExpiresAt: expiresAt, replacedHashes };
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
