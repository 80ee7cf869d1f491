import type { z } from '@hono/zod-openapi';
import type { Agent, Attachment } from '../contract/models.js';

/** The agent a request authenticated as (agent routes only): the wire Agent's identity fields. */
export type AuthedAgent = Pick<z.infer<typeof Agent>, 'agent_id' | 'name' | 'display_name' | 'host_id'>;

/**
 * A file staged in R2 under an opaque key, as the server measured it: the wire Attachment's
 * metadata, with the staged object's key (`tmp/…`) in place of a file ID. Each message gets its
 * own copy under its own key. `filename` is the client's name exactly as sent (may be empty).
 */
export type StagedFile = Omit<z.infer<typeof Attachment>, 'file_id'> & { key: string };
