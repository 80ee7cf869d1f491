/**
 * The worker under test: the production entry point, plus the test-only controls, which live
 * here and nowhere in `worker/` or `durable-objects/`, so the production bundle
 * (`dist/worker/index.js`, what `wrangler deploy` ships and the launcher runs) cannot contain them
 * (`test/e2e/production-bundle.test.ts` checks). Tests reach it through SELF and its Durable
 * Object bindings; the fault run loads a bundle of this file (`test/faults/fault-run.ts`).
 *
 * The Durable Object classes below replace the production ones of the same name (a local export
 * wins over `export *`), so wrangler.toml's bindings resolve to them in the test runtime only.
 */
import { count } from 'drizzle-orm';
import { AgentDO as ProductionAgentDO } from '../../durable-objects/agent/agent-do.js';
import { ChannelDO as ProductionChannelDO } from '../../durable-objects/channel/channel-do.js';
import { RetentionDO as ProductionRetentionDO } from '../../durable-objects/retention/retention-do.js';
import { uploadLeases } from '../../durable-objects/retention/schema.js';
import type { CleanupStatusView } from '../../durable-objects/retention/status.js';
import { ChannelCalls } from '../../worker/handlers/messaging/stubs.js';

export * from '../../worker/index.js';
export { default } from '../../worker/index.js';

// How many channel Durable Object calls a request made, in a response header
// (test/workers/messaging-helpers.ts `channelCalls`).
ChannelCalls.observer = (c, n) => c.header('x-switchboard-channel-calls', String(n));

/**
 * Counts the calls the request path makes to an agent's object (authentication and the index
 * reads and clears a route may make on its own), so tests can prove one call per request.
 */
export class AgentDO extends ProductionAgentDO {
  private requestPathCalls = 0;
  private notesTaken = 0;

  override async noteChannels(...args: Parameters<ProductionAgentDO['noteChannels']>) {
    this.notesTaken += args[0].length;
    return super.noteChannels(...args);
  }

  /** The channel notes this object took since the last time this was asked (outbox deliveries). */
  async takeNotesTaken(): Promise<number> {
    const n = this.notesTaken;
    this.notesTaken = 0;
    return n;
  }

  override async authenticate(...args: Parameters<ProductionAgentDO['authenticate']>) {
    this.requestPathCalls++;
    return super.authenticate(...args);
  }

  override async pendingChannels(...args: Parameters<ProductionAgentDO['pendingChannels']>) {
    this.requestPathCalls++;
    return super.pendingChannels(...args);
  }

  override async clearPending(...args: Parameters<ProductionAgentDO['clearPending']>) {
    this.requestPathCalls++;
    return super.clearPending(...args);
  }

  override async knownChannels(...args: Parameters<ProductionAgentDO['knownChannels']>) {
    this.requestPathCalls++;
    return super.knownChannels(...args);
  }

  /** The calls counted since the last time this was asked. */
  async takeRequestPathCalls(): Promise<number> {
    const n = this.requestPathCalls;
    this.requestPathCalls = 0;
    return n;
  }
}

export class ChannelDO extends ProductionChannelDO {
  private clockOffsetMs = 0;

  protected override now(): number {
    return Date.now() + this.clockOffsetMs;
  }

  /** Shifts this channel's clock, so expiry is tested without waiting. */
  async setClockOffset(ms: number): Promise<void> {
    this.clockOffsetMs = ms;
  }

  /**
   * The agents whose outbox note is still to be delivered, sorted. Rows already delivered stay in
   * the table until the next write deletes them (delivered-notes.ts) and are not listed here.
   */
  async undeliveredNotes(): Promise<string[]> {
    return this.store
      .outbox()
      .map((item) => item.agentId)
      .sort();
  }

  /** The object keys this channel owns or is deleting (compared with R2 by tests). */
  async storedKeys(): Promise<{ live: string[]; pending: string[]; deleting: string[] }> {
    return this.store.files.ownedKeys();
  }

  /** Makes this channel's R2 deletions fail (null: back to normal). */
  async setDeletionFailure(message: string | null): Promise<void> {
    this.store.files.queue.failWith = message;
  }
}

export class RetentionDO extends ProductionRetentionDO {
  private clockOffsetMs = 0;

  protected override now(): number {
    return Date.now() + this.clockOffsetMs;
  }

  async setClockOffset(ms: number): Promise<void> {
    this.clockOffsetMs = ms;
  }

  /** Makes every R2 call of this object's deletion jobs fail (null: back to normal). */
  async setDeletionFailure(message: string | null): Promise<void> {
    this.queue.failWith = message;
  }

  /** Runs the alarm's work now (tests do not wait for the real alarm). */
  async runAlarmNow(): Promise<CleanupStatusView> {
    await this.alarm();
    return this.cleanupStatus();
  }

  async leaseCount(): Promise<number> {
    return this.db.select({ n: count() }).from(uploadLeases).get()?.n ?? 0;
  }
}
