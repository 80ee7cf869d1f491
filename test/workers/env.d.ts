import type { Env as WorkerEnv } from '../../worker/env.js';

declare global {
  namespace Cloudflare {
    interface Env extends WorkerEnv {}
  }
}
