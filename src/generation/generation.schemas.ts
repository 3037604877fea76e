import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { AtLeastOne, Choice, CommaList, ExactlyOne, Flag, Given, IsoDate, PageNumber, PageSize, Text } from '../platform/http/parameters.js';
import { ErrorBody, Nullable } from '../platform/http/schema-types.js';
import { ASPECT_RATIOS } from './generation.service.js';
import { REGISTRATION_CATEGORIES } from './file-registrations.js';

/*
 * The shapes of the generative endpoints, in the contract's names (§3.22, §3.23).
 */

const S = Type.String();
const I = Type.Integer();
const B = Type.Boolean();

const optional = <T extends TSchema>(schema: T) => Type.Optional(Nullable(schema));
const MEDIA_TYPES = ['photography', 'illustration'] as const;
const MOODS = ['black_and_white', 'warm', 'cool', 'natural', 'vivid', 'dramatic', 'bold'] as const;
/** Text that must say something: trimmed, and a blank one is absent (so a required one is missing). */
const NOT_BLANK = '\\S';

const common = {
  product_id: optional(
    Type.Integer({
      description: 'One of the user’s active AI generation products (GET /v3/products), else 400 InvalidProduct. Required when the user holds several.',
    }),
  ),
  project_code: optional(Type.String({ description: 'Required when the product demands one; left out otherwise.' })),
  notes: optional(Type.String({ description: 'Free text kept with the request; required when the product demands it.' })),
};

export const ReferenceGeneration = Type.Object(
  {
    generation_request_id: Type.String({ minLength: 1, description: 'An earlier generation of the user.' }),
    index: Type.Integer({ minimum: 0, maximum: 2147483647, description: 'Which of its results.' }),
  },
  { additionalProperties: false, description: 'ReferenceGeneration: a result of an earlier generation.' },
);

const assetOrGeneration = {
  reference_asset_id: optional(Text('A creative image of the catalogue the user has licensed.', { pattern: NOT_BLANK })),
  reference_generation: optional(ReferenceGeneration),
};
const fileRegistration = (description: string) => Text(description, { pattern: NOT_BLANK });
const anyReference = {
  ...assetOrGeneration,
  reference_file_registration_id: optional(fileRegistration('A file registered with POST /beta/ai/file-registrations (category ImageReference).')),
};

/** Exactly one reference, given and not null; none or several is 400 InvalidReference. */
const oneReference = (names: readonly string[]) =>
  ExactlyOne(
    names.map((name) => Given(name)),
    { code: 'InvalidReference', message: `Give exactly one reference: ${names.slice(0, -1).join(', ')} or ${names.at(-1)!}` },
  );
const ONE_ASSET_OR_GENERATION = oneReference(Object.keys(assetOrGeneration));
const ONE_REFERENCE = oneReference(Object.keys(anyReference));

const prompt = {
  prompt: optional(Type.String({ description: 'What to make.' })),
  negative_prompt: optional(Type.String({ description: 'What to keep out.' })),
};
const requiredPrompt = { ...prompt, prompt: Text('What to make; not blank.', { pattern: NOT_BLANK }) };
const style = {
  media_type: optional(Choice(MEDIA_TYPES, 'photography or illustration')),
  mood: optional(Choice(MOODS, MOODS.join(', '))),
};
const seed = { seed: optional(Type.Integer({ minimum: -2147483648, maximum: 2147483647, description: 'Reuse to reproduce an earlier result.' })) };
const percentage = (description: string) => optional(Type.Number({ minimum: 0, maximum: 100, description }));
const SIDES = ['left_percentage', 'right_percentage', 'top_percentage', 'bottom_percentage'] as const;
const sides = (what: string) => ({
  left_percentage: percentage(`${what} on the left, in percent of the width (default 0).`),
  right_percentage: percentage(`${what} on the right, in percent of the width (default 0).`),
  top_percentage: percentage(`${what} at the top, in percent of the height (default 0).`),
  bottom_percentage: percentage(`${what} at the bottom, in percent of the height (default 0).`),
});
const mask = (acts: string) => ({
  mask_url: Text(`An upload of the user’s own, sent with this API key and the user’s token (PUT /v3/search/by-image/uploads/{file-name}); ${acts}`, { pattern: NOT_BLANK }),
});
const level = (description: string) => Type.Number({ minimum: 0, maximum: 1, description });

export const ImageGenerationsRequest = Type.Object(
  {
    ...requiredPrompt,
    ...seed,
    aspect_ratio: optional(Choice(ASPECT_RATIOS, `${ASPECT_RATIOS.join(', ')} (default 1:1)`)),
    ...style,
    lens_type: optional(Choice(['wide_angle', 'telephoto'], 'wide_angle or telephoto')),
    depth_of_field: optional(Choice(['shallow', 'deep'], 'shallow or deep')),
    ...common,
  },
  { additionalProperties: false, description: 'ImageGenerationsRequest' },
);
export const ImageVariationRequest = Type.Object({ ...common }, { additionalProperties: false, description: 'ImageVariationRequest' });
export const RefineRequest = Type.Object(
  { ...assetOrGeneration, ...prompt, ...common, ...mask('white is the region to change.') },
  { additionalProperties: false, allOf: [ONE_ASSET_OR_GENERATION], description: 'RefineRequest: exactly one reference, a photograph.' },
);
export const ExtendRequest = Type.Object(
  { ...assetOrGeneration, ...prompt, ...common, ...sides('New content') },
  {
    allOf: [
      ONE_ASSET_OR_GENERATION,
      AtLeastOne(
        SIDES.map((side) => Given(side, { type: 'number', exclusiveMinimum: 0 })),
        { message: 'At least one of left, right, top and bottom_percentage must be above 0' },
      ),
    ],
    additionalProperties: false,
    description: 'ExtendRequest: exactly one reference, a photograph; at least one side above 0.',
  },
);
export const BackgroundRemovalRequest = Type.Object(
  { ...assetOrGeneration, ...common },
  { additionalProperties: false, allOf: [ONE_ASSET_OR_GENERATION], description: 'BackgroundRemovalRequest: exactly one reference.' },
);
export const RemoveObjectRequest = Type.Object(
  { ...assetOrGeneration, ...common, ...mask('white covers what to remove.') },
  { additionalProperties: false, allOf: [ONE_ASSET_OR_GENERATION], description: 'RemoveObjectRequest: exactly one reference.' },
);
export const InfluenceColorByImageRequest = Type.Object(
  {
    ...anyReference,
    ...requiredPrompt,
    noise_level: level('0 to 1; higher is less like the reference.'),
    ...style,
    ...seed,
    ...common,
  },
  { additionalProperties: false, allOf: [ONE_REFERENCE], description: 'InfluenceColorByImageRequest: exactly one reference.' },
);
export const InfluenceCompositionByImageRequest = Type.Object(
  {
    ...anyReference,
    ...requiredPrompt,
    influence_level: level('0 to 1; higher is more like the reference.'),
    ...style,
    ...seed,
    ...common,
  },
  { additionalProperties: false, allOf: [ONE_REFERENCE], description: 'InfluenceCompositionByImageRequest: exactly one reference.' },
);
export const BackgroundGenerationRequest = Type.Object(
  {
    reference_file_registration_id: fileRegistration('A file registered with POST /beta/ai/file-registrations, of category CustomerProduct.'),
    ...requiredPrompt,
    ...common,
    ...sides('Padding'),
  },
  { additionalProperties: false, description: 'BackgroundGenerationRequest: a registered file of category CustomerProduct.' },
);

/** Each operation's body, by the GenerationType it makes. */
export type GenerationRequest =
  | { type: 'text_to_image'; body: Static<typeof ImageGenerationsRequest> }
  | { type: 'variation'; body: Static<typeof ImageVariationRequest>; variationOf: { requestId: string; index: number } }
  | { type: 'refine'; body: Static<typeof RefineRequest> }
  | { type: 'extend'; body: Static<typeof ExtendRequest> }
  | { type: 'background_removal'; body: Static<typeof BackgroundRemovalRequest> }
  | { type: 'object_removal'; body: Static<typeof RemoveObjectRequest> }
  | { type: 'influence_color_by_image'; body: Static<typeof InfluenceColorByImageRequest> }
  | { type: 'influence_composition_by_image'; body: Static<typeof InfluenceCompositionByImageRequest> }
  | { type: 'background_generation'; body: Static<typeof BackgroundGenerationRequest> };

type AnyBody = GenerationRequest['body'];
type KeyOfAny<T> = T extends unknown ? keyof T : never;
type FieldOfAny<T, K extends PropertyKey> = T extends unknown ? (K extends keyof T ? T[K] : never) : never;
/** Any field of any generative body, as that body types it: what every operation's handling reads in common. */
export type GenerationBody = { [K in KeyOfAny<AnyBody>]?: FieldOfAny<AnyBody, K> };

export const FileRegistrationRequest = Type.Object(
  {
    url: optional(Type.String({ description: 'The URL of an uploaded file (PUT /v3/search/by-image/uploads/{file-name}). Required.' })),
    rights_claimed: optional(Type.Boolean({ description: 'You own the file or licensed it. Required, true.' })),
    category: optional(Choice(REGISTRATION_CATEGORIES, 'ImageReference (influence operations, the default) or CustomerProduct (background generation)')),
  },
  { description: 'FileRegistrationRequest' },
);

const sizeName = optional(Type.String({ description: '1k or 4k (GET …/download-sizes). Required.' }));
export const ImageDownloadRequest = Type.Object(
  { size_name: sizeName, notes: common.notes, project_code: common.project_code },
  { description: 'ImageDownloadRequest' },
);
export const ReDownloadRequest = Type.Object(
  {
    generated_asset_id: optional(Type.String({ description: 'From GET /v3/downloads. Required.' })),
    product_id: optional(Type.Integer({ description: 'The AI generation product to download under (GET /v3/products). Required.' })),
    size_name: sizeName,
    notes: common.notes,
    project_code: common.project_code,
  },
  { description: 'ReDownloadRequest' },
);
export const DownloadSizesResponse = Type.Object(
  { download_sizes: Type.Array(Type.Object({ size_name: S, height: I, width: I })) },
  { description: 'DownloadSizesResponse: each size by its longest side (1k: 1024, 4k: 4096), the aspect kept.' },
);
export const DownloadResponse = Type.Object(
  { url: Type.String({ description: 'A signed, expiring URL of the file (a PNG); use it as it is.' }), generated_asset_id: S },
  { description: 'DownloadResponse' },
);

// ---- The download and registration bodies as they validate ----------------------------------
// Built from the bodies above with the fields their services need made required, in full.

/** Fields the download and registration services require, as the document states them. */
const REQUIRED_FIELDS: Readonly<Record<string, TSchema>> = {
  url: Type.String({ minLength: 1, pattern: NOT_BLANK, description: 'The URL of an upload of the user’s own, sent with this API key and the user’s token (PUT /v3/search/by-image/uploads/{file-name}).' }),
  // enum rather than const: the document's converter writes a const as a one-value enum.
  rights_claimed: Type.Unsafe<true>({ type: 'boolean', enum: [true], description: 'You own the file or licensed it.' }),
  size_name: Choice(['1k', '4k'], '1k or 4k (GET …/download-sizes).'),
  generated_asset_id: Type.String({ minLength: 1, pattern: NOT_BLANK, description: 'From GET /v3/downloads.' }),
  product_id: Type.Integer({ description: 'The AI generation product to download under (GET /v3/products).' }),
};

/** A request body with the fields `required` made required, and no other fields (the contract's object schemas allow none). */
function withRequiredFields(body: TSchema, required: readonly string[]): TSchema {
  const properties = { ...(body as unknown as { properties: Record<string, TSchema> }).properties };
  for (const name of required) properties[name] = REQUIRED_FIELDS[name]!;
  return Type.Object(properties, { additionalProperties: false, required: [...required], description: (body as { description?: string }).description });
}

export const STRICT_BODIES = {
  FileRegistrationRequest: withRequiredFields(FileRegistrationRequest, ['url', 'rights_claimed']),
  ImageDownloadRequest: withRequiredFields(ImageDownloadRequest, ['size_name']),
  ReDownloadRequest: withRequiredFields(ReDownloadRequest, ['generated_asset_id', 'product_id', 'size_name']),
} as const;

export const PreviewUrl = Type.Object(
  { preview_size: S, image_url: Type.String({ description: 'A signed URL of a watermarked preview; use it as it is.' }), width: I, height: I },
  { description: 'PreviewUrl' },
);
const ResultItem = Type.Object({ index: I, is_blocked: Type.Boolean({ description: 'true: blocked by the prompt policy (no picture)' }), preview_urls: Type.Array(PreviewUrl), url: Nullable(S) });
export const ImageGenerationsResponse = Type.Object(
  { generation_request_id: S, seed: I, results: Type.Array(ResultItem), original_asset: Type.Object({ id: Nullable(S) }) },
  { description: 'ImageGenerationsResponse: the results are ready.' },
);
export const PendingImageGenerationResponse = Type.Object({ generation_request_id: S }, { description: 'PendingImageGenerationResponse: poll GET /v3/ai/image-generations/{id}.' });
export const FileRegistrationResponse = Type.Object({ id: S }, { description: 'FileRegistrationResponse' });
export const GetFileRegistrationResponse = Type.Object({ id: S, preview_urls: Type.Array(PreviewUrl) }, { description: 'GetFileRegistrationResponse' });

export const GenerationHistoryItem = Type.Object(
  {
    generation_request_id: S,
    seed: I,
    generation_date: S,
    product_revoked_date: Nullable(S),
    prompt: Nullable(S),
    negative_prompt: Nullable(S),
    product_id: I,
    notes: Nullable(S),
    project_code: Nullable(S),
    generation_type: Type.String({ description: 'GenerationType' }),
    generation_options: Type.Object({ media_type: Nullable(S), aspect_ratio: Nullable(S), mood: Nullable(S) }),
    source_generation_request: Nullable(Type.Object({ source_generation_request_id: Nullable(S), source_generation_result_index: I })),
    original_asset: Type.Object({ id: Nullable(S) }),
    status: Type.String({ description: 'pending, running, done or failed (this server’s addition: progress and failures)' }),
    failure: Nullable(Type.String({ description: 'Why a failed request failed; nothing was charged for it.' })),
    results: Type.Array(Type.Object({ index: I, is_blocked: B, preview_urls: Type.Array(PreviewUrl) })),
    user: Type.Object({ username: Nullable(S), first_name: Nullable(S), middle_name: Nullable(S), last_name: Nullable(S) }),
  },
  { description: 'GenerationHistoryItemResponse' },
);
export const GenerationHistoryResponse = Type.Object({ generations: Type.Array(GenerationHistoryItem), result_count: I }, { description: 'GenerationHistoryResponse' });

export const HistoryQuery = Type.Object(
  {
    date_start: Type.Optional(IsoDate('On or after: an ISO 8601 date (00:00:00 UTC) or date-time; not after date_end.', { time: true })),
    date_end: Type.Optional(IsoDate('On or before: an ISO 8601 date (00:00:00 UTC) or date-time.', { time: true })),
    media_type: Type.Optional(Choice(MEDIA_TYPES, 'photography or illustration')),
    page_size: Type.Optional(PageSize('Default 30.', { maximum: 1000 })),
    page: Type.Optional(PageNumber('Default 1.', { maximum: 100_000 })),
    product_ids: Type.Optional(CommaList(Type.Integer({ minimum: 0, maximum: 2147483647 }), 'Only these products: product ids, comma-separated.', { minItems: 1 })),
    company_generations: Type.Optional(Flag('All users of the team (403 for a user of none).')),
  },
  { additionalProperties: false },
);

export const RequestIdParams = Type.Object({ generationRequestId: Type.String({ description: 'The generation_request_id.' }) });
export const ResultParams = Type.Object({
  generationRequestId: Type.String({ description: 'The generation_request_id.' }),
  index: Type.Integer({ minimum: 0, maximum: 2147483647, description: 'The result’s index.' }),
});
export const RegistrationParams = Type.Object({ fileRegistrationId: Type.String({ description: 'The id of the registration.' }) });

export const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
export const generationAnswers = {
  200: ImageGenerationsResponse,
  202: PendingImageGenerationResponse,
  ...errors,
  404: {
    ...ErrorBody,
    description:
      'ImageNotFound (reference_asset_id), GenerationRequestIdNotFound (reference_generation: no such request or result, or still pending), ' +
      'or GeneratedFileNotFound: the picture of the referenced result is no longer in the blob store',
  },
  409: ErrorBody,
  410: ErrorBody,
  429: ErrorBody,
  502: ErrorBody,
  503: ErrorBody,
};
