/**
 * The `/metrics` scrape token: one at a time, stored as its keyed hash like every other token.
 * A scrape is checked and answered with the registry's own figures in one call (`scrape`), so the
 * worker adds no second round trip and no agent or channel object is opened.
 */
import { sql } from 'drizzle-orm';
import type { Env } from '../../core/env.js';
import { pepperOf } from '../../core/lib/api-key.js';
import { digestsEqual, keyedHash, randomToken } from '../../core/lib/crypto.js';
import type { AgentKeyCount, ScrapeAnswer } from '../../core/rpc.js';
import type { RegistryDb } from './database.js';
import { refusalTotalsByReason } from './refusal-counts.js';
import * as schema from './schema.js';

/** Metric tokens are told apart from API keys and session tokens by their prefix. */
const TOKEN_PREFIX = 'sbm_';

export class MetricsToken {
  constructor(
    private readonly db: RegistryDb,
    private readonly env: Env,
  ) {}

  /** A new token (shown once); the previous one, if any, stops working at once. */
  async create(now: number): Promise<string> {
    const token = `${TOKEN_PREFIX}${randomToken()}`;
    const tokenHash = await keyedHash(pepperOf(this.env), token);
    this.db
      .insert(schema.metricsToken)
      .values({ id: 1, tokenHash, createdAt: now })
      .onConflictDoUpdate({ target: schema.metricsToken.id, set: { tokenHash, createdAt: now } })
      .run();
    return token;
  }

  /** Turns metrics off; true when they were on. */
  delete(): boolean {
    return this.db.delete(schema.metricsToken).returning().all().length > 0;
  }

  async scrape(presented: string | null): Promise<ScrapeAnswer> {
    const row = this.db.select().from(schema.metricsToken).get();
    if (!row) return { state: 'off' };
    if (presented === null) return { state: 'refused' };
    const hash = await keyedHash(pepperOf(this.env), presented);
    if (!digestsEqual(hash, row.tokenHash)) return { state: 'refused' };
    // One aggregate over the agents table (bounded by the number of agents, one object).
    const agents = this.db
      .select({
        key_status: sql<
          AgentKeyCount['key_status']
        >`case when ${schema.agents.keyHash} is not null then 'active' when ${schema.agents.keyRevokedAt} is not null then 'revoked' else 'none' end`,
        enabled: schema.agents.enabled,
        agents: sql<number>`count(*)`,
      })
      .from(schema.agents)
      .groupBy(sql`1`, schema.agents.enabled)
      .all();
    return { state: 'ok', agents, refusals: refusalTotalsByReason(this.db) };
  }
}
