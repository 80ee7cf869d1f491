/**
 * The answers the front gives itself, before a request reaches the worker: the structured error
 * of api-v1.md (`{request_id, error:{code, message, settings_revision}}` with a matching
 * `X-Request-Id`), also for requests Node's HTTP parser refuses (smuggling attempts, malformed
 * framing, oversized heads), which have no request object and are answered on the raw socket.
 */
import { randomBytes } from 'node:crypto';
import { STATUS_CODES } from 'node:http';

export interface FrontError {
  status: number;
  code: string;
  message: string;
}

export function newRequestId(): string {
  return `req_${randomBytes(12).toString('base64url')}`;
}

/** The JSON body of a front error. The front cannot read the settings: revision 0 means "not read". */
export function errorBody(requestId: string, error: FrontError): string {
  return JSON.stringify({
    request_id: requestId,
    error: { code: error.code, message: error.message, settings_revision: 0 },
  });
}

/** A complete HTTP/1.1 answer for a socket whose request could not be parsed; the connection ends. */
export function rawErrorResponse(error: FrontError): string {
  const requestId = newRequestId();
  const body = errorBody(requestId, error);
  return (
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Error'}\r\n` +
    'Content-Type: application/json\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    `X-Request-Id: ${requestId}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  );
}

/**
 * What to answer when Node's parser refuses a request (`clientError`). llhttp is strict: a
 * Content-Length together with Transfer-Encoding, duplicate or malformed Content-Length, obs-fold,
 * bad chunk sizes, NUL bytes, unknown methods and versions all end up here, and the connection is
 * closed after the answer, so nothing after the refused bytes is ever read as a second request.
 */
export function clientErrorAnswer(error: NodeJS.ErrnoException): FrontError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 400,
        code: 'validation_failed',
        message: 'The request line and headers are larger than the server accepts.',
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 400, code: 'validation_failed', message: 'The request was not received in time.' };
    default:
      return {
        status: 400,
        code: 'validation_failed',
        message: `Malformed HTTP request${error.code?.startsWith('HPE_') ? ` (${error.code})` : ''}.`,
      };
  }
}
