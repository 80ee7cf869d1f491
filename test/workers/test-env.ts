import { env as runtimeEnv } from 'cloudflare:test';
import type { AgentDO, ChannelDO, RetentionDO } from './test-worker.js';

/**
 * The test runtime's bindings, typed with the test worker's Durable Object classes: in this
 * runtime AGENT, CHANNEL and RETENTION are the subclasses of test-worker.ts with the test-only controls
 * (call counts, clock shift, deletion failures, stored keys, alarm now). The generated `Cloudflare.Env` names
 * the production classes, which lack them.
 */
export const env = runtimeEnv as unknown as Omit<Cloudflare.Env, 'AGENT' | 'CHANNEL' | 'RETENTION'> & {
  AGENT: DurableObjectNamespace<AgentDO>;
  CHANNEL: DurableObjectNamespace<ChannelDO>;
  RETENTION: DurableObjectNamespace<RetentionDO>;
};
