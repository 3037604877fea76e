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

/**
 * A member of a stored sub-object: records come from many sources (ingest, the demo, an
 * older version), so any member may be missing or null; the serializer must not refuse them.
 */
const member = <T extends Parameters<typeof Nullable>[0]>(schema: T) => Type.Optional(Nullable(schema));

export const AllowedUse = Type.Object({
  how_can_i_use_it: member(S),
  release_info: member(S),
  usage_restrictions: member(Strings),
});

export const AlternativeId = Type.Object({ Key: member(S), Value: member(S) });

export const MaxDimensions = Type.Object({ height: member(I), width: member(I) });

export const DisplaySize = Type.Object({
  height: I,
  width: I,
  is_watermarked: B,
  name: S,
  uri: S,
});

export const Download = Type.Object({
  product_id: member(S),
  product_type: member(S),
  uri: member(S),
  agreement_name: member(S),
});

export const ImageDownloadSize = Type.Object({
  bytes: member(I),
  height: member(I),
  width: member(I),
  media_type: member(S),
  name: member(S),
  dpi: member(I),
  downloads: Type.Optional(Type.Array(Download)),
});

export const Keyword = Type.Object({
  keyword_id: member(S),
  text: member(S),
  type: member(S),
  relevance: member(I),
  entity_uris: member(Strings),
  entity_types: member(Strings),
});

export const Link = Type.Object({ rel: member(S), uri: member(S) });
export const ReferralDestination = Type.Object({ site_name: member(S), uri: member(S) });
export const PartnerLicense = Type.Object({ license_type: member(S), credits: member(I) });
export const EditorialSource = Type.Object({ id: member(I), name: member(S) });
/** Entity details have no published shape: each is an object of free properties. */
export const EntityDetail = Type.Object({}, { additionalProperties: true });

const optional = <T extends Parameters<typeof Type.Optional>[0]>(schema: T) => Type.Optional(schema);

/** Fields shared by images and videos. */
const commonAssetFields = {
  id: S,
  allowed_use: optional(Nullable(AllowedUse)),
  artist: optional(Nullable(S)),
  asset_family: optional(Nullable(S)),
  call_for_image: optional(Nullable(B)),
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
  is_ai_editable: optional(Nullable(B)),
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
    prestige: optional(Nullable(B)),
    uri_oembed: optional(Nullable(S)),
  },
  { $id: 'ImageDetail', description: 'image_detail: the fields present are those selected with `fields`.' },
);

export const VideoDownloadSize = Type.Object({
  bytes: member(I),
  bit_depth: member(S),
  compression: member(S),
  content_type: member(S),
  description: member(S),
  format: member(S),
  frame_rate: member(Type.Number()),
  frame_size: member(S),
  height: member(I),
  interlaced: member(B),
  name: member(S),
  width: member(I),
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
    uri_oembed: optional(Nullable(S)),
  },
  { $id: 'VideoDetail', description: 'A video: the fields present are those selected with `fields`.' },
);

export const HeroDisplaySize = Type.Object({ name: S, is_watermarked: B, uri: S });

export const EventLocation = Type.Object({
  city: member(S),
  country: member(S),
  state_province: member(S),
  venue: member(S),
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
