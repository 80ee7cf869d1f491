/**
 * Where the console fetches an attachment (the registry's downloadAdminChannelFile route, through
 * `virtual:console-routes`): the download, and the inline preview the server grants to raster
 * images only. Plain same-origin URLs, so the session cookie goes along and the console's CSP
 * (`img-src 'self'`) admits the preview.
 */
import routes from 'virtual:console-routes';
import { API_BASE, buildPath, buildQuery } from '../api.js';

export function attachmentUrl(channelId: string, fileId: string, disposition?: 'inline'): string {
  const [, template] = routes.downloadAdminChannelFile as readonly [string, string];
  return API_BASE + buildPath(template, { channel_id: channelId, file_id: fileId }) + buildQuery({ disposition });
}
