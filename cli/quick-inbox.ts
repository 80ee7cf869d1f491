/**
 * A cold `switchboard inbox` (what a polling agent runs most) without commander, zod or the
 * registry: the build records the operation's method, path and role (scripts/build-node.mjs), and
 * the request and the printing are the full program's own (client/send.ts, cli/lib/outcome.ts),
 * so the answer, the errors and the exit codes are the same.
 */
import type { Env } from '../client/config.js';
import type { HttpOperation } from '../client/http.js';
import { sendOperation } from '../client/send.js';
import { type Output, printOutcome, reportFailure } from './lib/outcome.js';

/** The build puts the registry's getInbox here (JSON text); running from source, it is absent. */
declare const __SWITCHBOARD_QUICK_INBOX__: string | undefined;

export function builtInboxOperation(): HttpOperation | undefined {
  return typeof __SWITCHBOARD_QUICK_INBOX__ === 'string'
    ? (JSON.parse(__SWITCHBOARD_QUICK_INBOX__) as HttpOperation)
    : undefined;
}

/** Returns the exit code. */
export async function runQuickInbox(
  op: HttpOperation,
  options: { profile?: string; env: Env } & Output,
): Promise<number> {
  try {
    const outcome = await sendOperation(
      { op, input: { params: {}, query: {}, body: {} } },
      { ...(options.profile !== undefined && { profile: options.profile }), env: options.env },
    );
    return printOutcome(op.role, outcome, options);
  } catch (error) {
    return reportFailure(error, options);
  }
}
