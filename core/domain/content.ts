/**
 * The content of a message and the checks it passes once, before any recipient is touched. The
 * text is never trimmed, normalized or truncated: what was sent is what is stored and compared.
 */
import type { z } from '@hono/zod-openapi';
import { ApiError } from '../contract/errors.js';
import type { Attachment } from '../contract/models.js';

/** An attachment as the server knows it after staging (the wire model): the SHA-256 is computed here, never trusted. */
export type AttachmentRecord = z.infer<typeof Attachment>;

export interface MessageContent {
  body: string;
  attachment: AttachmentRecord | null;
}

/** Length in Unicode code points (a surrogate pair is one; a composed emoji may be several). */
export function codePointLength(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

/**
 * The request-wide content checks, in the order api-v1.md lists them. Lone surrogates and invalid
 * UTF-8 are already refused by the strict JSON reader; this guards direct callers as well.
 */
export function validateContent(body: string, hasFile: boolean, maxBodyCodePoints: number): void {
  if (!body.isWellFormed()) {
    throw new ApiError('invalid_unicode', 'The body contains a lone UTF-16 surrogate.', { field: 'body' });
  }
  if (body.length === 0 && !hasFile) {
    throw new ApiError('empty_message', 'A message needs a body or a file.', { field: 'body' });
  }
  const length = codePointLength(body);
  if (length > maxBodyCodePoints) {
    throw new ApiError(
      'text_too_long',
      `The body has ${length} Unicode code points; the limit is ${maxBodyCodePoints}. It was not truncated or split.`,
      { field: 'body', limit: maxBodyCodePoints },
    );
  }
}

/** Repeated targets collapse to their first occurrence, so each target gets exactly one result. */
export function collapseTargets(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}

/**
 * The deduplication comparison: exact body, attachment presence, filename, media type, byte length
 * and server-computed SHA-256. IDs and timestamps are not content and are never compared.
 */
export function sameContent(a: MessageContent, b: MessageContent): boolean {
  if (a.body !== b.body) return false;
  if (a.attachment === null || b.attachment === null) return a.attachment === b.attachment;
  return (
    a.attachment.filename === b.attachment.filename &&
    a.attachment.media_type === b.attachment.media_type &&
    a.attachment.size === b.attachment.size &&
    a.attachment.sha256 === b.attachment.sha256
  );
}
