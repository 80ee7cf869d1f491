/** Unit tests (plain Node, no server) for the answers the front gives itself. */
import { describe, expect, it } from 'vitest';
import { clientErrorAnswer, rawErrorResponse } from '../../server/front-errors.js';
import { parseResponse } from './hostile/raw-http.js';

const parserError = (code: string) => Object.assign(new Error('Parse Error'), { code });

describe('clientErrorAnswer', () => {
  it('answers every parser refusal with a 400 validation_failed naming the parser error', () => {
    for (const code of ['HPE_UNEXPECTED_CONTENT_LENGTH', 'HPE_INVALID_CHUNK_SIZE', 'HPE_INVALID_HEADER_TOKEN']) {
      expect(clientErrorAnswer(parserError(code))).toEqual({
        status: 400,
        code: 'validation_failed',
        message: `Malformed HTTP request (${code}).`,
      });
    }
  });

  it('says when the head was too large or too slow, and never echoes a non-parser message', () => {
    expect(clientErrorAnswer(parserError('HPE_HEADER_OVERFLOW')).message).toMatch(/larger than the server accepts/);
    expect(clientErrorAnswer(parserError('ERR_HTTP_REQUEST_TIMEOUT')).message).toMatch(/not received in time/);
    expect(clientErrorAnswer(parserError('ESOMETHING')).message).toBe('Malformed HTTP request.');
  });
});

describe('rawErrorResponse', () => {
  it('is a complete HTTP/1.1 answer with the structured error and a matching X-Request-Id', () => {
    const text = rawErrorResponse({ status: 405, code: 'method_not_allowed', message: 'CONNECT is not supported.' });
    expect(text).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n/);
    expect(text).toMatch(/\r\nConnection: close\r\n/);
    const answer = parseResponse(Buffer.from(text), false);
    expect(answer?.status).toBe(405);
    expect(answer?.headers['content-type']).toBe('application/json');
    expect(answer?.body).toEqual({
      request_id: answer?.headers['x-request-id'],
      error: { code: 'method_not_allowed', message: 'CONNECT is not supported.', settings_revision: 0 },
    });
    expect(answer?.body.request_id).toMatch(/^req_[A-Za-z0-9_-]{16}$/);
  });
});
