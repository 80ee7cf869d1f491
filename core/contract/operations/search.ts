import { z } from '@hono/zod-openapi';
import { MAX_SEARCH_QUERY_LENGTH } from '../../domain/search.js';
import { AgentId, ChannelId, ChannelKind, Cursor, MessageId, PageLimit, Timestamp } from '../models.js';
import { AGENT_ERRORS, defineOperation } from '../registry.js';

export const SearchHit = z
  .object({
    channel_id: ChannelId,
    kind: ChannelKind,
    message_id: MessageId,
    sender_id: AgentId,
    created_at: Timestamp,
    seq: z.number().int().positive(),
    snippet: z.string().openapi({
      description: 'The matching part of the body (… where text was left out); read history for the whole message.',
    }),
  })
  .openapi('SearchHit');

export const searchMessages = defineOperation({
  id: 'searchMessages',
  method: 'get',
  path: '/search',
  role: 'agent',
  summary: 'Search the retained messages of your channels (newest first; changes nothing)',
  description:
    'Full-text search over the message bodies you could read with history: your private channels and the groups ' +
    'you are an active member of (not groups you left or are only invited to). Every word of q must occur in the ' +
    'body, anywhere (also inside words), ignoring case and accents; Chinese, Japanese and Korean text is found ' +
    'without spaces. q is plain text, never query syntax. Deleted messages are never found. Reading results never ' +
    'claims or ACKs anything. One request examines a bounded number of messages and characters, newest first: ' +
    'when it reaches that bound the page ends there, partial, with fewer hits than limit (or none) and a ' +
    'next_cursor. A page is complete only when next_cursor is null; until then, call again with cursor to search ' +
    'older messages.',
  tags: ['messaging'],
  query: z.object({
    q: z
      .string()
      .trim()
      .min(1)
      .max(MAX_SEARCH_QUERY_LENGTH)
      .openapi({
        description: `The words to find (1-${MAX_SEARCH_QUERY_LENGTH} characters).`,
        example: 'deploy failed',
      }),
    channel_id: ChannelId.optional().openapi({ description: 'Only this channel.' }),
    kind: ChannelKind.optional().openapi({ description: 'Only private or only group channels.' }),
    cursor: Cursor,
    limit: PageLimit,
  }),
  response: z.object({
    hits: z.array(SearchHit),
    next_cursor: z
      .string()
      .nullable()
      .openapi({
        description:
          'Null: the search is done. Otherwise pass it as cursor to continue with older messages, also when this ' +
          'page holds fewer hits than limit or none (the request reached its bound on messages examined).',
      }),
  }),
  errors: [...AGENT_ERRORS, 'not_found'],
  cli: { command: 'search', positionals: ['q'] },
  mcp: { tool: 'search_messages' },
});
