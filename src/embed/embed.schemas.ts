import { Type } from '@sinclair/typebox';
import { ErrorBody, Nullable } from '../platform/http/schema-types.js';

/** The smallest frame a consumer may ask for: room for a picture above the caption strip. */
export const MIN_FRAME_EDGE = 100;

/** GET {embed_url}/oembed: the spec's url, caller and format, and oEmbed's maxwidth and maxheight. */
export const OEmbedQuery = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048, description: 'The asset short link, {short_url}/<asset id>, URL-encoded' }),
    caller: Type.Optional(Type.String({ maxLength: 200, description: 'A descriptive name of the calling application' })),
    format: Type.Optional(Type.String({ maxLength: 20, description: 'Only json is offered; any other format is 501' })),
    maxwidth: Type.Optional(Type.Integer({ minimum: MIN_FRAME_EDGE, maximum: 100_000, description: 'The widest frame the consumer can show (oEmbed)' })),
    maxheight: Type.Optional(Type.Integer({ minimum: MIN_FRAME_EDGE, maximum: 100_000, description: 'The tallest frame the consumer can show (oEmbed)' })),
    // WordPress (oEmbed's own example consumer) adds dnt=1 to every oEmbed request since 4.9; refused
    // as an unknown parameter, no WordPress site could embed. The frame tracks nothing, so it is honoured as it is.
    dnt: Type.Optional(Type.String({ maxLength: 20, description: 'Do Not Track (sent by WordPress): the embed page sets no cookie and runs no script, whatever its value' })),
  },
  { additionalProperties: false },
);

export const OEmbedResponseSchema = Type.Object(
  {
    type: Type.String({ description: 'rich for an image, video for a video: the html frames the embed page' }),
    version: Type.String(),
    title: Nullable(Type.String()),
    caption: Nullable(Type.String()),
    photographer: Nullable(Type.String()),
    collection: Nullable(Type.String()),
    html: Type.String({ description: 'An iframe of the embed page' }),
    width: Type.Integer(),
    height: Type.Integer(),
    thumbnail_url: Type.String(),
    thumbnail_width: Type.Integer(),
    thumbnail_height: Type.Integer(),
    terms_of_use_url: Type.String(),
    cache_age: Type.Integer({ description: 'Seconds the answer may be kept: its thumbnail_url is signed and lapses' }),
  },
  { $id: 'OEmbedResponse' },
);

export const AssetIdParams = Type.Object({ id: Type.String({ maxLength: 200 }) }, { additionalProperties: false });

export const OEmbedErrors = { 400: ErrorBody, 404: ErrorBody, 501: ErrorBody };
