/**
 * Media types a browser may render inline as a preview (the administrators' attachment preview):
 * raster images only, which cannot run script. SVG can, and HTML of course, so neither is here;
 * everything else is always a download. Shared by the worker and the console, so no zod here.
 */
export const PREVIEWABLE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;

/** Whether a stored media type may be previewed: its essence, parameters dropped, case ignored. */
export function isPreviewable(mediaType: string): boolean {
  const essence = (mediaType.split(';')[0] ?? '').trim().toLowerCase();
  return (PREVIEWABLE_MEDIA_TYPES as readonly string[]).includes(essence);
}
