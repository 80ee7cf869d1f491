/**
 * What a download answers, without `node:` imports: the CLI and the stdio MCP server write the
 * bytes to a local path (client/files.ts), the worker's remote MCP server returns them inline
 * (mcp/remote.ts); both describe them with these.
 */
import { z } from '@hono/zod-openapi';

/**
 * What a download prints (and the MCP download tool returns) next to the operation's path
 * parameters (e.g. `file_id`): where the bytes went and what they were.
 */
export const DownloadResult = z.object({
  path: z.string().describe('Absolute path the bytes were written to.'),
  size: z.number().int().nonnegative(),
  media_type: z.string(),
  filename: z.string().nullable().describe("The sender's file name, as it declared it."),
  sha256: z.string().describe('SHA-256 of the bytes written, computed locally.'),
});
export type DownloadResult = z.infer<typeof DownloadResult>;

/** Read a download's file name with the one Content-Disposition module the worker writes it with. */
export { filenameFromDisposition } from '../core/lib/content-disposition.js';
