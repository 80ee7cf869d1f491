import type { Limits } from '../contract/models.js';
import type { Env } from '../env.js';
import { registry } from '../stubs.js';

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

/**
 * Only the value is shared between requests, never an in-flight promise: workerd ties a promise
 * settled by one request's I/O to that request, and a second request awaiting it would continue
 * in the wrong context ("Cannot perform I/O on behalf of a different request").
 */
export async function currentSettings(env: Env): Promise<SettingsSnapshot> {
  if (cached && Date.now() - cached.at < TTL_MS) return cached.value;
  const value = await registry(env).getSettings();
  cached = { value, at: Date.now() };
  return value;
}

export function rememberSettings(value: SettingsSnapshot): void {
  cached = { value, at: Date.now() };
}

/** Drops this isolate's copy (tests reset storage between cases). */
export function forgetCachedSettings(): void {
  cached = null;
}
