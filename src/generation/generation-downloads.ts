import type { Logger } from 'pino';
import type { BlobStore } from '../platform/blobs/blob-store.js';
import { invalidParameter } from '../platform/http/errors.js';
import {
  downloadInProgress,
  downloadNotFound,
  downloadPreparationFailed,
  generatedAssetNotFound,
  generatedFileNotFound,
  generationRequestGone,
  generationRequestNotFound,
  generationResultNotFound,
  notAuthorized,
  originalNotLicensed,
} from './generation.errors.js';
import type { CustomerGrant } from '../licensing/customer-access.js';
import type { DeliverySpec } from '../media/delivery.js';
import type { Customer, ProductsService } from '../licensing/products.service.js';
import { utcDateTime } from '../platform/http/date-time.js';
import type { AiGenerationLicensing } from '../licensing/ai-generation.service.js';
import type { GenerationRepository, GenerationRow, ResultRow } from './generation.repository.js';
import type { GenerationDownloadsRepository, PreparedDownloadRow } from './generation-downloads.repository.js';
import type { DownloadPreparations } from './download-preparations.js';

/** The sizes a result is downloaded at: its longest side, the aspect kept. */
export const GENERATED_DOWNLOAD_SIZES = { '1k': 1024, '4k': 4096 } as const;
export type GeneratedSizeName = keyof typeof GENERATED_DOWNLOAD_SIZES;

const REQUEST_ID = /^[0-9a-f]{32}$/;
/** A generated asset: one result of a request, `<generation_request_id>-<index>`. */
const GENERATED_ASSET_ID = /^([0-9a-f]{32})-(\d{1,9})$/;
/** What a delivery URL names: one prepared file, `<generated_asset_id>-<size>`. */
const DELIVERED_FILE = /^([0-9a-f]{32})-(\d{1,9})-(1k|4k)$/;

export function generatedAssetId(requestId: string, index: number): string {
  return `${requestId}-${index}`;
}

export interface DownloadBody {
  size_name?: string | null | undefined;
  notes?: string | null | undefined;
  project_code?: string | null | undefined;
}

export interface RedownloadBody extends DownloadBody {
  generated_asset_id?: string | null | undefined;
  product_id?: number | null | undefined;
}

export type DownloadAnswer = { status: 200; body: { url: string; generated_asset_id: string } } | { status: 202; body: undefined };

export interface GenerationDownloadsDeps {
  repository: GenerationRepository;
  files: GenerationDownloadsRepository;
  /** Prepares the files, as jobs any node may run. */
  preparations: DownloadPreparations;
  blobs: BlobStore;
  products: ProductsService;
  licensing: AiGenerationLicensing;
  /** The signed delivery URL of a download's file (media's delivery signer). */
  deliveryUri: (spec: DeliverySpec) => string;
  /** How long PUT …/download waits for the file before answering 202. */
  waitMs: number;
  log: Logger;
  now: () => Date;
}

/**
 * Downloads of generated images (§3.22): the sizes a result comes in, the file of a size
 * prepared once as a job (a resize, or an upscale by the engine that upscales), every download
 * recorded in the download history with its generated_asset_id, and the file delivered behind
 * media's signed delivery URLs. The files are made by DownloadPreparations.
 */
export class GenerationDownloads {
  constructor(private readonly deps: GenerationDownloadsDeps) {}

  /** GET …/images/{index}/download-sizes. */
  async sizes(grant: CustomerGrant, requestId: string, index: number) {
    const customer = await this.deps.products.customerOf(grant);
    const { result } = await this.ownResult(customer, requestId, index);
    return {
      download_sizes: (Object.keys(GENERATED_DOWNLOAD_SIZES) as GeneratedSizeName[]).map((size_name) => ({ size_name, ...fitLongestSide(result, GENERATED_DOWNLOAD_SIZES[size_name]) })),
    };
  }

  /** PUT …/images/{index}/download: 200 with the URL when the file is ready within the wait, else 202; 409 while one is prepared. */
  async download(grant: CustomerGrant, clientId: number, requestId: string, index: number, body: DownloadBody): Promise<DownloadAnswer> {
    const customer = await this.deps.products.customerOf(grant);
    const sizeName = sizeNameOf(body.size_name);
    const { row, result } = await this.ownResult(customer, requestId, index, { stored: true });
    return this.deliverOrQueue(customer, clientId, row, result, sizeName, body, row.product_id, { conflict: true });
  }

  /** GET …/images/{index}/download: the state of the user's latest download of the result. */
  async status(grant: CustomerGrant, requestId: string, index: number): Promise<DownloadAnswer> {
    const customer = await this.deps.products.customerOf(grant);
    await this.ownResult(customer, requestId, index);
    const assetId = generatedAssetId(requestId, index);
    const latest = await this.deps.licensing.latestGeneratedDownload(customer.id, assetId);
    const file = latest?.size_name ? await this.deps.files.find(requestId, index, latest.size_name) : undefined;
    if (!latest || !file) throw downloadNotFound(requestId, index);
    return this.answer(latest.id, file);
  }

  /** POST /v3/ai/redownloads: a result downloaded before, again, under the product named. */
  async redownload(grant: CustomerGrant, clientId: number, body: RedownloadBody): Promise<DownloadAnswer> {
    const customer = await this.deps.products.customerOf(grant);
    const id = body.generated_asset_id?.trim() ?? '';
    if (!id) throw invalidParameter('generated_asset_id', 'the generated_asset_id of an earlier download (GET /v3/downloads) is required');
    if (body.product_id == null) throw invalidParameter('product_id', 'the AI generation product to download under is required (GET /v3/products)');
    const sizeName = sizeNameOf(body.size_name);
    const match = GENERATED_ASSET_ID.exec(id);
    const downloaded = match ? await this.deps.licensing.latestGeneratedDownload(customer.id, id) : undefined;
    if (!match || !downloaded) throw generatedAssetNotFound(id);
    const { row, result } = await this.ownResult(customer, match[1]!, Number(match[2]), { stored: true });
    return this.deliverOrQueue(customer, clientId, row, result, sizeName, body, body.product_id, { conflict: false });
  }

  /**
   * Where the prepared file a delivery URL names is stored (media's delivery reads it); undefined
   * for anything else. A prepared file whose bytes went away is 404 GeneratedFileNotFound (not
   * media's VideoNotFound: the URL names a generated image), and is marked for preparing anew.
   */
  async preparedFile(deliveredId: string): Promise<{ originalKey: string } | undefined> {
    const match = DELIVERED_FILE.exec(deliveredId);
    if (!match) return undefined;
    const file = await this.deps.files.find(match[1]!, Number(match[2]), match[3]!);
    if (file?.status !== 'ready' || !file.file_key) return undefined;
    if (!(await this.stillStored(file))) {
      throw generatedFileNotFound(`The ${file.size_name} file of generated asset ${file.generated_asset_id} is no longer stored: PUT …/download again to prepare it anew`);
    }
    return { originalKey: file.file_key };
  }

  /** Whether a ready file's bytes are still in the store; one that went away is marked so that the next download prepares it again. */
  private async stillStored(file: PreparedDownloadRow): Promise<boolean> {
    if (file.status !== 'ready' || !file.file_key) return true;
    if ((await this.deps.blobs.size(file.file_key)) !== undefined) return true;
    this.deps.log.warn({ file: file.id, key: file.file_key }, 'a prepared generated download is no longer in the blob store; it will be prepared again');
    await this.deps.files.markMissing(file.id, file.file_key);
    return false;
  }

  private async deliverOrQueue(
    customer: Customer,
    clientId: number,
    row: GenerationRow,
    result: ResultRow,
    sizeName: GeneratedSizeName,
    body: DownloadBody,
    productId: number,
    options: { conflict: boolean },
  ): Promise<DownloadAnswer> {
    const { deps } = this;
    // The generation's AI product (or the one a redownload names), its notes and project-code rules as for a generation.
    const product = await deps.licensing.chooseProduct(customer, { productId, notes: body.notes, projectCode: body.project_code });
    if (row.original_asset_id !== null && !(await deps.licensing.mayDownloadEditOf(customer.id, row.original_asset_id))) {
      throw originalNotLicensed(row.original_asset_id);
    }
    const assetId = generatedAssetId(row.id, result.result_index);
    if (options.conflict && (await deps.files.preparing(row.id, result.result_index))) throw downloadInProgress(row.id, result.result_index);
    // A file made before whose bytes went away is made again, rather than handed out as a URL that finds nothing.
    const made = await deps.files.find(row.id, result.result_index, sizeName);
    if (made) await this.stillStored(made);
    const queued = await deps.files.enqueue({ generatedAssetId: assetId, requestId: row.id, index: result.result_index, sizeName, userId: customer.id }, deps.now());
    if (queued === 'busy' && options.conflict) throw downloadInProgress(row.id, result.result_index);
    const { width, height } = fitLongestSide(result, GENERATED_DOWNLOAD_SIZES[sizeName]);
    const recorded = await deps.licensing.recordGeneratedDownload(
      {
        userId: customer.id,
        clientId,
        productId: product.id,
        team: customer.team,
        generatedAssetId: assetId,
        sizeName,
        width,
        height,
        notes: body.notes?.trim() || null,
        projectCode: body.project_code?.trim() || null,
      },
      (downloadId) => this.deliveryUrl(downloadId, assetId, sizeName),
    );
    if (queued === 'queued') deps.preparations.wake();
    const until = Date.now() + deps.waitMs;
    for (;;) {
      const file = await deps.files.find(row.id, result.result_index, sizeName);
      if (!file) throw new Error('a queued download file vanished');
      if (file.status !== 'preparing' || Date.now() >= until) return this.answer(recorded.id, file);
      await new Promise((resolve) => setTimeout(resolve, Math.min(50, Math.max(1, until - Date.now()))));
    }
  }

  private answer(downloadId: number, file: PreparedDownloadRow): DownloadAnswer {
    if (file.status === 'preparing') return { status: 202, body: undefined };
    if (file.status === 'failed') {
      throw downloadPreparationFailed(file.size_name, file.generated_asset_id);
    }
    return { status: 200, body: { url: this.deliveryUrl(downloadId, file.generated_asset_id, file.size_name), generated_asset_id: file.generated_asset_id } };
  }

  private deliveryUrl(downloadId: number, assetId: string, sizeName: string): string {
    // A stored file delivered as it is (a PNG, transparency kept), as media delivers a stored original.
    // The file is named stockroom-<generated_asset_id>-<size>-generated.png.
    return this.deps.deliveryUri({ downloadId, assetId: `${assetId}-${sizeName}`, assetType: 'video', sizeName: 'generated' });
  }

  /**
   * A done result of the user's own request, kept still. With `stored`, its picture must still be
   * in the blob store (a download is made from it): 404 GeneratedFileNotFound when it went away.
   */
  private async ownResult(customer: Customer, requestId: string, index: number, options: { stored?: boolean } = {}): Promise<{ row: GenerationRow; result: ResultRow }> {
    const row = REQUEST_ID.test(requestId) ? await this.deps.repository.find(requestId) : undefined;
    if (!row) throw generationRequestNotFound(`Generation request not found: ${requestId}`);
    if (row.user_id !== customer.id) throw notAuthorized(`Generation request ${requestId} belongs to another user`);
    if (Date.parse(row.expires_at) <= this.deps.now().getTime()) {
      throw generationRequestGone(requestId, utcDateTime(row.expires_at));
    }
    if (row.status !== 'done') throw generationResultNotFound(`Generation ${requestId} is ${row.status}: it has no results to download`);
    const result = await this.deps.repository.result(requestId, index);
    if (!result || result.is_blocked || !result.image_key || !result.width || !result.height) {
      throw generationResultNotFound(`Generation ${requestId} has no result ${index} to download`);
    }
    if (options.stored && (await this.deps.blobs.size(result.image_key)) === undefined) {
      throw generatedFileNotFound(`The picture of result ${index} of generation ${requestId} is no longer stored; it cannot be downloaded`);
    }
    return { row, result };
  }
}


function sizeNameOf(value: string | null | undefined): GeneratedSizeName {
  const name = value ?? '';
  if (!name.trim()) throw invalidParameter('size_name', `a size is required: ${Object.keys(GENERATED_DOWNLOAD_SIZES).join(' or ')} (GET …/download-sizes)`);
  if (!(name in GENERATED_DOWNLOAD_SIZES)) throw invalidParameter('size_name', `'${name.slice(0, 40)}' is not a download size: ${Object.keys(GENERATED_DOWNLOAD_SIZES).join(' or ')}`);
  return name as GeneratedSizeName;
}

/** The size at this longest side, the aspect kept. */
export function fitLongestSide(picture: { width: number | null; height: number | null }, longestSide: number): { width: number; height: number } {
  const width = picture.width ?? 0;
  const height = picture.height ?? 0;
  const scale = longestSide / Math.max(width, height, 1);
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}
