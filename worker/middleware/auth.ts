import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import { createMiddleware } from 'hono/factory';
import { ApiError } from '../../core/contract/errors.js';
import type { OperationDef } from '../../core/contract/registry.js';
import { channelOfFileId } from '../../core/domain/file-id.js';
import { hasValidTag, type ParsedKey, parseApiKey, pepperOf, storedKeyHash } from '../../core/lib/api-key.js';
import { keyedHash } from '../../core/lib/crypto.js';
import { Memo } from '../../core/lib/memo.js';
import { agentObject, registry } from '../../core/stubs.js';
import { readJsonBody } from '../body/index.js';
import type { AppEnv } from '../handlers/types.js';
import { legacyKeyAgents } from '../lib/legacy-keys.js';
import { noteRefusedKey } from '../lib/refused-keys.js';
import { takeClears } from '../lib/stale-hints.js';
import { authExtrasFor } from './auth-extras.js';

export const SESSION_COOKIE = 'switchboard_session';

const UNAUTHENTICATED = 'Missing, unknown or revoked API key, or disabled agent.';

/**
 * Tagged keys this isolate has checked, with their stored hash: both are pure functions of the key
 * and the pepper, two HMACs that were a measurable share of every request's CPU. Only a key with a
 * valid tag enters (nobody makes one without the pepper), so a refusal costs what it always did
 * and the memo holds the keys of real agents only. Whether the key is still the agent's is not
 * remembered here: its own object answers that on every request.
 */
const checkedKeys = new Memo<{ pepper: string; keyHash: string }>(4096);

/** The stored hash of a key this server issued or still accepts, or null for a key to refuse. */
async function keyHashOf(c: Context<AppEnv>, pepper: string, parsed: ParsedKey | null): Promise<string | null> {
  const checked = parsed && checkedKeys.get(parsed.key);
  if (checked && checked.pepper === pepper) return checked.keyHash;
  const tagged = await hasValidTag(pepper, parsed);
  // Looked up for every untagged key, known agent or not, so that both cost the same.
  const legacy = !tagged && (await legacyKeyAgents(c.env)).has(parsed?.agentId ?? '');
  if (!parsed || !(tagged || legacy)) return null;
  const keyHash = await storedKeyHash(pepper, parsed.key, tagged);
  if (tagged) checkedKeys.set(parsed.key, { pepper, keyHash });
  return keyHash;
}

/** The channel or group IDs a request names in its path or query (at most three). */
function namedChannels(c: Context<AppEnv>): string[] {
  const fileId = c.req.param('file_id');
  const ids = [
    c.req.param('channel_id'),
    c.req.param('group_id'),
    fileId === undefined ? undefined : channelOfFileId(fileId),
    c.req.query('channel_id'),
  ];
  return [...new Set(ids.filter((id): id is string => typeof id === 'string' && id.length > 0 && id.length <= 128))];
}

/**
 * Agent routes: the bearer key and the client address, both required.
 *
 * A key must carry the tag only this server can make (api-key.ts) before any Durable Object is
 * touched: an unknown agent ID and a wrong secret fail alike, with one HMAC and one look at the
 * cached legacy set, and create no storage. A tagged (or legacy) key then goes to its agent's own
 * Durable Object, which holds the live hash, the enabled flag and the host addresses, so a revoked
 * key or a disabled agent fails at once. The same call checks the channel/group IDs that the
 * request names against the agent's index (`channelAccess`), so that handlers never open a
 * channel the agent has never been in (see worker/handlers/channel-access.ts), applies the stale
 * hints earlier polls found (worker/lib/stale-hints.ts) and, for the inbox routes, answers what
 * the route needs from the index (auth-extras.ts): one call to the agent's object per request.
 */
export function requireAgentFor(op: OperationDef | null) {
  const extras = authExtrasFor(op);
  return createMiddleware<AppEnv>(async (c, next) => {
    const channelIds = namedChannels(c);
    // A tool call of `/mcp` that names no channel needs nothing the outer request's check did not
    // establish: the same key, from the same address, a moment ago.
    const inProcess = c.get('inProcess');
    if (inProcess && channelIds.length === 0 && !extras) {
      c.set('agent', inProcess.agent);
      c.set('channelAccess', new Map());
      await next();
      return;
    }
    const header = c.req.header('authorization') ?? '';
    const parsed = parseApiKey(/^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] ?? '');
    const pepper = pepperOf(c.env);
    const keyHash = await keyHashOf(c, pepper, parsed);
    if (!parsed || keyHash === null) {
      if (parsed) noteRefusedKey(c.env, (work) => c.executionCtx.waitUntil(work), parsed.agentId, c.get('clientIp'));
      throw new ApiError('unauthenticated', UNAUTHENTICATED);
    }
    const stub = agentObject(c.env, parsed.agentId);
    let pending = false;
    if (extras && op) {
      let body: unknown;
      if (extras.readsBody) {
        try {
          body = await readJsonBody(c, op);
          c.set('earlyBody', { value: body });
        } catch (error) {
          c.set('earlyBody', { error }); // refused after authentication, by jsonBody
        }
      }
      const needs = await extras.needs(c, body);
      for (const id of needs.channelIds) if (!channelIds.includes(id)) channelIds.push(id);
      pending = needs.pending;
    }
    const result = await stub.authenticate(parsed.agentId, keyHash, c.get('clientIp'), channelIds, {
      pending,
      clear: takeClears(parsed.agentId),
    });
    if (result.status === 'unauthenticated') throw new ApiError('unauthenticated', UNAUTHENTICATED);
    if (result.status === 'source_ip_denied') {
      // The address the server saw goes back to the caller (it is the caller's own), so a NAT,
      // proxy or IPv4/IPv6 mix-up is visible without server logs.
      const seen = c.get('clientIp');
      throw new ApiError('source_ip_denied', `This address (${seen}) is not one of the agent's host addresses.`, {
        target: seen,
      });
    }
    c.set('agent', result.agent);
    const known = new Set(result.channels);
    c.set('channelAccess', new Map(channelIds.map((id) => [id, known.has(id)])));
    if (result.pending) c.set('pendingChannels', result.pending);
    await next();
  });
}

/** Agent authentication for routes outside the registry (`/mcp`): the path's and query's IDs only. */
export const requireAgent = requireAgentFor(null);

/** Admin routes: a live session cookie. An agent key never opens them. */
export const requireAdmin = createMiddleware<AppEnv>(async (c, next) => {
  const token = getCookie(c, SESSION_COOKIE);
  if (!token) throw new ApiError('unauthenticated', 'Sign in as an administrator.');
  const session = await registry(c.env).touchSession(await keyedHash(pepperOf(c.env), token));
  if (!session) throw new ApiError('unauthenticated', 'The session has ended; sign in again.');
  c.set('admin', session);
  await next();
});
