/**
 * What an agent route's authentication call also answers, so that the route makes no call of its
 * own to the agent's object (docs/design/messaging.md, "One call to the agent's object"):
 *
 * - GET /inbox and POST /inbox/claim without channel_id: the channels with a pending hint;
 * - POST /inbox/claim with channel_id, POST /inbox/ack, /extend and /release: whether the agent's index knows the
 *   channel(s) the body names, as the path's and query's IDs already were (channel-access.ts).
 *
 * Body IDs need the body before the call, so these routes read it during authentication, after
 * the stateless key checks (a key refused there still costs no read and touches no storage). Its
 * refusal, if any, waits for the json-body middleware, so a request that is not authenticated is
 * answered `unauthenticated` whatever its body. The body is unvalidated here: only well-formed
 * IDs are taken, and a body too large to be valid (more items than the ACK batch allows) adds
 * none; the handler then checks what is left with a call of its own, as before.
 */
import type { Context } from 'hono';
import type { OperationDef } from '../../core/contract/registry.js';
import { channelOfMessageId } from '../../core/domain/ids.js';
import { currentSettings } from '../../core/lib/settings-cache.js';
import type { AppEnv } from '../handlers/types.js';

export interface RouteNeeds {
  /** Channel or group IDs from the body, checked against the agent's index. */
  channelIds: string[];
  /** The route lists the pending channels. */
  pending: boolean;
}

interface Extras {
  readsBody: boolean;
  needs(c: Context<AppEnv>, body: unknown): Promise<RouteNeeds>;
}

const isId = (value: unknown): value is string => typeof value === 'string' && value.length > 0 && value.length <= 128;

const field = (body: unknown, name: string): unknown =>
  typeof body === 'object' && body !== null && !Array.isArray(body)
    ? (body as Record<string, unknown>)[name]
    : undefined;

/** ACK, extend, release: the channels of the message IDs in the body's array `name`. */
function itemChannels(name: string): Extras {
  return {
    readsBody: true,
    needs: async (c, body) => {
      const list = field(body, name);
      const { limits } = await currentSettings(c.env);
      if (!Array.isArray(list) || list.length > limits.max_claim_batch) return { channelIds: [], pending: false };
      const ids = new Set<string>();
      for (const item of list) {
        const messageId = field(item, 'message_id');
        const channelId = typeof messageId === 'string' ? channelOfMessageId(messageId) : null;
        if (isId(channelId)) ids.add(channelId);
      }
      return { channelIds: [...ids], pending: false };
    },
  };
}

const EXTRAS: Record<string, Extras> = {
  getInbox: {
    readsBody: false,
    needs: async (c) => ({ channelIds: [], pending: !c.req.query('channel_id') }),
  },
  claimMessages: {
    readsBody: true,
    needs: async (_c, body) => {
      const channelId = field(body, 'channel_id');
      return isId(channelId) ? { channelIds: [channelId], pending: false } : { channelIds: [], pending: true };
    },
  },
  ackMessages: itemChannels('acks'),
  extendClaims: itemChannels('items'),
  releaseClaims: itemChannels('items'),
};

/** The route's extras, or null for the routes that need only the path's and query's IDs. */
export function authExtrasFor(op: OperationDef | null): Extras | null {
  return (op && EXTRAS[op.id]) ?? null;
}
