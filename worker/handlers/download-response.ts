/**
 * The one way a stored attachment leaves the worker, for agents (GET /files/{id}/content) and
 * administrators (GET /admin/channels/{id}/files/{id}) alike: the declared media type, never
 * sniffed, a sandboxing CSP so a document opened directly runs nothing, no caching, and an RFC 6266
 * Content-Disposition. Inline is for the administrators' image previews only; the caller decides
 * whether a type may be previewed (PREVIEWABLE_MEDIA_TYPES), the headers stay the same.
 */
import { contentDisposition } from '../../core/lib/content-disposition.js';

export interface StoredFile {
  filename: string;
  media_type: string;
}

export function fileResponse(
  stored: StoredFile,
  object: R2ObjectBody,
  disposition: 'attachment' | 'inline' = 'attachment',
): Response {
  return new Response(object.body, {
    status: 200,
    headers: {
      'content-type': stored.media_type,
      'content-length': String(object.size),
      'content-disposition': contentDisposition(stored.filename, disposition),
      'x-content-type-options': 'nosniff',
      'cache-control': 'private, no-store',
      'content-security-policy': "default-src 'none'; sandbox",
    },
  });
}
