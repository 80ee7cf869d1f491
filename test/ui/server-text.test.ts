import { describe, expect, it } from 'vitest';
import { ApiFailure } from '../../admin-ui/src/api.js';
import { apiFailureText, errorCodeText } from '../../admin-ui/src/server-text.js';

describe('server text (English source strings)', () => {
  it('announces the wait of a live too_many_attempts refusal, rounded up to whole seconds', () => {
    const failure = new ApiFailure(429, 'too_many_attempts', 'Too many failed sign-ins', undefined, 2_500);
    expect(apiFailureText(failure)).toBe('Too many attempts. Try again in 3 s.');
  });

  it('promises no wait for a refusal recorded in the audit log (it has no retry time)', () => {
    expect(errorCodeText('too_many_attempts')).toBe('Too many failed attempts.');
    expect(errorCodeText('too_many_attempts')).not.toMatch(/\d/);
  });

  it('never shows a raw code, even an unknown one', () => {
    expect(errorCodeText('no_such_code')).toBe('The server failed to handle the request.');
  });
});
