import { ISO_DATE_EXPECTED, readIsoDate } from '../platform/http/iso-date.js';
import { randomBytes, randomInt } from 'node:crypto';
import sharp from 'sharp';
import type { BlobStore } from '../platform/blobs/blob-store.js';
import { invalidPage, invalidPageSize, invalidParameter } from '../platform/http/errors.js';
import { assetFileNotAvailable, assetNotFound } from '../catalog/catalog.errors.js';
import type { AssetRecord } from '../catalog/catalog.records.js';
import type { AiGenerationLicensing } from '../licensing/ai-generation.service.js';
import type { CustomerGrant } from '../licensing/customer-access.js';
import type { Customer, ProductsService } from '../licensing/products.service.js';
import { utcDateTime } from '../platform/http/date-time.js';
import { EngineUnavailableError, type EngineOperation, type StyleHints } from './engines/engine.js';
import type { EngineRouter } from './engine-router.js';
import type { GenerationJobs, JobSpec } from './generation-jobs.js';
import { PREVIEW_LONG_SIDE } from './generation-jobs.js';
import {
  assetNotLicensed,
  companyGenerationsNotEnabled,
  generatedFileNotFound,
  generationEngineUnavailable,
  generationFailed,
  generationRequestGone,
  generationRequestNotFound,
  notAuthorized,
  tooManyConcurrentGenerations,
} from './generation.errors.js';
import type { GenerationRepository, GenerationRow, HistoryFilter, ResultRow } from './generation.repository.js';
import type { PromptPolicy } from './prompt-policy.js';
import type { FileRegistrations } from './file-registrations.js';
import type { GenerationBody, GenerationRequest } from './generation.schemas.js';
import type { DecodeSlots } from '../platform/decode-slots.js';

/** The contract's GenerationType of each operation this server runs. */
export type GenerationType = GenerationRequest['type'];

const OPERATION_OF: Readonly<Record<GenerationType, EngineOperation>> = {
  text_to_image: 'generate',
  variation: 'variations',
  refine: 'refine',
  extend: 'extend',
  background_removal: 'remove_background',
  object_removal: 'remove_object',
  influence_color_by_image: 'influence_color',
  influence_composition_by_image: 'influence_composition',
  background_generation: 'generate_background',
};

/** The aspect ratios text to image takes. */
export const ASPECT_RATIOS = ['1:1', '4:3', '3:4', '16:9', '9:16'] as const;

/** The sizes text to image asks for: the long side 1024, as the aspect ratio says. */
const ASPECT_SIZES: Readonly<Record<(typeof ASPECT_RATIOS)[number], { width: number; height: number }>> = {
  '1:1': { width: 1024, height: 1024 },
  '4:3': { width: 1024, height: 768 },
  '3:4': { width: 768, height: 1024 },
  '16:9': { width: 1024, height: 576 },
  '9:16': { width: 576, height: 1024 },
};

/** Pictures a prompt-driven operation makes at once (the service's four). */
const PROMPTED_COUNT = 4;
/** Object removal answers four different fills of the hole, as the spec says ("four images result"), for one charge. */
const OBJECT_REMOVAL_COUNT = 4;
/** Sources are given to engines at most this large (a catalogue original may be 6000 px). */
const SOURCE_LONG_SIDE = 2048;
const ID_PATTERN = /^[0-9a-f]{32}$/;

/**
 * One generative request: the caller, and the operation with its body as the route validated it
 * (required fields present, exactly one reference, values in range).
 */
export type GenerationCall = { grant: CustomerGrant; clientId: number } & GenerationRequest;

/** The references a body may carry (each operation's schema admits its own, exactly one of them). */
interface References {
  reference_asset_id?: string | null | undefined;
  reference_generation?: { generation_request_id: string; index: number } | null | undefined;
  reference_file_registration_id?: string | null | undefined;
}

export interface PreviewUrl {
  preview_size: string;
  image_url: string;
  width: number;
  height: number;
}

export interface GenerationResult {
  index: number;
  is_blocked: boolean;
  preview_urls: PreviewUrl[];
  url: null;
}

/** 200: ImageGenerationsResponse; 202: PendingImageGenerationResponse. */
export type GenerationAnswer =
  | { status: 200; body: { generation_request_id: string; seed: number; results: GenerationResult[]; original_asset: { id: string | null } } }
  | { status: 202; body: { generation_request_id: string } };

export interface HistoryQuery {
  dateStart?: string | undefined;
  dateEnd?: string | undefined;
  mediaType?: string | undefined;
  page?: number | undefined;
  pageSize?: number | undefined;
  productIds?: readonly number[] | undefined;
  companyGenerations?: boolean | undefined;
}

/** The catalogue's part: image records. */
export interface GenerationCatalog {
  findAssets(assetType: 'image', ids: readonly string[]): Promise<{ found: AssetRecord[]; notFound: string[] }>;
}

/**
 * Files uploaded with PUT /v3/search/by-image/uploads (search's uploads), read by the URL handed
 * out, as their owner: the user whose token came with the upload (or the API key alone).
 */
export interface UploadedFiles {
  fileOf(owner: { clientId: number; userId: number | null }, fileUrl: string, parameter: string): Promise<{ bytes: Buffer; mediaType: string }>;
}

export interface GenerationServiceDeps {
  repository: GenerationRepository;
  jobs: GenerationJobs;
  router: EngineRouter;
  blobs: BlobStore;
  products: ProductsService;
  licensing: AiGenerationLicensing;
  catalog: GenerationCatalog;
  uploads: UploadedFiles;
  registrations: FileRegistrations;
  policy: PromptPolicy;
  /** Signed URL of a preview path (media's display signer). */
  signPath: (path: string) => string;
  waitMs: number;
  maxPerUser: number;
  retentionDays: number;
  /** The platform's bound on pictures decoded at once: every source and mask is decoded under it. */
  decodes: DecodeSlots;
  now: () => Date;
}

/** A picture a job starts from, normalised to PNG. */
interface Picture {
  data: Buffer;
  width: number;
  height: number;
}

/** What a reference resolved to. */
interface Reference {
  picture: Picture;
  originalAssetId: string | null;
  source?: { requestId: string; index: number };
  sourcePrompt?: string | null;
}

/**
 * The generative operations: each request checked (its reference, mask, product and limits),
 * queued as a job, and answered with its results when they are ready within a short wait, else
 * with its id to poll. Results are kept for the retention, then 410.
 */
export class GenerationService {
  constructor(private readonly deps: GenerationServiceDeps) {}

  async generate(call: GenerationCall): Promise<GenerationAnswer> {
    const { deps } = this;
    const customer = await deps.products.customerOf(call.grant);
    const operation = OPERATION_OF[call.type];
    const prepared = await this.prepare(call, customer);
    // What every operation reads alike, of whichever body it has.
    const body: GenerationBody = call.body;
    // Nothing is queued or charged for an operation no configured engine can do.
    try {
      deps.router.engineFor(operation);
    } catch (error) {
      if (error instanceof EngineUnavailableError) throw generationEngineUnavailable(error.message);
      throw error;
    }
    const product = await deps.licensing.chooseProduct(customer, { productId: body.product_id ?? undefined, notes: body.notes, projectCode: body.project_code });
    if ((await deps.repository.activeCount(customer.id)) >= deps.maxPerUser) {
      throw tooManyConcurrentGenerations(deps.maxPerUser);
    }

    const id = randomBytes(16).toString('hex');
    const now = deps.now();
    const blocked = deps.policy.blocks(body.prompt, body.negative_prompt);
    const pictures: JobSpec['pictures'] = {};
    if (!blocked) {
      for (const [role, picture] of Object.entries(prepared.pictures) as Array<[keyof JobSpec['pictures'], Picture]>) {
        const key = `generation/inputs/${id}/${role}.png`;
        await deps.blobs.put(key, picture.data);
        pictures[role] = key;
      }
    }
    // An edit of a catalogue asset, and a background generated around a product shot, draw the
    // product's asset_edit_cost (the contract's "may use a credit"); any other request draws one.
    const assetEdit = body.reference_asset_id != null || call.type === 'background_generation';
    const charge = blocked ? 'free' : await deps.licensing.charge(product, id, { assetEdit });
    const seed = prepared.seed;
    const row = {
      id,
      user_id: customer.id,
      client_id: call.clientId,
      team: customer.team,
      product_id: product.id,
      generation_type: call.type,
      job: JSON.stringify({ operation, params: prepared.params, pictures } satisfies JobSpec),
      status: blocked ? 'done' : 'pending',
      prompt: body.prompt?.trim() || null,
      negative_prompt: body.negative_prompt?.trim() || null,
      seed,
      media_type: body.media_type ?? null,
      aspect_ratio: call.type === 'text_to_image' ? (call.body.aspect_ratio ?? '1:1') : null,
      mood: body.mood ?? null,
      notes: body.notes?.trim() || null,
      project_code: body.project_code?.trim() || null,
      original_asset_id: prepared.reference?.originalAssetId ?? null,
      source_request_id: prepared.reference?.source?.requestId ?? null,
      source_index: prepared.reference?.source?.index ?? null,
      charge,
      engine: null,
      failure: null,
      claimed_by: null,
      lease_until: null,
      created_at: now.toISOString(),
      finished_at: blocked ? now.toISOString() : null,
      expires_at: new Date(now.getTime() + deps.retentionDays * 86_400_000).toISOString(),
    };
    // A blocked prompt's results say so; the engine never runs and nothing is kept of them.
    const blockedResults = blocked
      ? Array.from({ length: prepared.count }, (_, index) => ({
          request_id: id,
          result_index: index,
          is_blocked: 1,
          seed: seed + index,
          image_key: null,
          preview_key: null,
          width: null,
          height: null,
          preview_width: null,
          preview_height: null,
        }))
      : [];
    try {
      await deps.repository.insert(row, blockedResults);
    } catch (error) {
      if (charge === 'charged') await deps.licensing.refund(id);
      throw error;
    }
    if (!blocked) deps.jobs.wake();
    return this.waitForAnswer(id, deps.waitMs);
  }

  /** GET /v3/ai/image-generations/{id}: 200 with the results, 202 while pending. */
  async poll(grant: CustomerGrant, id: string): Promise<GenerationAnswer> {
    const customer = await this.deps.products.customerOf(grant);
    const row = await this.ownRequest(customer, id);
    return this.answer(row);
  }

  /** The history of the customer's (or the team's) requests, newest first. */
  async history(grant: CustomerGrant, query: HistoryQuery) {
    const customer = await this.deps.products.customerOf(grant);
    const filter: HistoryFilter = {};
    if (query.companyGenerations) {
      if (customer.team === null) throw companyGenerationsNotEnabled();
      filter.team = customer.team;
    } else {
      filter.userId = customer.id;
    }
    if (query.dateStart !== undefined) filter.from = historyDate('date_start', query.dateStart).toISOString();
    if (query.dateEnd !== undefined) filter.until = historyDate('date_end', query.dateEnd).toISOString();
    if (filter.from !== undefined && filter.until !== undefined && filter.from > filter.until) throw invalidParameter('date_start', 'date_start is after date_end');
    if (query.mediaType !== undefined) filter.mediaType = query.mediaType;
    if (query.productIds !== undefined) filter.productIds = query.productIds;
    const pageSize = query.pageSize ?? 30;
    const page = query.page ?? 1;
    // The query's coercion lets "-Infinity" through as a number; no page is before the first.
    if (!Number.isSafeInteger(page) || page < 1) throw invalidPage('page', `${String(page)} is not a page number (1 or more)`);
    if (!Number.isSafeInteger(pageSize) || pageSize < 1) throw invalidPageSize('page_size', `${String(pageSize)} is not 1 or more`);
    const { total, rows } = await this.deps.repository.history(filter, (page - 1) * pageSize, pageSize);
    return { generations: await this.historyItems(rows), result_count: total };
  }

  async historyItem(grant: CustomerGrant, id: string) {
    const customer = await this.deps.products.customerOf(grant);
    const row = await this.ownRequest(customer, id, { teamMayRead: true, expiredToo: true });
    return (await this.historyItems([row]))[0]!;
  }

  // ── preparing a request ───────────────────────────────────────────────────

  private async prepare(
    call: GenerationCall,
    customer: Customer,
  ): Promise<{ params: Record<string, unknown>; pictures: Partial<Record<'source' | 'mask' | 'reference', Picture>>; seed: number; count: number; reference?: Reference }> {
    // What the operations share, of whichever body it is; the route's schema has checked the rest.
    const body: GenerationBody = call.body;
    const seed = body.seed ?? randomInt(0, 2 ** 31 - 1);
    const prompt = body.prompt?.trim() ?? '';
    const negativePrompt = body.negative_prompt?.trim() || undefined;
    const style: StyleHints = {
      mediaType: body.media_type ?? undefined,
      mood: body.mood ?? undefined,
      lensType: body.lens_type ?? undefined,
      depthOfField: body.depth_of_field ?? undefined,
    };
    switch (call.type) {
      case 'text_to_image': {
        const size = ASPECT_SIZES[call.body.aspect_ratio ?? '1:1'];
        return { params: { prompt, negativePrompt, style, seed, count: PROMPTED_COUNT, ...size }, pictures: {}, seed, count: PROMPTED_COUNT };
      }
      case 'variation': {
        const reference = await this.generationReference(customer, call.variationOf.requestId, call.variationOf.index);
        return {
          params: { seed, count: PROMPTED_COUNT, prompt: reference.sourcePrompt ?? undefined },
          pictures: { source: reference.picture },
          seed,
          count: PROMPTED_COUNT,
          reference,
        };
      }
      case 'refine': {
        const reference = await this.reference(call.body, customer, { excludeIllustrations: true });
        const mask = await this.mask(call.body.mask_url, call.clientId, customer, reference.picture);
        return { params: { prompt, negativePrompt, seed, count: PROMPTED_COUNT }, pictures: { source: reference.picture, mask }, seed, count: PROMPTED_COUNT, reference };
      }
      case 'extend': {
        const reference = await this.reference(call.body, customer, { excludeIllustrations: true });
        const sides = { left: call.body.left_percentage ?? 0, right: call.body.right_percentage ?? 0, top: call.body.top_percentage ?? 0, bottom: call.body.bottom_percentage ?? 0 };
        const { width, height } = reference.picture;
        const margins = {
          left: Math.round((width * sides.left) / 100),
          right: Math.round((width * sides.right) / 100),
          top: Math.round((height * sides.top) / 100),
          bottom: Math.round((height * sides.bottom) / 100),
        };
        return { params: { margins, prompt: prompt || undefined, negativePrompt, seed, count: 1 }, pictures: { source: reference.picture }, seed, count: 1, reference };
      }
      case 'background_removal': {
        const reference = await this.reference(call.body, customer, {});
        return { params: {}, pictures: { source: reference.picture }, seed, count: 1, reference };
      }
      case 'object_removal': {
        const reference = await this.reference(call.body, customer, {});
        const mask = await this.mask(call.body.mask_url, call.clientId, customer, reference.picture);
        await refuseWholePictureMask(mask);
        return { params: { seed, count: OBJECT_REMOVAL_COUNT }, pictures: { source: reference.picture, mask }, seed, count: OBJECT_REMOVAL_COUNT, reference };
      }
      case 'influence_color_by_image':
      case 'influence_composition_by_image': {
        const reference = await this.reference(call.body, customer, { registrationCategory: 'ImageReference' });
        const levels = call.type === 'influence_color_by_image' ? { noiseLevel: call.body.noise_level } : { influenceLevel: call.body.influence_level };
        return {
          params: { prompt, negativePrompt, style, seed, count: PROMPTED_COUNT, ...levels },
          pictures: { reference: reference.picture },
          seed,
          count: PROMPTED_COUNT,
          reference,
        };
      }
      case 'background_generation': {
        const picture = await this.registration(customer, call.body.reference_file_registration_id, 'CustomerProduct');
        const padded = await padPicture(picture, call.body);
        return {
          params: { prompt, negativePrompt, seed, count: PROMPTED_COUNT },
          pictures: { source: padded },
          seed,
          count: PROMPTED_COUNT,
          reference: { picture: padded, originalAssetId: null },
        };
      }
    }
    return assertNever(call);
  }

  /**
   * The reference the body gives (its schema admits exactly one, of the kinds the operation
   * takes): a catalogue image, an earlier result, or (where allowed) a registered file.
   */
  private async reference(body: References, customer: Customer, rules: { excludeIllustrations?: boolean; registrationCategory?: 'ImageReference' }): Promise<Reference> {
    if (rules.registrationCategory && body.reference_file_registration_id != null) {
      return { picture: await this.registration(customer, body.reference_file_registration_id, rules.registrationCategory), originalAssetId: null };
    }
    if (body.reference_generation != null) {
      const { generation_request_id: requestId, index } = body.reference_generation;
      return this.generationReference(customer, requestId, index);
    }
    return this.assetReference(customer, body.reference_asset_id!, rules.excludeIllustrations ?? false);
  }

  private async assetReference(customer: Customer, assetId: string, excludeIllustrations: boolean): Promise<Reference> {
    const { found } = await this.deps.catalog.findAssets('image', [assetId]);
    const record = found[0];
    if (!record) throw assetNotFound('image', assetId);
    const family = String(record.fields.asset_family ?? '').toLowerCase();
    if (family !== 'creative') throw invalidParameter('reference_asset_id', `image ${assetId} is not a creative image; generative edits start from creative images`);
    const style = String(record.fields.graphical_style ?? '').toLowerCase();
    if (excludeIllustrations && (style === 'illustration' || style === 'vector')) {
      throw invalidParameter('reference_asset_id', `image ${assetId} is ${style === 'vector' ? 'a vector' : 'an illustration'}; this operation takes photographs`);
    }
    if (!(await this.deps.licensing.hasLicensed(customer.id, assetId))) {
      throw assetNotLicensed(assetId);
    }
    const data = record.original ? await this.deps.blobs.get(record.original.key) : undefined;
    if (!data) throw assetFileNotAvailable(`Image ${assetId} has no stored file to edit`);
    return { picture: await this.deps.decodes.run(() => normalise(data, 'reference_asset_id')), originalAssetId: assetId };
  }

  private async generationReference(customer: Customer, requestId: string, index: number): Promise<Reference> {
    const row = await this.ownRequest(customer, requestId);
    if (row.status !== 'done') throw generationRequestNotFound(`Generation ${requestId} has no results yet (${row.status})`);
    const result = await this.deps.repository.result(requestId, index);
    if (!result) throw generationRequestNotFound(`Generation ${requestId} has no result ${index}`);
    if (result.is_blocked || result.image_key === null) throw generationRequestNotFound(`Result ${index} of generation ${requestId} was blocked by the prompt policy`);
    const data = await this.deps.blobs.get(result.image_key);
    if (!data) throw generatedFileNotFound(`The picture of result ${index} of generation ${requestId} is no longer stored; it cannot be edited`);
    return { picture: await this.deps.decodes.run(() => normalise(data, 'reference_generation')), originalAssetId: row.original_asset_id, source: { requestId, index }, sourcePrompt: row.prompt };
  }

  private async registration(customer: Customer, id: string, category: 'ImageReference' | 'CustomerProduct'): Promise<Picture> {
    const data = await this.deps.registrations.imageOf(customer.id, id, category);
    return this.deps.decodes.run(() => normalise(data, 'reference_file_registration_id'));
  }

  /** The mask an upload of the customer's own holds: grey, the size of the source (white acts). */
  private async mask(url: string, clientId: number, customer: Customer, source: Picture): Promise<Picture> {
    const { bytes } = await this.deps.uploads.fileOf({ clientId, userId: customer.id }, url, 'mask_url');
    const data = await this.deps.decodes.run(async () => {
      try {
        return await sharp(bytes).flatten({ background: '#000000' }).greyscale().resize(source.width, source.height, { fit: 'fill' }).png().toBuffer();
      } catch {
        throw invalidParameter('mask_url', 'the mask is not an image that decodes');
      }
    });
    return { data, width: source.width, height: source.height };
  }

  /** A request of the customer's (another user's is 403; with teamMayRead, a colleague's may be read). */
  private async ownRequest(customer: Customer, id: string, options: { teamMayRead?: boolean; expiredToo?: boolean } = {}): Promise<GenerationRow> {
    const row = ID_PATTERN.test(id) ? await this.deps.repository.find(id) : undefined;
    if (!row) throw generationRequestNotFound(`Generation request not found: ${id}`);
    const mayRead = row.user_id === customer.id || (options.teamMayRead === true && customer.team !== null && row.team === customer.team);
    if (!mayRead) throw notAuthorized(`Generation request ${id} belongs to another user`);
    if (!options.expiredToo && Date.parse(row.expires_at) <= this.deps.now().getTime()) {
      throw generationRequestGone(id, utcDateTime(row.expires_at));
    }
    return row;
  }

  // ── answers ───────────────────────────────────────────────────────────────

  private async waitForAnswer(id: string, waitMs: number): Promise<GenerationAnswer> {
    const until = Date.now() + waitMs;
    for (;;) {
      const row = await this.deps.repository.find(id);
      if (!row) throw generationRequestNotFound(`Generation request not found: ${id}`);
      if (row.status === 'done' || row.status === 'failed' || Date.now() >= until) return this.answer(row);
      await new Promise((resolve) => setTimeout(resolve, Math.min(50, Math.max(1, until - Date.now()))));
    }
  }

  private async answer(row: GenerationRow): Promise<GenerationAnswer> {
    if (row.status === 'failed') throw generationFailed(row.id, row.failure ?? 'no reason given');
    if (row.status !== 'done') return { status: 202, body: { generation_request_id: row.id } };
    const results = await this.deps.repository.results([row.id]);
    return {
      status: 200,
      body: { generation_request_id: row.id, seed: row.seed, results: results.map((result) => this.resultBody(result)), original_asset: { id: row.original_asset_id } },
    };
  }

  private resultBody(result: ResultRow): GenerationResult {
    const previews: PreviewUrl[] =
      result.is_blocked || result.preview_key === null
        ? []
        : [
            {
              preview_size: `${PREVIEW_LONG_SIDE}px`,
              image_url: this.deps.signPath(`/generated/${result.request_id}/${result.result_index}.jpg`),
              width: result.preview_width ?? 0,
              height: result.preview_height ?? 0,
            },
          ];
    return { index: result.result_index, is_blocked: result.is_blocked === 1, preview_urls: previews, url: null };
  }

  private async historyItems(rows: readonly GenerationRow[]) {
    const results = await this.deps.repository.results(rows.map((row) => row.id));
    const users = new Map<number, Customer | undefined>();
    for (const userId of new Set(rows.map((row) => row.user_id))) users.set(userId, await this.deps.products.findCustomer(userId));
    const now = this.deps.now().getTime();
    return rows.map((row) => {
      const user = users.get(row.user_id);
      const kept = Date.parse(row.expires_at) > now;
      return {
        generation_request_id: row.id,
        seed: row.seed,
        generation_date: utcDateTime(row.created_at),
        product_revoked_date: null,
        prompt: row.prompt,
        negative_prompt: row.negative_prompt,
        product_id: row.product_id,
        notes: row.notes,
        project_code: row.project_code,
        generation_type: row.generation_type,
        generation_options: { media_type: row.media_type, aspect_ratio: row.aspect_ratio, mood: row.mood },
        source_generation_request: row.source_request_id === null ? null : { source_generation_request_id: row.source_request_id, source_generation_result_index: row.source_index ?? 0 },
        original_asset: { id: row.original_asset_id },
        status: row.status,
        failure: row.failure,
        results: kept ? results.filter((result) => result.request_id === row.id).map((result) => this.resultBody(result)) : [],
        user: { username: user?.username ?? null, first_name: user?.firstName ?? null, middle_name: null, last_name: user?.lastName ?? null },
      };
    });
  }
}

/** A picture decoded, turned upright, at most SOURCE_LONG_SIDE, as PNG. */
export async function normalise(data: Buffer, parameter: string): Promise<Picture> {
  try {
    const { data: png, info } = await sharp(data)
      .autoOrient()
      .resize(SOURCE_LONG_SIDE, SOURCE_LONG_SIDE, { fit: 'inside', withoutEnlargement: true })
      .png()
      .toBuffer({ resolveWithObject: true });
    return { data: png, width: info.width, height: info.height };
  } catch {
    throw invalidParameter(parameter, 'the picture does not decode as an image');
  }
}

/** The paddings of a background generation, in percent of the product shot's size (0 to 100, as its schema says). */
interface Paddings {
  left_percentage?: number | null | undefined;
  right_percentage?: number | null | undefined;
  top_percentage?: number | null | undefined;
  bottom_percentage?: number | null | undefined;
}

/** The product shot on a transparent canvas, placed by the paddings (percentages of its size). */
async function padPicture(picture: Picture, paddings: Paddings): Promise<Picture> {
  const pad = (name: keyof Paddings, base: number) => Math.round((base * (paddings[name] ?? 0)) / 100);
  const left = pad('left_percentage', picture.width);
  const right = pad('right_percentage', picture.width);
  const top = pad('top_percentage', picture.height);
  const bottom = pad('bottom_percentage', picture.height);
  if (left + right + top + bottom === 0) return picture;
  const data = await sharp(picture.data).extend({ left, right, top, bottom, background: { r: 0, g: 0, b: 0, alpha: 0 } }).png().toBuffer();
  return { data, width: picture.width + left + right, height: picture.height + top + bottom };
}

/** date_start / date_end: an ISO 8601 date (its 00:00:00 UTC) or date-time, read by the one date reader. */
function historyDate(name: string, value: string): Date {
  const read = readIsoDate(value);
  if (!read) throw invalidParameter(name, `'${value}' is not ${ISO_DATE_EXPECTED}`);
  return new Date(read.millis);
}

function assertNever(value: never): never {
  throw new Error(`unhandled generation type ${String(value)}`);
}

/** The grey level from which a mask's pixel counts as white (marked), as the engines read masks. */
const MASK_MARKED_FROM = 128;

/**
 * An object removal fills what the mask marks from the picture around it: a mask that marks
 * every pixel leaves nothing to fill from, so no engine can do it. Refused before anything is
 * queued or charged (the job would only fail later, as a 502).
 */
async function refuseWholePictureMask(mask: Picture): Promise<void> {
  const grey = await sharp(mask.data).toColourspace('b-w').raw().toBuffer();
  if (grey.every((level) => level >= MASK_MARKED_FROM)) {
    throw invalidParameter('mask_url', 'the mask is white all over: it marks the whole picture, which leaves nothing to fill the removed object from. Paint only the object white and the rest black');
  }
}
