/**
 * Channel and message identifiers. A private channel's ID is derived from its unordered pair of
 * agents, so both sides compute the same ID without a lookup. A message ID carries its channel,
 * so an ACK or a download can be routed to the channel's Durable Object without any global index.
 */
import type { z } from '@hono/zod-openapi';
import type { ChannelKind as ChannelKindModel } from '../contract/models.js';
import { base64url, randomToken } from '../lib/crypto.js';
import { Memo } from '../lib/memo.js';

export type ChannelKind = z.infer<typeof ChannelKindModel>;

const DM_PREFIX = 'dm_';
const GROUP_PREFIX = 'grp_';
/** 22 base64url characters: 132 bits of SHA-256, far beyond any collision concern for pairs. */
const DM_SUFFIX_LENGTH = 22;
/** The random tail of a message ID (96 bits); the channel part before it has a variable length. */
const MESSAGE_TAIL_LENGTH = 16;
/** A message ID is at most `msg_` + 64 characters (models.ts): 1 kind letter + suffix + tail. */
export const MAX_CHANNEL_SUFFIX_LENGTH = 64 - 1 - MESSAGE_TAIL_LENGTH;

const SUFFIX = /^[A-Za-z0-9_-]+$/;

/** The pairs an isolate sends between most: a digest per send was a measurable share of its CPU. */
const dmIds = new Memo<string>(4096);

/** The private channel of two distinct agents: the same ID whichever side asks. */
export async function dmChannelId(a: string, b: string): Promise<string> {
  const [first, second] = a < b ? [a, b] : [b, a];
  const pair = `${first}\n${second}`;
  const known = dmIds.get(pair);
  if (known !== undefined) return known;
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(pair));
  const id = DM_PREFIX + base64url(new Uint8Array(digest)).slice(0, DM_SUFFIX_LENGTH);
  dmIds.set(pair, id);
  return id;
}

export function channelKindOf(channelId: string): ChannelKind | null {
  if (channelId.startsWith(DM_PREFIX)) return 'private';
  if (channelId.startsWith(GROUP_PREFIX)) return 'group';
  return null;
}

function splitChannelId(channelId: string): { letter: 'd' | 'g'; suffix: string } {
  const kind = channelKindOf(channelId);
  const suffix = kind === 'private' ? channelId.slice(DM_PREFIX.length) : channelId.slice(GROUP_PREFIX.length);
  if (!kind || suffix.length === 0 || suffix.length > MAX_CHANNEL_SUFFIX_LENGTH || !SUFFIX.test(suffix)) {
    throw new Error(`not a routable channel ID: ${channelId}`);
  }
  return { letter: kind === 'private' ? 'd' : 'g', suffix };
}

/** A fresh message ID in `channelId`: `msg_` + kind letter + channel suffix + random tail. */
export function newMessageId(channelId: string): string {
  const { letter, suffix } = splitChannelId(channelId);
  return `msg_${letter}${suffix}${randomToken(12).slice(0, MESSAGE_TAIL_LENGTH)}`;
}

/** The channel a message ID belongs to, or null when the text is not a message ID of this server. */
export function channelOfMessageId(messageId: string): string | null {
  if (!messageId.startsWith('msg_')) return null;
  const rest = messageId.slice(4);
  const suffix = rest.slice(1, rest.length - MESSAGE_TAIL_LENGTH);
  if (suffix.length === 0 || suffix.length > MAX_CHANNEL_SUFFIX_LENGTH || !SUFFIX.test(rest)) return null;
  if (rest[0] === 'd') return suffix.length === DM_SUFFIX_LENGTH ? DM_PREFIX + suffix : null;
  if (rest[0] === 'g') return GROUP_PREFIX + suffix;
  return null;
}
