import type { ClientErrorBody } from '../core/contract/models.js';

/**
 * The CLI's exit codes and the local failures behind them. A failure the user can fix (a flag, a
 * missing key, an unreachable server, a missing file) is one line on stderr, never a stack trace.
 */

/** Documented in docs/clients.md; scripts and agents branch on these. */
export const EXIT = {
  ok: 0,
  /** A bug: something unexpected failed. */
  internal: 1,
  /** Usage or configuration error: nothing was sent (bad flag or value, no URL/key, unreadable file). */
  usage: 2,
  /** The server answered with an error status (4xx/5xx); its code and message are on stderr. */
  request: 3,
  /** The request was carried out but at least one per-target or per-item result is `rejected`. */
  partial: 4,
  /** No answer: the server could not be reached or did not answer in time. */
  unreachable: 5,
} as const;

/**
 * Codes for failures that happen before or instead of an HTTP answer (the MCP server reports
 * them in `structuredContent.error.code` like the API's own codes).
 */
export type LocalErrorCode =
  | 'validation_failed'
  | 'not_configured'
  | 'local_file_error'
  | 'unreachable'
  /** The MCP server refused a file_path/out_path outside the directories its user allowed. */
  | 'path_not_allowed';

export class LocalError extends Error {
  constructor(
    readonly code: LocalErrorCode,
    message: string,
    /** The input field at fault, so the CLI can name its flag or argument instead. */
    readonly field?: string,
    /** The message without the field name. */
    readonly detail?: string,
  ) {
    super(message);
    this.name = 'LocalError';
  }

  get exitCode(): number {
    return this.code === 'unreachable' ? EXIT.unreachable : EXIT.usage;
  }
}

export const usageError = (message: string, field?: string, detail?: string) =>
  new LocalError('validation_failed', message, field, detail);
export const configError = (message: string) => new LocalError('not_configured', message);
export const fileError = (message: string) => new LocalError('local_file_error', message);

/** A readable reason for a failed file operation, without the stack. */
export function describeFsError(error: unknown, path: string): string {
  const code = (error as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ENOENT':
      return `${path}: no such file or directory`;
    case 'EACCES':
    case 'EPERM':
      return `${path}: permission denied`;
    case 'EISDIR':
      return `${path}: is a directory`;
    case 'ENOTDIR':
      return `${path}: a parent is not a directory`;
    case 'EEXIST':
      return `${path}: already exists`;
    default:
      return `${path}: ${error instanceof Error ? error.message : String(error)}`;
  }
}

function hint(role: string, body: ClientErrorBody): string {
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

export function describeApiError(role: string, status: number, body: ClientErrorBody): string {
  const { code, message, field } = body.error;
  const where = typeof field === 'string' ? ` [${field}]` : '';
  return `switchboard: ${code} (HTTP ${status})${where}: ${message}${hint(role, body)}`;
}
