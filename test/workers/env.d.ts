import type { UndeclaredBindings } from '../../worker/env.js';

// `env` of cloudflare:test is `Cloudflare.Env`: the generated bindings of wrangler.toml
// (worker-configuration.d.ts), plus those the tests' miniflare options add.
declare global {
  namespace Cloudflare {
    interface Env extends UndeclaredBindings {}
  }
}
