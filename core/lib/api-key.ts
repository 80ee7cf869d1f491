/**
 * API keys are `sbk_<agent id>.<secret>`. The agent ID in the key routes authentication straight
 * to that agent's own Durable Object, so no single object sees every request. Only a keyed hash
 * of the whole key is ever stored.
 *
 * The 43-character secret is base64url of 16 random bytes and a 16-byte tag, HMAC-SHA256 with
 * `KEY_PEPPER` over the agent ID and the random part. The worker checks the tag before anything
 * else, so a key it did not issue (an unknown agent ID or a wrong secret alike) is refused with the
 * same stateless work and never reaches, or creates, a Durable Object. The tag only says "this
 * server issued a key like this once": the agent's object still holds the live hash, so a revoked
 * or regenerated key fails there at once.
 *
 * Keys issued before tags existed (`randomToken(32)`, the same shape) have no valid tag; their
 * stored hashes carry no `TAGGED_HASH_PREFIX`, which is how the registry lists those agents for the
 * legacy path (legacy-keys.ts) until their keys are regenerated.
 */
import { base64url, keyedHash } from './crypto.js';

const KEY_PATTERN = /^sbk_(agt_[A-Za-z0-9_-]{1,64})\.([A-Za-z0-9_-]{20,128})$/;

/** 16 random bytes + 16 tag bytes = 32 bytes = 43 base64url characters, as before tags existed. */
const RANDOM_BYTES = 16;
const TAG_BYTES = 16;
const SECRET_LENGTH = 43;

/** Marks the stored hash of a tagged key; a hash without it belongs to a legacy (untagged) key. */
export const TAGGED_HASH_PREFIX = 'tag1:';

/** Domain separation: the tag's HMAC input can never equal a whole key's (which starts `sbk_`). */
const TAG_CONTEXT = 'switchboard-api-key-tag\u0000';

export interface ParsedKey {
  key: string;
  agentId: string;
  secret: string;
}

export function parseApiKey(key: string): ParsedKey | null {
  const match = KEY_PATTERN.exec(key);
  return match ? { key, agentId: match[1]!, secret: match[2]! } : null;
}

/** The agent the key names, or null when the text is not shaped like a key. */
export function agentIdOfKey(key: string): string | null {
  return parseApiKey(key)?.agentId ?? null;
}

async function tagOf(pepper: string, agentId: string, random: Uint8Array): Promise<Uint8Array> {
  const mac = await keyedHash(pepper, `${TAG_CONTEXT}${agentId}.${base64url(random)}`);
  return hexToBytes(mac.slice(0, TAG_BYTES * 2));
}

/** A new key for the agent and the hash to store for it. */
export async function issueApiKey(agentId: string, pepper: string): Promise<{ key: string; hash: string }> {
  const random = crypto.getRandomValues(new Uint8Array(RANDOM_BYTES));
  const secret = new Uint8Array(RANDOM_BYTES + TAG_BYTES);
  secret.set(random);
  secret.set(await tagOf(pepper, agentId, random), RANDOM_BYTES);
  const key = `sbk_${agentId}.${base64url(secret)}`;
  return { key, hash: await storedKeyHash(pepper, key, true) };
}

/**
 * Whether this server issued a key with this agent ID and random part: one HMAC and a
 * constant-time comparison, whatever the key. A malformed key is checked against a placeholder so
 * that every refusal costs the same.
 */
export async function hasValidTag(pepper: string, parsed: ParsedKey | null): Promise<boolean> {
  const secret = parsed && parsed.secret.length === SECRET_LENGTH ? base64urlToBytes(parsed.secret) : null;
  const bytes = secret ?? new Uint8Array(RANDOM_BYTES + TAG_BYTES);
  const expected = await tagOf(pepper, parsed?.agentId ?? 'agt_placeholder', bytes.subarray(0, RANDOM_BYTES));
  const equal = crypto.subtle.timingSafeEqual(expected, bytes.subarray(RANDOM_BYTES));
  return secret !== null && equal;
}

/** Characters of the secret shown in a key's prefix: 24 of its 128 random bits, enough to tell keys apart. */
const PREFIX_SECRET_CHARS = 4;

/**
 * The visible start of a key, `sbk_<agent id>.` and the first characters of its random part: what
 * the console shows so an administrator can tell the current key from an old one a client still
 * uses. The rest (and the tag) is never stored or shown.
 */
export function keyPrefix(key: string): string {
  const parsed = parseApiKey(key);
  return parsed ? `sbk_${parsed.agentId}.${parsed.secret.slice(0, PREFIX_SECRET_CHARS)}` : '';
}

/** What the registry stores and the agent's object compares: the keyed hash of the whole key. */
export async function storedKeyHash(pepper: string, key: string, tagged: boolean): Promise<string> {
  const hash = await keyedHash(pepper, key);
  return tagged ? `${TAGGED_HASH_PREFIX}${hash}` : hash;
}

function hexToBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** Exactly 32 bytes from 43 base64url characters, or null. */
function base64urlToBytes(text: string): Uint8Array | null {
  try {
    const binary = atob(text.replaceAll('-', '+').replaceAll('_', '/'));
    if (binary.length !== RANDOM_BYTES + TAG_BYTES) return null;
    return Uint8Array.from(binary, (ch) => ch.charCodeAt(0));
  } catch {
    return null;
  }
}

export function pepperOf(env: { KEY_PEPPER?: string }): string {
  const pepper = env.KEY_PEPPER;
  if (!pepper || pepper.length < 16) {
    throw new Error('KEY_PEPPER is not configured (at least 16 characters): run `wrangler secret put KEY_PEPPER`.');
  }
  return pepper;
}
