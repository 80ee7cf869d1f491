/**
 * The start-up check of `switchboard mcp`: one GET /me with the configured key and address, so
 * that a wrong key, an address the server does not accept or a server that is not there shows in
 * the client's log before the first tool call fails with the same error.
 */
import { type Env, resolveProfile } from '../client/config.js';
import { describeApiError, LocalError } from '../client/errors.js';
import { callOperation } from '../client/http.js';
import { operations } from '../core/contract/index.js';

const CHECK_TIMEOUT_MS = 10_000;

/** One line (without the `switchboard mcp:` prefix), or null when there is nothing to check. */
export async function checkConnection(options: {
  profile?: string;
  env: Env;
  signal?: AbortSignal;
}): Promise<string | null> {
  let url: string | undefined;
  try {
    const resolved = resolveProfile(options.profile, options.env);
    url = resolved.url;
    if (!url || !resolved.apiKey) return null;
    const where = `profile "${resolved.profileName}" at ${url}`;
    const result = await callOperation(
      {
        op: operations.getMe,
        input: { params: {}, query: {}, body: {} },
        timeoutMs: CHECK_TIMEOUT_MS,
        ...(options.signal && { signal: options.signal }),
      },
      { url, apiKey: resolved.apiKey },
    );
    if (result.kind === 'error') {
      return `start-up check failed for ${where}: ${describeApiError('agent', result.status, result.body).replace(/^switchboard: /, '')}`;
    }
    const agent = (result.data ?? {}) as { agent_id?: string; name?: string };
    return `connected to ${url} as ${agent.name ?? '?'} (${agent.agent_id ?? '?'}), profile "${resolved.profileName}"`;
  } catch (error) {
    if (options.signal?.aborted) return null;
    const message = error instanceof LocalError || error instanceof Error ? error.message : String(error);
    return `start-up check failed${url ? ` for ${url}` : ''}: ${message}`;
  }
}
