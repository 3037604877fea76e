import { assetRoutes } from './asset.routes.js';
import { ImageDetail, ImagesDetailResults } from './catalog.schemas.js';
import { IMAGE_FIELDS } from './field-sets.js';

/** GET /images?ids=… (images, images_not_found) and GET /images/{id} (one image_detail). */
export const imagesRoutes = assetRoutes({
  assetType: 'image',
  plural: 'images',
  fields: IMAGE_FIELDS,
  item: ImageDetail,
  list: ImagesDetailResults,
  idsRequiredCode: 'ImageIdMustBeSpecified',
});
