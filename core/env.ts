/// <reference path="../worker-configuration.d.ts" />
/**
 * The worker's bindings. Those wrangler.toml declares (the five Durable Object namespaces: REGISTRY,
 * AGENT, CHANNEL, GROUPS, RETENTION; the FILES bucket; ASSETS) are generated from it by the pinned
 * `wrangler types` into worker-configuration.d.ts (`npm run types`; `npm run check` fails when it
 * drifts). Only what wrangler.toml cannot declare is written here. ASSETS is typed as declared,
 * although the Workers test pool runs without it (worker/index.ts then serves only the API).
 */
export interface UndeclaredBindings {
  /** Secret key for the keyed hashes of API keys and tokens. `wrangler secret put KEY_PEPPER`. */
  KEY_PEPPER?: string;
  /**
   * Cloudflare only: a first-run setup token (at least 16 characters) for creating the first
   * administrator at /setup#token=…, since no launcher is there to print one.
   */
  SETUP_TOKEN?: string;
  /**
   * Set only by the self-host launcher: the per-boot secret its Node front adds to every request.
   * When present, requests without it are refused and the front's CF-Connecting-IP is trusted.
   */
  FRONT_SECRET?: string;
  /**
   * Self-host only: the names the server answers to (core/lib/host-names.ts), comma-separated,
   * set by the launcher. Absent on Cloudflare, where the edge routes only the zone's names.
   */
  ALLOWED_HOSTS?: string;
  /**
   * Set only by the launcher under SWITCHBOARD_BENCH_HELLO (server/diagnostics.ts): a request with
   * `x-switchboard-bench-metrics: off` is then not counted, so `npm run bench` measures the hot
   * path with and without the metrics middleware in one run.
   */
  BENCH_METRICS_SWITCH?: string;
  /** Self-host only: the launcher's host metrics service (CPU, memory, disk, GPU). */
  HOST_METRICS?: Fetcher;
  /**
   * Tests only: the fault point to stop at (durable-objects/shared/fault-point.ts), set by the
   * launcher only from SWITCHBOARD_TEST_FAULT_POINT (server/diagnostics.ts). Never declared in
   * wrangler.toml, so a deployed worker never has it.
   */
  FAULT_POINT?: string;
}

export interface Env extends Cloudflare.Env, UndeclaredBindings {}
