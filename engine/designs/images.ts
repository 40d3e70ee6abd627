// Design images and icons. An upload is checked (PNG, JPEG or GIF whose bytes match the label,
// wide enough, not a decompression bomb, decodable to the end), rendered into fixed sizes, and
// stored as a new media id; renditions are served by GET /media/design/<media_id>/<rendition>.
// Images: the design's own and, with multiple_images on, one per denomination, cropped to fill
// 1080x608 (near 16:9) and a 540x304 thumbnail. Icons: 512x512 and 128x128, each in both styles
// (zoom crops to fill, fit letterboxes on transparency); the upload's X-Image-Style picks the
// design's icon_style, and the icon's media_id becomes the design's icon.media_id.
// Here the context is built and the operations wired: media-render.ts checks and renders uploads,
// design-image.ts and design-icon.ts store them, media-views.ts serves them and shows them in JSON.
import type { Core } from '../core.ts';
import { imagesContext } from './core-context.ts';
import { iconPreviews, iconUrl, setIcon } from './design-icon.ts';
import { setImage } from './design-image.ts';
import { rendition } from './media-views.ts';
import type { IconStyle, DesignImagesService } from './image-types.ts';
export type { IconStyle, MediaResult, ImageUpload, DesignImagesService } from './image-types.ts';

export { designMediaFields, mediaUrlOf, renditionNames } from './media-views.ts';

export const iconStyles: readonly IconStyle[] = ['fit', 'zoom'];

export function createDesignImagesService(core: Core): DesignImagesService {
  const ctx = imagesContext(core);
  return {
    setImage: (profileId, designId, denomination, upload) => setImage(ctx, profileId, designId, denomination, upload),
    setIcon: (profileId, designId, style, upload) => setIcon(ctx, profileId, designId, style, upload),
    iconUrl: (profileId, designId) => iconUrl(ctx, profileId, designId),
    iconPreviews: (profileId, designId) => iconPreviews(ctx, profileId, designId),
    rendition: (mediaId, name) => rendition(ctx, mediaId, name),
  };
}
