import { msg, str } from '@lit/localize';
import { ApiFailure } from './api.js';

/**
 * A refusal in the administrator's language. The server's own message (English, precise) is kept
 * as the detail, because it names the exact value or limit involved.
 */
export function failureText(error: unknown): string {
  if (!(error instanceof ApiFailure)) {
    return msg(str`Something went wrong: ${error instanceof Error ? error.message : String(error)}`);
  }
  const detail = error.detail;
  switch (error.code) {
    case 'network_error':
      return msg('The server could not be reached. Check the connection and try again.');
    case 'unauthenticated':
      return msg('Your session has ended. Please sign in again.');
    case 'forbidden':
      return msg(str`This action is not allowed: ${detail}`);
    case 'not_found':
      return msg(str`Not found (it may have been deleted meanwhile): ${detail}`);
    case 'conflict':
      return msg(str`Conflict: ${detail}`);
    case 'validation_failed':
      return msg(str`Please check the input: ${detail}`);
    case 'too_many_attempts':
      return msg(str`Too many attempts. Try again in ${Math.ceil((error.retryAfterMs ?? 1000) / 1000)} s.`);
    default:
      return msg(str`The server refused the request (${error.code}): ${detail}`);
  }
}
