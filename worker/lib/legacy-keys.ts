/**
 * Agents whose current key was issued before keys carried a tag (api-key.ts). Such a key cannot be
 * checked by the worker alone, so it may go on to the agent's Durable Object, which exists (the
 * registry created it with the key). Every other key without a valid tag is refused before any
 * Durable Object is touched.
 *
 * The set comes from the registry and is cached per isolate. It can only shrink (every key issued
 * now is tagged), so an empty answer is kept for good and a non-empty one for TTL_MS. A stale
 * entry costs at most one call to an object that exists; the object still decides with the live
 * hash, so a regenerated or revoked legacy key fails at once.
 */
import type { Env } from '../../core/env.js';
import { registry } from '../../core/stubs.js';

const TTL_MS = 60_000;
let cached: { ids: ReadonlySet<string>; at: number } | null = null;

/** Only the value is shared between requests, never a promise (see settings-cache.ts). */
export async function legacyKeyAgents(env: Env): Promise<ReadonlySet<string>> {
  if (cached && (cached.ids.size === 0 || Date.now() - cached.at < TTL_MS)) return cached.ids;
  const ids = new Set(await registry(env).legacyKeyAgents());
  cached = { ids, at: Date.now() };
  return ids;
}

/** Drops this isolate's copy (tests reset storage between cases). */
export function forgetLegacyKeyAgents(): void {
  cached = null;
}
