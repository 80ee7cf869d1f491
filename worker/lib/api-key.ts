/**
 * API keys are `sbk_<agent id>.<secret>`. The agent ID in the key routes authentication straight
 * to that agent's own Durable Object, so no single object sees every request. Only a keyed hash
 * of the whole key is ever stored.
 */
import { randomToken } from './crypto.js';

const KEY_PATTERN = /^sbk_(agt_[A-Za-z0-9_-]{1,64})\.([A-Za-z0-9_-]{20,128})$/;

export function issueApiKey(agentId: string): string {
  return `sbk_${agentId}.${randomToken(32)}`;
}

/** The agent the key names, or null when the text is not shaped like a key. */
export function agentIdOfKey(key: string): string | null {
  return KEY_PATTERN.exec(key)?.[1] ?? null;
}

export function pepperOf(env: { KEY_PEPPER?: string }): string {
  const pepper = env.KEY_PEPPER;
  if (!pepper || pepper.length < 16) {
    throw new Error('KEY_PEPPER is not configured (at least 16 characters): run `wrangler secret put KEY_PEPPER`.');
  }
  return pepper;
}
