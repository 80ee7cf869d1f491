/**
 * How the CLI prints what a command did: the JSON answer on stdout, diagnostics on stderr, and
 * the exit code of client/errors.ts. Free of commander and the registry, so the quick path of a
 * cold `switchboard inbox` (cli/quick-inbox.ts) prints exactly what the full program prints.
 */
import type { Env } from '../../client/config.js';
import { describeApiError, EXIT, LocalError } from '../../client/errors.js';
import type { Outcome } from '../../client/send.js';
import type { Role } from '../../core/contract/registry.js';

export interface Output {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

export function printJson(stream: NodeJS.WritableStream, value: unknown): void {
  stream.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Prints one request's outcome and returns its exit code. */
export function printOutcome(role: Role, outcome: Outcome, output: Output): number {
  if (!outcome.ok) {
    output.stderr.write(`${describeApiError(role, outcome.status, outcome.error)}\n`);
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

/** A failure thrown by a command: one line on stderr (no stack for a user error) and its exit code. */
export function reportFailure(error: unknown, io: { env: Env; stderr: NodeJS.WritableStream }): number {
  if (error instanceof LocalError) {
    io.stderr.write(`switchboard: ${error.message}\n`);
    return error.exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  io.stderr.write(`switchboard: internal error: ${message}\n`);
  if (io.env.SWITCHBOARD_DEBUG && error instanceof Error) io.stderr.write(`${error.stack}\n`);
  else io.stderr.write('switchboard: set SWITCHBOARD_DEBUG=1 for details\n');
  return EXIT.internal;
}
