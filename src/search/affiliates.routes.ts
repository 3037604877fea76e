import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { DisplaySizeView } from '../catalog/catalog.service.js';
import type { FieldSelection } from '../platform/http/fields.js';
import { preferredLanguage } from '../platform/http/language.js';
import type { TypeBoxRequestTypeProvider } from '../platform/http/parameters.js';
import { ErrorBody, Nullable } from '../platform/http/schema-types.js';
import type { AssetSearch } from './asset-search.js';
import { normalizeSearchParameters, type AffiliateImageSearch, type AffiliateVideoSearch } from './params/normalize.js';
import { SEARCH_ENDPOINT_DEFINITIONS, searchRouteSchema } from './params/search-parameters.js';

/*
 * GET /affiliates/search/images and /affiliates/search/videos: a fixed page of the 30 best
 * creative matches (the contract gives these searches no paging), each with its preview URLs
 * and the page an affiliate links to.
 *
 * Previews are the signed display URIs of the catalogue: small = thumb, medium = comp (the
 * preview), large = high_res_comp, with each rendition's real pixel size. A video's renditions
 * are stills of its poster frame; its motion preview is the watermarked preview clip media
 * makes of a video file (one size, 640 px on its long edge, so small_motion and large_motion
 * are the same clip), null for a video stored as a still alone. An asset without a stored original has no renditions: its URLs are null and their
 * sizes 0. destination_url is the uri of the asset's first referral destination, null without one.
 */

const S = Nullable(Type.String());
const I = Type.Integer();

const AffiliateImage = Type.Object({
  id: Type.String(),
  title: S,
  caption: S,
  preview_urls: Type.Object({
    small: S,
    small_height: I,
    small_width: I,
    medium: S,
    medium_height: I,
    medium_width: I,
    large: S,
    large_height: I,
    large_width: I,
  }),
  destination_url: S,
});

const AffiliateVideo = Type.Object({
  id: Type.String(),
  title: S,
  caption: S,
  preview_urls: Type.Object({ small_still: S, medium_still: S, large_still: S, small_motion: S, large_motion: S }),
  destination_url: S,
  clip_length: S,
});

const AutoCorrections = Type.Optional(Type.Object({ phrase: Type.String() }));

/** Display-size names of the small, medium and large previews. */
const PREVIEW_SIZES = { small: 'thumb', medium: 'comp', large: 'high_res_comp' } as const;

/** What an affiliate result reads of each asset: a fixed selection, `fields` is no parameter here. */
const PREVIEW_SELECTION: FieldSelection = {
  fields: new Set(['title', 'caption', 'referral_destinations', 'clip_length']),
  displaySizes: Object.values(PREVIEW_SIZES),
  requiresToken: false,
  tokenFieldsIfAuthorized: new Set(),
};

/** A video's too: `preview` is its clip, when it has one. */
const VIDEO_PREVIEW_SELECTION: FieldSelection = { ...PREVIEW_SELECTION, displaySizes: [...Object.values(PREVIEW_SIZES), 'preview'] };

/** The preview clip among a video's display sizes (an MP4), null when it has none. */
function motionPreviewOf(asset: ProjectedAsset): string | null {
  return asset.display_sizes?.find((size) => size.name === 'preview' && /\.mp4(\?|$)/.test(size.uri))?.uri ?? null;
}

interface ProjectedAsset {
  id: string;
  title?: string | null;
  caption?: string | null;
  clip_length?: string | null;
  referral_destinations?: Array<{ uri?: string | null }> | null;
  display_sizes?: DisplaySizeView[];
}

function destinationOf(asset: ProjectedAsset): string | null {
  const uri = asset.referral_destinations?.[0]?.uri;
  return typeof uri === 'string' && uri !== '' ? uri : null;
}

function previewOf(asset: ProjectedAsset, name: string): { uri: string | null; width: number; height: number } {
  const size = asset.display_sizes?.find((candidate) => candidate.name === name);
  return size ? { uri: size.uri, width: size.width, height: size.height } : { uri: null, width: 0, height: 0 };
}

function imageResult(asset: ProjectedAsset) {
  const small = previewOf(asset, PREVIEW_SIZES.small);
  const medium = previewOf(asset, PREVIEW_SIZES.medium);
  const large = previewOf(asset, PREVIEW_SIZES.large);
  return {
    id: asset.id,
    title: asset.title ?? null,
    caption: asset.caption ?? null,
    preview_urls: {
      small: small.uri,
      small_height: small.height,
      small_width: small.width,
      medium: medium.uri,
      medium_height: medium.height,
      medium_width: medium.width,
      large: large.uri,
      large_height: large.height,
      large_width: large.width,
    },
    destination_url: destinationOf(asset),
  };
}

function videoResult(asset: ProjectedAsset) {
  return {
    id: asset.id,
    title: asset.title ?? null,
    caption: asset.caption ?? null,
    preview_urls: {
      small_still: previewOf(asset, PREVIEW_SIZES.small).uri,
      medium_still: previewOf(asset, PREVIEW_SIZES.medium).uri,
      large_still: previewOf(asset, PREVIEW_SIZES.large).uri,
      small_motion: motionPreviewOf(asset),
      large_motion: motionPreviewOf(asset),
    },
    destination_url: destinationOf(asset),
    clip_length: asset.clip_length ?? null,
  };
}

export async function affiliatesRoutes(fastify: FastifyInstance, options: { search: AssetSearch }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxRequestTypeProvider>();
  const { search } = options;

  /** The best creative matches, projected with their previews. Affiliates see the whole creative catalogue: no licensing view. */
  async function bestMatches(request: FastifyRequest, affiliateSearch: AffiliateImageSearch | AffiliateVideoSearch) {
    const language = preferredLanguage(request.headers['accept-language']);
    const selection = affiliateSearch.endpoint === 'affiliates_videos' ? VIDEO_PREVIEW_SELECTION : PREVIEW_SELECTION;
    const found = await search.affiliate(affiliateSearch, { licensingTypes: [], selection, read: { language, authorized: false } });
    const autoCorrections = found.corrections ? { auto_corrections: { phrase: found.corrections } } : {};
    return { assets: found.assets as unknown as ProjectedAsset[], autoCorrections };
  }

  app.get(
    SEARCH_ENDPOINT_DEFINITIONS.affiliates_images.path,
    {
      schema: searchRouteSchema('affiliates_images', { 200: Type.Object({ images: Type.Array(AffiliateImage), auto_corrections: AutoCorrections }), 400: ErrorBody, 403: ErrorBody }),
    },
    async (request) => {
      const { assets, autoCorrections } = await bestMatches(request, normalizeSearchParameters('affiliates_images', request.query));
      return { images: assets.map(imageResult), ...autoCorrections };
    },
  );

  app.get(
    SEARCH_ENDPOINT_DEFINITIONS.affiliates_videos.path,
    {
      schema: searchRouteSchema('affiliates_videos', { 200: Type.Object({ videos: Type.Array(AffiliateVideo), auto_corrections: AutoCorrections }), 400: ErrorBody, 403: ErrorBody }),
    },
    async (request) => {
      const { assets, autoCorrections } = await bestMatches(request, normalizeSearchParameters('affiliates_videos', request.query));
      return { videos: assets.map(videoResult), ...autoCorrections };
    },
  );
}
