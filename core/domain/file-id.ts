/**
 * File IDs carry their channel the way message IDs do (`fil_` + kind letter + channel suffix +
 * random tail), so a download is routed straight to the channel's Durable Object, whose
 * participant check is the authorization: no global file index exists or is needed.
 */
import { channelOfMessageId, newMessageId } from './ids.js';

export function newFileId(channelId: string): string {
  return `fil_${newMessageId(channelId).slice('msg_'.length)}`;
}

export function channelOfFileId(fileId: string): string | null {
  if (!fileId.startsWith('fil_')) return null;
  return channelOfMessageId(`msg_${fileId.slice('fil_'.length)}`);
}

/** The R2 key of a stored attachment: opaque, server-generated, grouped by channel for operators. */
export function fileObjectKey(channelId: string, random: string): string {
  return `files/${channelId}/${random}`;
}
