import type { Env as WorkerEnv } from '../../worker/env.js';
import type { ChannelDO, RetentionDO } from './test-worker.js';

declare global {
  namespace Cloudflare {
    // The test worker's Durable Object classes add the test-only controls (test-worker.ts).
    interface Env extends Omit<WorkerEnv, 'CHANNEL' | 'RETENTION'> {
      CHANNEL: DurableObjectNamespace<ChannelDO>;
      RETENTION: DurableObjectNamespace<RetentionDO>;
    }
  }
}
