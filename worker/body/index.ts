/**
 * Request bodies: the one module that reads them, for every route and for `/mcp`.
 *
 * - `reader.ts`: the reused-buffer reader, the bounded read (with an optional gate before reading
 *   on, which `/mcp` uses to admit an upload before a large call is read), the chunk join;
 * - `json.ts`: JSON bodies, strictly decoded under the size cap, and the middleware that parses them
 *   once for the route's validator;
 * - `upload.ts` with `multipart.ts`: a multipart send, streamed to staging under an admission lease;
 * - `stall.ts`: the minimum rate a body must keep;
 * - `drain.ts`: the relay between the runtime's body and the handlers, and the drain that reads
 *   whatever they left before the answer goes out.
 */

export type { BodyRelay } from './drain.js';
export { drainBody, drainUnreadBody } from './drain.js';
export { jsonBody, parseJsonStrict, readJsonBody } from './json.js';
export { BodyAborted, bodyReader, type ReadGate, readBounded } from './reader.js';
export { isMultipart, readUploadRequest, type UploadRequest } from './upload.js';
