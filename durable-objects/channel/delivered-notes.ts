/**
 * Outbox rows whose note an agent's index already took, kept in memory until a write that happens
 * anyway deletes them (the next send's insert transaction, before its outbox upsert; a membership
 * change; the alarm's run). Deleting each row in a turn of its own after delivery cost a SQLite
 * commit of its own (WAL and fsync) after most sends; the row is now deleted with the next commit.
 *
 * A delivered row is left out of every drain while its version is the one delivered: the note is
 * not sent twice. A send that touches the row bumps its version (sending.ts), so a row changed after
 * it was read is delivered again; and the deletion is `where agent_id = ? and version = ?`, so it
 * can only delete exactly what was delivered. Nothing here is needed for a note to arrive: after
 * a restart the set is empty and the rows left in the outbox are simply delivered once more
 * (receivers are idempotent; a re-sent `pending` only leaves a hint set that the next poll
 * repairs, as after a crash before the delete).
 *
 * ABA: deleting a row lets the next send create the agent's row afresh, with version 1 again. A
 * drain that read the old row before the deletion and finishes after it must not mark the new row
 * delivered. So each deletion moves the agent's epoch (a counter shared by all agents), taken when
 * a drain reads the outbox and checked when it records: a drain that crossed a deletion records
 * nothing, and the new row goes out with the next drain (index-knowledge.ts uses the same trick).
 */
export class DeliveredNotes {
  /** agent ID → the outbox row version its index took. */
  private readonly delivered = new Map<string, number>();
  /** agent ID → the counter value when its delivered row was last deleted. */
  private readonly epochs = new Map<string, number>();
  private counter = 0;

  /** Taken for each row when a drain reads the outbox, handed back to `record`. */
  epoch(agentId: string): number {
    return this.epochs.get(agentId) ?? 0;
  }

  /** Whether the agent's index already took this version of its row. */
  has(agentId: string, version: number): boolean {
    return this.delivered.get(agentId) === version;
  }

  /** The agent's index took the row at `version`, read at `epoch`; ignored if a deletion crossed it. */
  record(agentId: string, version: number, epoch: number): void {
    if (this.epoch(agentId) !== epoch) return;
    this.delivered.set(agentId, version);
  }

  /**
   * The rows to delete now, forgotten here: the caller deletes them (compare-and-delete on the
   * version) in the transaction it is running, so they go with its commit.
   */
  take(): [agentId: string, version: number][] {
    if (this.delivered.size === 0) return [];
    const rows = [...this.delivered];
    this.delivered.clear();
    for (const [agentId] of rows) this.epochs.set(agentId, ++this.counter);
    return rows;
  }
}
