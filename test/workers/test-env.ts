import { env as runtimeEnv } from 'cloudflare:test';
import type { ChannelDO, RetentionDO } from './test-worker.js';

/**
 * The test runtime's bindings, typed with the test worker's Durable Object classes: in this
 * runtime CHANNEL and RETENTION are the subclasses of test-worker.ts with the test-only controls
 * (clock shift, deletion failures, stored keys, alarm now). The generated `Cloudflare.Env` names
 * the production classes, which lack them.
 */
export const env = runtimeEnv as unknown as Omit<Cloudflare.Env, 'CHANNEL' | 'RETENTION'> & {
  CHANNEL: DurableObjectNamespace<ChannelDO>;
  RETENTION: DurableObjectNamespace<RetentionDO>;
};
