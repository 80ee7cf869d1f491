import { DurableObject } from 'cloudflare:workers';
import migrations from '../../migrations/channel/migrations.js';
import { ApiError } from '../../worker/contract/errors.js';
import type { ClaimOrder } from '../../worker/domain/claim-plan.js';
import type { MessageContent } from '../../worker/domain/content.js';
import type { Env } from '../../worker/env.js';
import { randomToken, sha256Hex } from '../../worker/lib/crypto.js';
import { openDatabase } from '../shared/database.js';
import * as schema from './schema.js';
import {
  type AckOutcome,
  ChannelStore,
  type ClaimView,
  type HistoryPage,
  type InboxCounts,
  type SendOutcome,
} from './store.js';

/** When a note to an agent's inbox index failed, the alarm tries again after this long. */
const OUTBOX_RETRY_MS = 5_000;
/** The alarm is armed before each send with this delay, as a safety net for a crash mid-request. */
const OUTBOX_SAFETY_MS = 30_000;

/**
 * One per channel (`dm_…` for a pair of agents, `grp_…` for a group): messages with their strict
 * seq, per-recipient deliveries and claims, dedup pointers and the outbox to the participants'
 * inbox indexes. A thin shell over ChannelStore: it owns the clock, the token randomness and the
 * outbox delivery, the store owns every transaction.
 */
export class ChannelDO extends DurableObject<Env> {
  private readonly store: ChannelStore;
  /** Test-only clock shift (setClockOffset), so expiry can be tested without waiting. */
  private clockOffsetMs = 0;
  private alarmArmed = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new ChannelStore(openDatabase(ctx, schema, migrations));
    // An outbox left by a crash between commit and delivery is picked up as soon as we wake.
    void ctx.blockConcurrencyWhile(async () => {
      if (this.store.hasOutbox()) await ctx.storage.setAlarm(Date.now() + OUTBOX_RETRY_MS);
    });
  }

  private now(): number {
    return Date.now() + this.clockOffsetMs;
  }

  async sendDirect(input: {
    channel_id: string;
    sender_id: string;
    recipient_id: string;
    content: MessageContent;
    max_messages: number;
  }): Promise<SendOutcome> {
    this.armOutboxAlarm();
    const outcome = this.store.sendDirect({
      channelId: input.channel_id,
      senderId: input.sender_id,
      recipientId: input.recipient_id,
      content: input.content,
      maxMessages: input.max_messages,
      now: this.now(),
    });
    // Delivered before answering, so the recipient's next poll sees the message; a failure stays
    // in the outbox for the alarm and does not fail the send: the message is committed.
    if (outcome.status === 'sent') await this.drainOutbox();
    return outcome;
  }

  async counts(agentId: string): Promise<InboxCounts | null> {
    return this.store.counts(agentId, this.now());
  }

  async claimCandidates(
    agentId: string,
    limit: number,
    order: ClaimOrder,
  ): Promise<{ candidates: { seq: number; created_at: number }[]; unread: number } | null> {
    return this.store.claimCandidates(agentId, limit, order, this.now());
  }

  /** Claims up to `count` deliveries; `claimSeconds` is the setting in force now, fixed into the expiry. */
  async claim(agentId: string, count: number, order: ClaimOrder, claimSeconds: number): Promise<ClaimView[] | null> {
    // Tokens are made and hashed before the transaction: WebCrypto is async, the transaction is not.
    const tokens = await Promise.all(
      Array.from({ length: count }, async () => {
        const token = randomToken(32);
        return { token, hash: await sha256Hex(token) };
      }),
    );
    return this.store.claim(agentId, tokens, order, this.now(), claimSeconds * 1000);
  }

  async ack(agentId: string, items: readonly { message_id: string; claim_token: string }[]): Promise<AckOutcome[]> {
    const hashed = await Promise.all(
      items.map(async (item) => ({ message_id: item.message_id, tokenHash: await sha256Hex(item.claim_token) })),
    );
    return this.store.ack(agentId, hashed, this.now());
  }

  async history(agentId: string, afterSeq: number | null, limit: number, order: 'asc' | 'desc'): Promise<HistoryPage> {
    const page = this.store.history(agentId, afterSeq, limit, order);
    if (!page) throw new ApiError('not_found', 'No such channel.');
    return page;
  }

  /** Test-only: shifts this channel's clock. Refused unless the worker runs with TEST_ROUTES=1. */
  async setClockOffset(ms: number): Promise<void> {
    if (this.env.TEST_ROUTES !== '1') throw new ApiError('forbidden', 'Test routes are disabled.');
    this.clockOffsetMs = ms;
  }

  /** Retries the outbox; a failed note re-arms the alarm (drainOutbox), so retries go on until it lands. */
  override async alarm(): Promise<void> {
    this.alarmArmed = false;
    await this.drainOutbox();
  }

  /**
   * Set without awaiting and before the transaction: alarm writes follow the same rules as other
   * storage writes, so it commits together with the message and its outbox rows.
   */
  private armOutboxAlarm(): void {
    if (this.alarmArmed) return;
    this.alarmArmed = true;
    void this.ctx.storage.setAlarm(Date.now() + OUTBOX_SAFETY_MS);
  }

  /** Hands every pending note to its agent's index; false when some failed (they are retried by alarm). */
  private async drainOutbox(): Promise<boolean> {
    const items = this.store.outbox();
    const results = await Promise.allSettled(
      items.map((item) => this.env.AGENT.get(this.env.AGENT.idFromName(item.agentId)).noteChannels([item.note])),
    );
    let ok = true;
    results.forEach((result, i) => {
      const item = items[i]!;
      if (result.status === 'fulfilled') this.store.outboxDelivered(item.agentId, item.version);
      else {
        ok = false;
        this.store.outboxFailed(item.agentId, String(result.reason));
      }
    });
    if (!ok) {
      this.alarmArmed = true;
      await this.ctx.storage.setAlarm(Date.now() + OUTBOX_RETRY_MS);
    }
    return ok;
  }
}
