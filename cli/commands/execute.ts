/**
 * Prints an operation's outcome the CLI way: the JSON answer on stdout, diagnostics on stderr, and
 * the exit code of client/errors.ts.
 */
import type { Env } from '../../client/config.js';
import { EXIT } from '../../client/errors.js';
import type { ApiErrorBody } from '../../client/http.js';
import { type InvokeRequest, invokeOperation } from '../../client/invoke.js';
import type { GlobalOptions } from './operations.js';

export interface Output {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

export function printJson(stream: NodeJS.WritableStream, value: unknown): void {
  stream.write(`${JSON.stringify(value, null, 2)}\n`);
}

function hint(role: string, body: ApiErrorBody): string {
  switch (body.error.code) {
    case 'unauthenticated':
      return role === 'agent'
        ? ' (check the key: `switchboard config show`)'
        : ' (sign in again: `switchboard admin login`)';
    case 'source_ip_denied':
      // The server names the address it saw (error.target): often a NAT, a proxy or IPv6.
      return typeof body.error.target === 'string'
        ? ` (the server saw ${body.error.target}; add it to the agent's host, or connect from a host address)`
        : " (this machine's address is not one of the agent's host addresses)";
    default:
      return '';
  }
}

export function describeApiError(role: string, status: number, body: ApiErrorBody): string {
  const { code, message, field } = body.error;
  const where = typeof field === 'string' ? ` [${field}]` : '';
  return `switchboard: ${code} (HTTP ${status})${where}: ${message}${hint(role, body)}`;
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
