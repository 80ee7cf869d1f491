/** Small WebCrypto helpers shared by the worker and the Durable Objects. */

const encoder = new TextEncoder();

export function randomToken(bytes = 32): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** An opaque ID with a type prefix (`agt_`, `msg_`, …): 128 random bits, URL-safe. */
export function newId(prefix: string): string {
  return `${prefix}${base64url(crypto.getRandomValues(new Uint8Array(16)))}`;
}

export function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

export function hex(bytes: ArrayBuffer | Uint8Array): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let out = '';
  for (const b of view) out += b.toString(16).padStart(2, '0');
  return out;
}

export async function sha256Hex(data: string | Uint8Array): Promise<string> {
  const bytes = typeof data === 'string' ? encoder.encode(data) : data;
  return hex(await crypto.subtle.digest('SHA-256', bytes));
}

/** Imported keys are reused; the resolved key is cached, never a promise another request made. */
const hmacKeys = new Map<string, CryptoKey>();

/** HMAC-SHA256 keyed by a server secret: how API keys and tokens are stored (never plaintext). */
export async function keyedHash(secret: string, value: string): Promise<string> {
  let key = hmacKeys.get(secret);
  if (!key) {
    key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
    ]);
    hmacKeys.set(secret, key);
  }
  return hex(await crypto.subtle.sign('HMAC', key, encoder.encode(value)));
}

/** Constant-time equality of two hex digests of equal length. */
export function digestsEqual(a: string, b: string): boolean {
  const left = encoder.encode(a);
  const right = encoder.encode(b);
  if (left.byteLength !== right.byteLength) return false;
  return crypto.subtle.timingSafeEqual(left, right);
}

/** Cloudflare's WebCrypto caps PBKDF2 at 100,000 iterations; self-hosting uses the same value. */
export const PBKDF2_ITERATIONS = 100_000;

export async function hashPassword(
  password: string,
  salt: string = randomToken(16),
  iterations: number = PBKDF2_ITERATIONS,
): Promise<{ hash: string; salt: string; iterations: number }> {
  const material = await crypto.subtle.importKey('raw', encoder.encode(password), 'PBKDF2', false, ['deriveBits']);
  const bits = await crypto.subtle.deriveBits(
    { name: 'PBKDF2', hash: 'SHA-256', salt: encoder.encode(salt), iterations },
    material,
    256,
  );
  return { hash: hex(bits), salt, iterations };
}
