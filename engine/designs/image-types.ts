// The types of images.ts (re-exported there), in a leaf module: the files images.ts imports use them
// without importing images.ts back (no import cycle).
import type { DesignFailure } from './errors.ts';

type Json = Record<string, unknown>;

export type IconStyle = 'fit' | 'zoom';

export type MediaResult<T> = ({ ok: true } & T) | DesignFailure;

export interface ImageUpload {
  bytes: Buffer;
  /** The request's Content-Type (without parameters). */
  contentType: string;
}

export interface DesignImagesService {
  setImage(profileId: string, designId: string, denomination: string | null, upload: ImageUpload): Promise<MediaResult<{ image: Json }>>;
  setIcon(profileId: string, designId: string, style: IconStyle, upload: ImageUpload): Promise<MediaResult<{ icon: Json }>>;
  iconUrl(profileId: string, designId: string): Promise<MediaResult<{ url: string | null }>>;
  iconPreviews(profileId: string, designId: string): Promise<MediaResult<{ previews: Json }>>;
  rendition(mediaId: string, rendition: string): Promise<{ contentType: string; bytes: Buffer } | null>;
}
