import type { Limits } from '../contract/models.js';
import type { Env } from '../env.js';

export interface SettingsSnapshot {
  limits: Limits;
  revision: number;
}

/**
 * Settings live in the registry Durable Object. Requests read them through this per-isolate
 * cache so that the registry is not on every request's path. A change made through this isolate
 * is visible at once; other isolates (Cloudflare runs many) see it within TTL_MS.
 */
const TTL_MS = 2_000;
let cached: { value: SettingsSnapshot; at: number } | null = null;
let inflight: Promise<SettingsSnapshot> | null = null;

export function registry(env: Env) {
  return env.REGISTRY.get(env.REGISTRY.idFromName('registry'));
}

export async function currentSettings(env: Env): Promise<SettingsSnapshot> {
  if (cached && Date.now() - cached.at < TTL_MS) return cached.value;
  if (!inflight) {
    inflight = registry(env)
      .getSettings()
      .then((value) => {
        cached = { value, at: Date.now() };
        return value;
      })
      .finally(() => {
        inflight = null;
      });
  }
  return inflight;
}

export function rememberSettings(value: SettingsSnapshot): void {
  cached = { value, at: Date.now() };
}

/** The revision for error bodies: never makes a request fail or wait on the registry. */
export function cachedRevision(): number {
  return cached?.value.revision ?? 0;
}

/** Drops this isolate's copy (tests reset storage between cases). */
export function forgetCachedSettings(): void {
  cached = null;
}
