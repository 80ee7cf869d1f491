/**
 * What this channel knows its participants' inbox indexes (durable-objects/agent/inbox-index.ts)
 * hold, so that a send delivers before its answer only the notes that change what a poll sees:
 *
 * - the first note to an agent (its index must list the channel before the answer: the worker
 *   refuses channel IDs the index does not know);
 * - a pending hint the index may not have: a poll clears a hint only after this channel answered
 *   it "nothing unread" (counts, claimCandidates or claim answering null or zero), so until such
 *   an answer a hint this channel delivered is still set.
 *
 * Every other note (the sender's own, a recipient's whose hint is known set) only moves the
 * channel list's `last_message_at`: it stays in the committed outbox and goes out shortly after
 * the answer, coalesced with the next sends' (outbox.ts NoteDelivery). Knowledge is kept in memory only:
 * after a restart the channel knows nothing, and the next send delivers its notes before
 * answering again, as the first one did.
 *
 * A delivery that crosses a "nothing unread" answer must not count: the poll that got that answer
 * may clear the hint the delivery just set. Nor one that crosses a membership change. So each of
 * those moves the agent's epoch (a counter shared by all agents), and a delivery records what it
 * delivered only if the epoch did not move while it was in flight; otherwise the next send simply
 * delivers again.
 */
export class IndexKnowledge {
  /** Agents whose index lists this channel, and whether their pending hint is known to be set. */
  private readonly known = new Map<string, { hint: boolean }>();
  private readonly epochs = new Map<string, number>();
  private forgottenAt = 0;
  private counter = 0;

  /** Whether a note (with `pending`, its hint) must reach the agent's index before the answer. */
  mustDeliverNow(agentId: string, pending: boolean): boolean {
    const entry = this.known.get(agentId);
    return !entry || (pending && !entry.hint);
  }

  /** Taken when a delivery starts, handed back to `delivered`. */
  epoch(agentId: string): number {
    return Math.max(this.epochs.get(agentId) ?? 0, this.forgottenAt);
  }

  /** The agent's index took a note made at `epoch` (with the hint `pending`). */
  delivered(agentId: string, pending: boolean, epoch: number): void {
    if (this.epoch(agentId) !== epoch) return;
    this.known.set(agentId, { hint: (this.known.get(agentId)?.hint ?? false) || pending });
  }

  /** This channel answered the agent "nothing unread here" (or "not a participant"): a poll may clear its hint. */
  mayBeCleared(agentId: string): void {
    this.epochs.set(agentId, ++this.counter);
    const entry = this.known.get(agentId);
    if (entry) entry.hint = false;
  }

  /** A membership change: whatever the indexes held about this channel is notified afresh. */
  forget(): void {
    this.known.clear();
    this.forgottenAt = ++this.counter;
  }
}
