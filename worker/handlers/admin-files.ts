/**
 * GET /admin/channels/{channel_id}/files/{file_id}: an administrator downloads (or, for raster
 * images, previews) an attachment of any channel (REQ-54), with the agent download's headers
 * (download-response.ts). Reading changes nothing in the channel.
 */
import { ApiError } from '../../core/contract/errors.js';
import type * as ops from '../../core/contract/operations/admin-console.js';
import { channelOfFileId } from '../../core/domain/file-id.js';
import { isPreviewable, PREVIEWABLE_MEDIA_TYPES } from '../../core/lib/media-types.js';
import { channelObject, retention } from '../../core/stubs.js';
import { fileResponse } from './download-response.js';
import type { Handler } from './types.js';

export const downloadAdminChannelFileHandler: Handler<typeof ops.downloadAdminChannelFile> = async ({ env, input }) => {
  const { channel_id: channelId, file_id: fileId } = input.params;
  const notFound = () => new ApiError('not_found', 'No such file in this channel.', { target: fileId });
  // A file ID names its channel; one of another channel is not here, and an ID the catalog does
  // not know is never opened (that would create a channel object).
  if (channelOfFileId(fileId) !== channelId || !(await retention(env).catalogHas(channelId))) throw notFound();
  const stored = await channelObject(env, channelId).adminFile(fileId);
  if (!stored) throw notFound();
  const inline = input.query.disposition === 'inline';
  // Only raster images are ever rendered by the browser: an SVG or HTML file could run script.
  if (inline && !isPreviewable(stored.media_type)) {
    throw new ApiError(
      'unsupported_media_type',
      `Only ${PREVIEWABLE_MEDIA_TYPES.join(', ')} files can be previewed; download this one instead.`,
      { field: 'disposition' },
    );
  }
  const object = await env.FILES.get(stored.key);
  // Deleted between the lookup and the read (retention): as gone as if the lookup had seen it.
  if (!object) throw notFound();
  return fileResponse(stored, object, inline ? 'inline' : 'attachment');
};
