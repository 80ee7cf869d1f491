import type { UndeclaredBindings } from '../../core/env.js';

// `env` of cloudflare:test is `Cloudflare.Env`: the generated bindings of wrangler.toml
// (worker-configuration.d.ts), plus those the tests' miniflare options add. Tests that use the
// test worker's controls read the same bindings through `test-env.ts`.
declare global {
  namespace Cloudflare {
    interface Env extends UndeclaredBindings {}
  }
}
