/**
 * Threads: a message may answer one earlier message of its own channel (`reply_to`); every message
 * belongs to the thread of its root (`thread_id`, the root's message ID; a root is its own thread).
 * A message ID names its channel (ids.ts), so "is this reply_to of this channel?" is answered from
 * the ID alone, before any storage is touched; whether it exists is the channel's to answer.
 */
import { ApiError } from '../contract/errors.js';
import { channelOfMessageId } from './ids.js';

/** Refuses a reply_to that names a message of another channel than `channelId` (or no message at all). */
export function requireReplyInChannel(replyTo: string, channelId: string): void {
  if (channelOfMessageId(replyTo) !== channelId) {
    throw new ApiError(
      'reply_to_other_channel',
      'reply_to must be a message of the channel this message goes to; nothing was sent.',
      { field: 'reply_to', target: replyTo },
    );
  }
}

/**
 * A direct send with reply_to answers a message of ONE private channel, so it has exactly one
 * target: the other agent of that channel. Several targets are several channels, and the reply
 * could only be threaded in one of them; refusing says so instead of threading some copies only.
 */
export function requireSingleReplyTarget(replyTo: string | undefined, distinctTargets: number): void {
  if (replyTo !== undefined && distinctTargets > 1) {
    throw new ApiError(
      'reply_to_other_channel',
      `reply_to answers a message of one private channel, so the reply goes to one target, not ${distinctTargets}; ` +
        'send anything for other agents as a separate message. Nothing was sent.',
      { field: 'reply_to', target: replyTo },
    );
  }
}

export function replyNotFound(replyTo: string): ApiError {
  return new ApiError(
    'reply_to_not_found',
    'reply_to names no message of this channel (never sent here, or deleted by retention so long ago that the ' +
      'channel no longer remembers it); nothing was sent.',
    { field: 'reply_to', target: replyTo },
  );
}
