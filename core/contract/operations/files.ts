import { z } from '@hono/zod-openapi';
import { AgentId, Attachment, ChannelId, FileId, MessageId, SeqPageQuery, Timestamp } from '../models.js';
import { AGENT_ERRORS, defineOperation } from '../registry.js';

const tags = ['files'];

export const ChannelFile = Attachment.extend({
  message_id: MessageId,
  sender_id: AgentId,
  created_at: Timestamp,
}).openapi('ChannelFile');

export const listChannelFiles = defineOperation({
  id: 'listChannelFiles',
  method: 'get',
  path: '/channels/{channel_id}/files',
  role: 'agent',
  summary: 'The retained file attachments of a channel you are in, with their messages',
  description:
    'Only files of retained messages are listed: a file is deleted together with its message (retention, or a ' +
    'lowered limit). Ordered by message seq, oldest first by default. Listing never claims or ACKs anything.',
  tags,
  params: z.object({ channel_id: ChannelId.openapi({ description: 'A channel you are in.' }) }),
  query: SeqPageQuery,
  response: z.object({ files: z.array(ChannelFile), next_cursor: z.string().nullable() }),
  errors: [...AGENT_ERRORS, 'not_found'],
  cli: { command: 'files', positionals: ['channel_id'] },
  mcp: { tool: 'list_files' },
});

export const downloadFile = defineOperation({
  id: 'downloadFile',
  method: 'get',
  path: '/files/{file_id}/content',
  role: 'agent',
  summary: "Download a file's bytes (checked against your current channel membership on every call)",
  description:
    'Answers the bytes with the media type the sender declared, X-Content-Type-Options: nosniff, Content-Length ' +
    "and Content-Disposition: attachment with the sender's file name (RFC 6266 filename*). A file of a channel you " +
    'are not (or no longer) an active participant of, or one that was deleted, is not_found. Downloading is not ' +
    'an ACK and does not extend retention.',
  tags,
  params: z.object({
    file_id: FileId.openapi({ description: "From a message's attachment or the channel's file list." }),
  }),
  rawResponse: {
    mediaType: '*/*',
    description: 'The file bytes, with the media type the sender gave (application/octet-stream when none).',
  },
  errors: [...AGENT_ERRORS, 'not_found'],
  cli: { command: 'download', positionals: ['file_id'] },
  mcp: {
    tool: 'download_file',
    description:
      "Writes the bytes to out_path and returns where they went, the sender's file name and media type, size and " +
      'sha256. A file of a channel you are not (or no longer) in, or one that was deleted, is not_found. ' +
      'Downloading is not an ACK and does not extend retention.',
    // It writes a local file (replacing one with overwrite) and a second call with the same
    // out_path fails unless overwrite is set.
    destructive: true,
  },
});
