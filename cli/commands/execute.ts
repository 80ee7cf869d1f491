/**
 * Prints an operation's outcome the CLI way: the JSON answer on stdout, diagnostics on stderr, and
 * the exit code of client/errors.ts.
 */
import type { Env } from '../../client/config.js';
import { describeApiError } from '../../client/errors.js';
import { type InvokeRequest, invokeOperation } from '../../client/invoke.js';
import { type Output, printJson, printOutcome } from '../lib/outcome.js';
import type { GlobalOptions } from './operations.js';

// Kept importable from here (the MCP server's start-up check uses it too).
export { describeApiError, type Output, printJson };

/** Runs one request and returns the exit code; local failures are thrown (LocalError). */
export async function executeAndPrint(
  request: InvokeRequest,
  globals: GlobalOptions,
  env: Env,
  output: Output,
): Promise<number> {
  const outcome = await invokeOperation(request, { ...(globals.profile && { profile: globals.profile }), env });
  return printOutcome(request.op.role, outcome, output);
}
