import { assetRoutes } from './asset.routes.js';
import { ImageDetail, ImagesDetailResults } from './catalog.schemas.js';
import { IMAGE_FIELDS } from './field-sets.js';

/** GET /images?ids=… and GET /images/{id}: both answer the wrapper (images, images_not_found). */
export const imagesRoutes = assetRoutes({
  assetType: 'image',
  plural: 'images',
  fields: IMAGE_FIELDS,
  item: ImageDetail,
  list: ImagesDetailResults,
  single: 'wrapped',
  idsRequiredCode: 'ImageIdMustBeSpecified',
});
