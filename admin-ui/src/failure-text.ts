import { msg, str } from '@lit/localize';
import { ApiFailure } from './api.js';
import { apiFailureText } from './server-text.js';

/**
 * A refusal in the administrator's language, phrased from the API's code, reason, field and
 * limit by server-text.ts; the server's English message is never shown.
 */
export function failureText(error: unknown): string {
  if (error instanceof ApiFailure) return apiFailureText(error);
  return msg(str`Something went wrong in the console: ${error instanceof Error ? error.name : String(error)}`);
}
