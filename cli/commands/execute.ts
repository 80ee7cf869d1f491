/**
 * Prints an operation's outcome the CLI way: the JSON answer on stdout, diagnostics on stderr, and
 * the exit code of client/errors.ts.
 */
import type { Env } from '../../client/config.js';
import { describeApiError, EXIT } from '../../client/errors.js';
import { type InvokeRequest, invokeOperation } from '../../client/invoke.js';
import type { GlobalOptions } from './operations.js';

// Kept importable from here (the MCP server's start-up check uses it too).
export { describeApiError };

export interface Output {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

export function printJson(stream: NodeJS.WritableStream, value: unknown): void {
  stream.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Runs one request and returns the exit code; local failures are thrown (LocalError). */
export async function executeAndPrint(
  request: InvokeRequest,
  globals: GlobalOptions,
  env: Env,
  output: Output,
): Promise<number> {
  const outcome = await invokeOperation(request, { ...(globals.profile && { profile: globals.profile }), env });
  if (!outcome.ok) {
    output.stderr.write(`${describeApiError(request.op.role, outcome.status, outcome.error)}\n`);
    output.stderr.write(`${JSON.stringify(outcome.error)}\n`);
    return EXIT.request;
  }
  printJson(output.stdout, outcome.data);
  if (outcome.rejected > 0) {
    output.stderr.write(
      `switchboard: ${outcome.rejected} of ${outcome.items} results rejected (see "error" in each)\n`,
    );
    return EXIT.partial;
  }
  return EXIT.ok;
}
