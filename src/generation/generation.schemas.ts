import { Type, type TSchema } from '@sinclair/typebox';
import { Choice, CommaList, Flag, IsoDate, PageNumber, PageSize } from '../platform/http/parameters.js';
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
const MEDIA_TYPES = ['photography', 'illustration'];
const MOODS = ['black_and_white', 'warm', 'cool', 'natural', 'vivid', 'dramatic', 'bold'];

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
    generation_request_id: optional(Type.String({ description: 'An earlier generation of the user.' })),
    index: Type.Integer({ minimum: 0, description: 'Which of its results.' }),
  },
  { description: 'ReferenceGeneration: a result of an earlier generation.' },
);

const reference = {
  reference_asset_id: optional(Type.String({ description: 'A creative image of the catalogue the user has licensed.' })),
  reference_generation: Type.Optional(Nullable(ReferenceGeneration)),
};
const fileReference = {
  reference_file_registration_id: optional(Type.String({ description: 'A file registered with POST /beta/ai/file-registrations.' })),
};
const prompt = {
  prompt: optional(Type.String({ description: 'What to make.' })),
  negative_prompt: optional(Type.String({ description: 'What to keep out.' })),
};
const style = {
  media_type: optional(Choice(MEDIA_TYPES, 'photography or illustration')),
  mood: optional(Choice(MOODS, MOODS.join(', '))),
};
const seed = { seed: optional(Type.Integer({ minimum: -2147483648, maximum: 2147483647, description: 'Reuse to reproduce an earlier result.' })) };
const percentage = (description: string) => optional(Type.Number({ minimum: 0, maximum: 100, description }));
const sides = (what: string) => ({
  left_percentage: percentage(`${what} on the left, in percent of the width (default 0).`),
  right_percentage: percentage(`${what} on the right, in percent of the width (default 0).`),
  top_percentage: percentage(`${what} at the top, in percent of the height (default 0).`),
  bottom_percentage: percentage(`${what} at the bottom, in percent of the height (default 0).`),
});
const maskUrl = (description: string) => ({ mask_url: optional(Type.String({ description })) });

export const ImageGenerationsRequest = Type.Object(
  {
    ...prompt,
    ...seed,
    aspect_ratio: optional(Choice(ASPECT_RATIOS, `${ASPECT_RATIOS.join(', ')} (default 1:1)`)),
    ...style,
    lens_type: optional(Choice(['wide_angle', 'telephoto'], 'wide_angle or telephoto')),
    depth_of_field: optional(Choice(['shallow', 'deep'], 'shallow or deep')),
    ...common,
  },
  { description: 'ImageGenerationsRequest (prompt required).' },
);
export const ImageVariationRequest = Type.Object({ ...common }, { description: 'ImageVariationRequest' });
export const RefineRequest = Type.Object(
  { ...reference, ...prompt, ...common, ...maskUrl('An uploaded mask (PUT /v3/search/by-image/uploads/{file-name}); white is the region to change. Required.') },
  { description: 'RefineRequest: exactly one reference.' },
);
export const ExtendRequest = Type.Object({ ...reference, ...prompt, ...common, ...sides('New content') }, { description: 'ExtendRequest: exactly one reference; at least one side above 0.' });
export const BackgroundRemovalRequest = Type.Object({ ...reference, ...common }, { description: 'BackgroundRemovalRequest: exactly one reference.' });
export const RemoveObjectRequest = Type.Object(
  { ...reference, ...common, ...maskUrl('An uploaded mask; white covers what to remove. Required.') },
  { description: 'RemoveObjectRequest: exactly one reference.' },
);
export const InfluenceColorByImageRequest = Type.Object(
  {
    ...reference,
    ...fileReference,
    ...prompt,
    noise_level: optional(Type.Number({ description: '0 to 1, required; higher is less like the reference.' })),
    ...style,
    ...seed,
    ...common,
  },
  { description: 'InfluenceColorByImageRequest: exactly one reference.' },
);
export const InfluenceCompositionByImageRequest = Type.Object(
  {
    ...reference,
    ...fileReference,
    ...prompt,
    influence_level: optional(Type.Number({ description: '0 to 1, required; higher is more like the reference.' })),
    ...style,
    ...seed,
    ...common,
  },
  { description: 'InfluenceCompositionByImageRequest: exactly one reference.' },
);
export const BackgroundGenerationRequest = Type.Object(
  { ...fileReference, ...prompt, ...common, ...sides('Padding') },
  { description: 'BackgroundGenerationRequest: a registered file of category CustomerProduct.' },
);
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

// ---- What the document says of the bodies --------------------------------------------------
// The bodies above validate loosely, so that the service answers a missing prompt or a second
// reference with a message naming it. The document states the same rules in full: the fields the
// service requires, required; exactly one reference, as one alternative a reference (`oneOf`:
// a body naming two matches two alternatives and is refused).

type ReferenceKind = 'reference_asset_id' | 'reference_generation' | 'reference_file_registration_id';

const REQUIRED_REFERENCE: Readonly<Record<ReferenceKind, TSchema>> = {
  reference_asset_id: Type.String({ minLength: 1, pattern: '\\S', description: 'A creative image of the catalogue the user has licensed.' }),
  reference_generation: Type.Object(
    {
      generation_request_id: Type.String({ minLength: 1, description: 'An earlier generation of the user.' }),
      index: Type.Integer({ minimum: 0, description: 'Which of its results.' }),
    },
    { description: 'ReferenceGeneration: a result of an earlier generation.' },
  ),
  reference_file_registration_id: Type.String({ minLength: 1, pattern: '\\S', description: 'A file registered with POST /beta/ai/file-registrations.' }),
};

/** Fields the service requires, as the document states them. */
const REQUIRED_FIELDS: Readonly<Record<string, TSchema>> = {
  prompt: Type.String({ minLength: 1, pattern: '\\S', description: 'What to make; not blank.' }),
  mask_url: Type.String({ minLength: 1, pattern: '\\S', description: 'An upload of the user’s own, sent with this API key and the user’s token (PUT /v3/search/by-image/uploads/{file-name}); white is the region acted on.' }),
  noise_level: Type.Number({ minimum: 0, maximum: 1, description: '0 to 1; higher is less like the reference.' }),
  influence_level: Type.Number({ minimum: 0, maximum: 1, description: '0 to 1; higher is more like the reference.' }),
  url: Type.String({ minLength: 1, pattern: '\\S', description: 'The URL of an upload of the user’s own, sent with this API key and the user’s token (PUT /v3/search/by-image/uploads/{file-name}).' }),
  // enum rather than const: the document's converter writes a const as a one-value enum.
  rights_claimed: Type.Unsafe<true>({ type: 'boolean', enum: [true], description: 'You own the file or licensed it.' }),
  size_name: Choice(['1k', '4k'], '1k or 4k (GET …/download-sizes).'),
  generated_asset_id: Type.String({ minLength: 1, pattern: '\\S', description: 'From GET /v3/downloads.' }),
  product_id: Type.Integer({ description: 'The AI generation product to download under (GET /v3/products).' }),
};

const REFERENCE_KINDS: readonly ReferenceKind[] = ['reference_asset_id', 'reference_generation', 'reference_file_registration_id'];

/**
 * A request body as the document states it: the fields `required` made required, and, when
 * `references` are given, exactly one of them.
 */
function documentedBody(body: TSchema, options: { required?: readonly string[]; references?: readonly ReferenceKind[] }): TSchema {
  const properties = { ...(body as unknown as { properties: Record<string, TSchema> }).properties };
  const required = options.required ?? [];
  for (const name of required) properties[name] = REQUIRED_FIELDS[name]!;
  const description = (body as { description?: string }).description;
  const others = Object.fromEntries(Object.entries(properties).filter(([name]) => !REFERENCE_KINDS.includes(name as ReferenceKind)));
  if (!options.references) return Type.Object(properties, { required: [...required], description });
  const alternatives = options.references.map((kind) =>
    Type.Object({ ...others, [kind]: REQUIRED_REFERENCE[kind] }, { required: [kind, ...required] }),
  );
  return Type.Unsafe({ oneOf: alternatives, description });
}

const ASSET_OR_GENERATION: readonly ReferenceKind[] = ['reference_asset_id', 'reference_generation'];
const ANY_REFERENCE: readonly ReferenceKind[] = REFERENCE_KINDS;

export const DOCUMENTED_BODIES = {
  ImageGenerationsRequest: documentedBody(ImageGenerationsRequest, { required: ['prompt'] }),
  RefineRequest: documentedBody(RefineRequest, { required: ['mask_url'], references: ASSET_OR_GENERATION }),
  ExtendRequest: documentedBody(ExtendRequest, { references: ASSET_OR_GENERATION }),
  BackgroundRemovalRequest: documentedBody(BackgroundRemovalRequest, { references: ASSET_OR_GENERATION }),
  RemoveObjectRequest: documentedBody(RemoveObjectRequest, { required: ['mask_url'], references: ASSET_OR_GENERATION }),
  InfluenceColorByImageRequest: documentedBody(InfluenceColorByImageRequest, { required: ['prompt', 'noise_level'], references: ANY_REFERENCE }),
  InfluenceCompositionByImageRequest: documentedBody(InfluenceCompositionByImageRequest, { required: ['prompt', 'influence_level'], references: ANY_REFERENCE }),
  BackgroundGenerationRequest: documentedBody(BackgroundGenerationRequest, { references: ['reference_file_registration_id'] }),
  FileRegistrationRequest: documentedBody(FileRegistrationRequest, { required: ['url', 'rights_claimed'] }),
  ImageDownloadRequest: documentedBody(ImageDownloadRequest, { required: ['size_name'] }),
  ReDownloadRequest: documentedBody(ReDownloadRequest, { required: ['generated_asset_id', 'product_id', 'size_name'] }),
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
