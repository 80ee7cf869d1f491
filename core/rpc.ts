/**
 * Results of Durable Object RPC methods that are not wire models themselves, derived from the
 * wire models (core/contract) so that a field is spelled once. Type-only: the objects return
 * them, the worker's handlers shape them into responses.
 */
import type { z } from '@hono/zod-openapi';
import type { SearchHit } from './contract/operations/search.js';

/** One search hit inside one channel; `created_at` in ms, by which the handler merges channels. */
export type ChannelSearchHit = Omit<z.infer<typeof SearchHit>, 'kind' | 'created_at'> & { created_at: number };
