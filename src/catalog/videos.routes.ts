import { assetRoutes } from './asset.routes.js';
import { VideoDetail, VideosDetailResults } from './catalog.schemas.js';
import { VIDEO_FIELDS } from './field-sets.js';

/** GET /videos?ids=… (videos, videos_not_found) and GET /videos/{id} (one video). */
export const videosRoutes = assetRoutes({
  assetType: 'video',
  plural: 'videos',
  fields: VIDEO_FIELDS,
  item: VideoDetail,
  list: VideosDetailResults,
  single: 'bare',
  idsRequiredCode: 'VideoIdMustBeSpecified',
});
