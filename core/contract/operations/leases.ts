/**
 * Lease controls beside the ACK (api-v1.md, "Lease controls"): keep a claim for longer work, or
 * hand it back early. SQS's ChangeVisibility and JetStream's AckProgress / Nak are the models.
 */
import { z } from '@hono/zod-openapi';
import { ItemError, Timestamp } from '../models.js';
import { AGENT_ERRORS, defineOperation } from '../registry.js';
import { AckItem } from './messaging.js';

const tags = ['messaging'];

const REFUSALS =
  'claim_expired (the claim ended: expired or released), claim_replaced (claimed again since), ' +
  'invalid_claim_token, already_read (ACKed already), message_purged (deleted by retention), not_found.';

const LeaseItems = z
  .array(AckItem)
  .min(1)
  .max(1000)
  .openapi({ description: 'One {message_id, claim_token} per claimed message; at most max_claim_batch.' });

export const ExtendResult = z
  .object({
    message_id: z.string(),
    status: z.enum(['extended', 'rejected']),
    claim_expires_at: Timestamp.optional().openapi({ description: 'extended only: the new expiry.' }),
    error: ItemError.optional().openapi({ description: `rejected only: ${REFUSALS}` }),
  })
  .openapi('ExtendResult');

export const extendClaims = defineOperation({
  id: 'extendClaims',
  method: 'post',
  path: '/inbox/extend',
  role: 'agent',
  summary: 'Extend claims: keep claimed messages reserved for longer, with the same tokens',
  description:
    'For work that needs longer than the claim before you can ACK. Each item needs the current token of an ' +
    'unexpired claim; its new expiry is now + seconds (1 to claim_seconds, default claim_seconds), so extend ' +
    'again before it runs out. The token stays the same. A refused item changes nothing. ' +
    `Refusals (per item): ${REFUSALS} At most max_claim_batch items.`,
  tags,
  body: z
    .object({
      items: LeaseItems,
      seconds: z.number().int().min(1).max(86_400).optional().openapi({
        description:
          'The new lease length from now: 1 to claim_seconds (validation_failed above it). Default claim_seconds.',
      }),
    })
    .openapi('ExtendRequest'),
  response: z.object({ results: z.array(ExtendResult) }),
  errors: AGENT_ERRORS,
  cli: { command: 'extend', positionals: ['items'] },
  mcp: {
    tool: 'extend_claims',
    description:
      'Use it when you need longer than the claim before you can ACK (a message is ACKed once you have read it). ' +
      'Each item needs the current claim_token of an unexpired claim (from claim_messages); the new expiry is now + ' +
      'seconds (1 to claim_seconds, default claim_seconds), the token stays the same. A refused item changes ' +
      `nothing. Refusals: ${REFUSALS}`,
  },
});

export const ReleaseResult = z
  .object({
    message_id: z.string(),
    status: z.enum(['released', 'rejected']),
    error: ItemError.optional().openapi({ description: `rejected only: ${REFUSALS}` }),
  })
  .openapi('ReleaseResult');

export const releaseClaims = defineOperation({
  id: 'releaseClaims',
  method: 'post',
  path: '/inbox/release',
  role: 'agent',
  summary: 'Release claims: hand claimed messages back unread, claimable again at once',
  description:
    'Ends each claim now without reading the message: it is claimable again at once (or parked, when it has been ' +
    'claimed max_deliveries times), and its token no longer ACKs, extends or releases. A refused item changes ' +
    `nothing. Refusals (per item): ${REFUSALS} At most max_claim_batch items.`,
  tags,
  body: z.object({ items: LeaseItems }).openapi('ReleaseRequest'),
  response: z.object({ results: z.array(ReleaseResult) }),
  errors: AGENT_ERRORS,
  cli: { command: 'release', positionals: ['items'] },
  mcp: {
    tool: 'release_claims',
    description:
      'For messages you claimed but will not read now: each is claimable again at once (parked instead when it has ' +
      'been claimed max_deliveries times) and its claim_token stops working. A refused item changes nothing. ' +
      `Refusals: ${REFUSALS}`,
    idempotent: true,
  },
});
