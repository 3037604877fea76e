import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from '../platform/http/schema-types.js';

/*
 * The shapes of the catalogue as the API returns them, in the spec's own names.
 * Every property is optional: `fields` decides which are present, and the
 * serializer writes only the properties declared here, so nothing internal leaks.
 */

const S = Type.String();
const I = Type.Integer();
const B = Type.Boolean();
const Strings = Type.Array(Type.String());

export const AllowedUse = Type.Object({
  how_can_i_use_it: Nullable(S),
  release_info: Nullable(S),
  usage_restrictions: Strings,
});

export const AlternativeId = Type.Object({ Key: S, Value: S });

export const MaxDimensions = Type.Object({ height: I, width: I });

export const DisplaySize = Type.Object({
  height: I,
  width: I,
  is_watermarked: B,
  name: S,
  uri: S,
});

export const Download = Type.Object({
  product_id: Nullable(S),
  product_type: S,
  uri: S,
  agreement_name: Nullable(S),
});

export const ImageDownloadSize = Type.Object({
  bytes: Nullable(I),
  height: Nullable(I),
  width: Nullable(I),
  media_type: Nullable(S),
  name: Nullable(S),
  dpi: Nullable(I),
  downloads: Type.Optional(Type.Array(Download)),
});

export const Keyword = Type.Object({
  keyword_id: S,
  text: S,
  type: Nullable(S),
  relevance: Nullable(I),
  entity_uris: Strings,
  entity_types: Strings,
});

export const Link = Type.Object({ rel: S, uri: S });
export const ReferralDestination = Type.Object({ site_name: S, uri: S });
export const PartnerLicense = Type.Object({ license_type: S, credits: I });
export const EditorialSource = Type.Object({ id: Nullable(I), name: Nullable(S) });
/** Entity details have no published shape: each is an object of free properties. */
export const EntityDetail = Type.Object({}, { additionalProperties: true });

const optional = <T extends Parameters<typeof Type.Optional>[0]>(schema: T) => Type.Optional(schema);

/** Fields shared by images and videos. */
const commonAssetFields = {
  id: S,
  allowed_use: optional(Nullable(AllowedUse)),
  artist: optional(Nullable(S)),
  asset_family: optional(Nullable(S)),
  call_for_image: optional(B),
  caption: optional(Nullable(S)),
  city: optional(Nullable(S)),
  collection_code: optional(Nullable(S)),
  collection_id: optional(Nullable(I)),
  collection_name: optional(Nullable(S)),
  color_type: optional(Nullable(S)),
  copyright: optional(Nullable(S)),
  country: optional(Nullable(S)),
  date_created: optional(Nullable(S)),
  date_submitted: optional(Nullable(S)),
  display_sizes: optional(Type.Array(DisplaySize)),
  download_product: optional(Nullable(S)),
  editorial_segments: optional(Strings),
  entity_details: optional(Type.Array(EntityDetail)),
  event_ids: optional(Type.Array(I)),
  is_ai_editable: optional(B),
  keywords: optional(Type.Array(Keyword)),
  license_model: optional(Nullable(S)),
  max_dimensions: optional(Nullable(MaxDimensions)),
  object_name: optional(Nullable(S)),
  orientation: optional(Nullable(S)),
  partner_collection: optional(Nullable(S)),
  partner_licenses: optional(Type.Array(PartnerLicense)),
  people: optional(Strings),
  product_types: optional(Strings),
  quality_rank: optional(Nullable(I)),
  referral_destinations: optional(Type.Array(ReferralDestination)),
  state_province: optional(Nullable(S)),
  title: optional(Nullable(S)),
};

export const ImageDetail = Type.Object(
  {
    ...commonAssetFields,
    alternative_ids: optional(Type.Array(AlternativeId)),
    artist_title: optional(Nullable(S)),
    credit_line: optional(Nullable(S)),
    date_camera_shot: optional(Nullable(S)),
    download_sizes: optional(Type.Array(ImageDownloadSize)),
    editorial_source: optional(Nullable(EditorialSource)),
    graphical_style: optional(Nullable(S)),
    largest_downloads: optional(Type.Array(ImageDownloadSize)),
    links: optional(Type.Array(Link)),
    prestige: optional(B),
    uri_oembed: optional(Nullable(S)),
  },
  { $id: 'ImageDetail', description: 'image_detail: the fields present are those selected with `fields`.' },
);

export const VideoDownloadSize = Type.Object({
  bytes: Nullable(I),
  bit_depth: Nullable(S),
  compression: Nullable(S),
  content_type: Nullable(S),
  description: Nullable(S),
  format: Nullable(S),
  frame_rate: Nullable(Type.Number()),
  frame_size: Nullable(S),
  height: Nullable(I),
  interlaced: Nullable(B),
  name: Nullable(S),
  width: Nullable(I),
  downloads: Type.Optional(Type.Array(Download)),
});

export const VideoDetail = Type.Object(
  {
    ...commonAssetFields,
    aspect_ratio: optional(Nullable(S)),
    clip_length: optional(Nullable(S)),
    download_sizes: optional(Type.Array(VideoDownloadSize)),
    era: optional(Nullable(S)),
    key_frames: optional(Type.Array(DisplaySize)),
    largest_downloads: optional(Type.Array(VideoDownloadSize)),
    mastered_to: optional(Nullable(S)),
    originally_shot_on: optional(Nullable(S)),
    shot_speed: optional(Nullable(S)),
    source: optional(Nullable(S)),
  },
  { $id: 'VideoDetail', description: 'A video: the fields present are those selected with `fields`.' },
);

export const HeroDisplaySize = Type.Object({ name: S, is_watermarked: B, uri: S });

export const EventLocation = Type.Object({
  city: Nullable(S),
  country: Nullable(S),
  state_province: Nullable(S),
  venue: Nullable(S),
});

export const EventKeyword = Type.Object({ keyword_id: Nullable(S), text: S, type: Nullable(S) });

export const EventDetail = Type.Object(
  {
    id: I,
    name: optional(S),
    start_date: optional(Nullable(S)),
    child_event_count: optional(I),
    image_count: optional(I),
    editorial_segments: optional(Strings),
    hero_image: optional(
      Nullable(Type.Object({ id: Nullable(S), display_sizes: Type.Array(HeroDisplaySize) })),
    ),
    location: optional(EventLocation),
    type: optional(Nullable(S)),
    keywords: optional(Type.Array(EventKeyword)),
  },
  { $id: 'Event', description: 'An editorial event: the fields present are those selected with `fields`.' },
);

export type ImageDetailBody = Static<typeof ImageDetail>;
export type VideoDetailBody = Static<typeof VideoDetail>;
export type EventBody = Static<typeof EventDetail>;

export const ImagesDetailResults = Type.Object({
  images: Type.Array(ImageDetail),
  images_not_found: Strings,
});

export const VideosDetailResults = Type.Object({
  videos: Type.Array(VideoDetail),
  videos_not_found: Strings,
});

export const EventsDetailResults = Type.Object({
  events: Type.Array(EventDetail),
  events_not_found: Type.Array(I),
});

export const Collection = Type.Object({
  asset_family: Nullable(S),
  code: S,
  id: I,
  license_model: Nullable(S),
  name: S,
  product_types: Strings,
});

export const CollectionsList = Type.Object({ collections: Type.Array(Collection) });

export const CountriesList = Type.Object({
  countries: Type.Array(Type.Object({ iso_alpha_2: S, iso_alpha_3: S, name: S })),
});
