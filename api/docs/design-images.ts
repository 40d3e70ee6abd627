// The operations of api/routes/design-images.ts: description, example request and domain errors (api/http/operation-docs.ts).
import { designErrors } from '../routes/designs.ts';
import { pick, type OperationDocs } from '../http/operation-docs.ts';

export const designImageDocs: OperationDocs = {
  putDesignImage: {
    description:
      "Sets a design's image from the body (PNG, JPEG or GIF, at least 540 px wide), cropped to 1080x608 with a 540x304 thumbnail. Used when multiple_images is off, and for denominations without their own.",
    example: { designId: '1234567890' },
    errors: [...pick(designErrors, 'design_not_found', 'design_forbidden')],
  },
  putDesignImageByDenomination: {
    description:
      "Sets the image of one denomination (a decimal amount in the design's currency); only when multiple_images is on.",
    example: { designId: '1234567890', denomination: '10.00' },
    errors: [...pick(designErrors, 'design_not_found', 'design_forbidden')],
  },
  putDesignIcon: {
    description:
      "Sets the design icon (PNG, JPEG or GIF), fitted into 512x512 with a 128x128 thumbnail, in both styles; X-Image-Style (fit or zoom, default zoom) picks the one shown.",
    example: { designId: '1234567890' },
    errors: [...pick(designErrors, 'design_not_found', 'design_forbidden')],
  },
  getDesignIcon: {
    description:
      "The URL of the design's icon in its chosen style, or null when it has none.",
    example: { designId: '1234567890' },
    errors: [...pick(designErrors, 'design_not_found', 'design_forbidden')],
  },
  getDesignIconPreviews: {
    description:
      "The icon in both styles, thumbnail and full: {zoom, fit} URLs each, to choose a style; an empty object when the design has no icon.",
    example: { designId: '1234567890' },
    errors: [...pick(designErrors, 'design_not_found', 'design_forbidden')],
  },
  getMediaDesignByRendition: {
    description:
      "The bytes of a design image or icon rendition (full, thumbnail, full_zoom, full_fit, thumbnail_zoom, thumbnail_fit). A media id never changes its bytes, so the answer may be cached for good. No credentials.",
    example: { mediaId: 'm1234567890', rendition: 'thumbnail' },
    errors: [],
  },
};
