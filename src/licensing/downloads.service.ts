import { ISO_DATE_EXPECTED, readIsoDate } from '../platform/http/iso-date.js';
import { createHash } from 'node:crypto';
import type { AssetRecord, AssetType } from '../catalog/catalog.records.js';
import type { CustomerDownloadLinks, DownloadLink } from '../catalog/catalog.service.js';
import { invalidParameter, type ApiError } from '../platform/http/errors.js';
import { assetFileNotAvailable, assetNotFound, assetWithdrawn } from '../catalog/catalog.errors.js';
import { requireDownloadToken, type CustomerGrant } from './customer-access.js';
import {
  allowsSize,
  allowsVector,
  choiceOrder,
  downloadCredits,
  downloadSizeOf,
  isVectorSize,
  largestSize,
  licensableAsset,
  partnerLicensesOf,
  paymentRefusal,
  paysWithCredits,
  periodState,
  typeLicenses,
  type DownloadSize,
  type LicensableAsset,
  type PaymentRefusal,
} from './entitlements.js';
import {
  isUniqueViolation,
  PaymentRefusedError,
  type DownloadRow,
  type DownloadsRepository,
  type HistoryFilter,
  type HistoryRow,
  type LicensedDownloadCount,
} from './downloads.repository.js';
import { DELIVERY_URI_LIFETIME_MS, type AssetKind } from './licensing-policy.js';
import { OrderNotesConflictError, type OrderNotes } from './orders.repository.js';
import {
  companyDownloadsNotEnabled,
  downloadNotesRequired,
  fileTypeNotAvailable,
  idempotencyKeyReused,
  insufficientCredits,
  noAccessToProductType,
  noDownloadableSize,
  orderNotesConflict,
  overageLimitReached,
  pageNumberLessThanOne,
  projectCodeRequired,
  teamCreditsNotAvailable,
  unauthorizedDownloadSize,
} from './licensing.errors.js';
import { utcDateTime } from '../platform/http/date-time.js';
import { type Customer, type Product, type ProductsService } from './products.service.js';
import type { DeliverySpec } from '../media/delivery.js';

/** What the media module needs to make the signed URL of a licensed file (MediaService.deliveryUri): its own type. */
export type { DeliverySpec };

/** An absolute signed URL, valid 24 hours, that serves the licensed file. */
export type DeliveryUri = (spec: DeliverySpec) => string;

/** The catalogue's part: asset records and their thumbnails. */
export interface DownloadCatalog {
  findAssets(assetType: AssetType, ids: readonly string[]): Promise<{ found: AssetRecord[]; notFound: string[] }>;
  thumbUris(assetType: AssetType, ids: readonly string[]): Promise<Map<string, string>>;
  /** Counts a download of the asset (its popularity in search). */
  countDownload(assetType: AssetType, id: string): Promise<void>;
  /** Whether the catalogue withdrew the asset (findAssets finds only published ones): the refusal then says so. */
  wasWithdrawn(assetType: AssetType, id: string): Promise<boolean>;
}

export interface DownloadsServiceDeps {
  repository: DownloadsRepository;
  products: ProductsService;
  catalog: DownloadCatalog;
  deliveryUri: DeliveryUri;
  /** Base of the hypermedia download links (`${publicUrl}/v3/downloads/...`). */
  publicUrl: string;
  /** How long a delivery URI works (STOCKROOM_DELIVERY_URL_TTL): a replay within it returns the same one. */
  deliveryUriLifetimeMs?: number;
  now?: () => Date;
}

export interface DownloadRequest {
  grant: CustomerGrant;
  assetType: AssetKind;
  assetId: string;
  productType?: string | undefined;
  productId?: number | undefined;
  /** images: the pixel height of a download size; blank: the largest the product allows */
  height?: string | undefined;
  /** videos: the name of a download size; blank: the largest */
  size?: string | undefined;
  fileType?: 'jpg' | 'eps' | undefined;
  useTeamCredits: boolean;
  downloadNotes?: string | null | undefined;
  projectCode?: string | null | undefined;
  /** What the order of this purchase says (see OrdersRepository.place); unused by a free download again. */
  order?: OrderNotes | undefined;
  /** Where the download was made (its history's download_source): a web site's name; the API's by default. */
  source?: string | undefined;
  idempotencyKey?: string | undefined;
}

export interface DownloadResult {
  uri: string;
  downloadId: number;
  /** the answer to an earlier request with the same Idempotency-Key */
  replayed: boolean;
}

export interface HistoryQuery {
  dateFrom?: string | undefined;
  dateTo?: string | undefined;
  useTime?: boolean | undefined;
  page?: number | undefined;
  pageSize?: number | undefined;
  productType?: string | undefined;
  companyDownloads?: boolean | undefined;
}

export interface PurchasesQuery {
  dateFrom?: string | undefined;
  dateTo?: string | undefined;
  page?: number | undefined;
  pageSize?: number | undefined;
  companyPurchases?: boolean | undefined;
}

/** GET /downloads: one download in the contract's names (HistoricalDownload). */
export interface HistoricalDownload {
  date_downloaded: string;
  id: string;
  asset_type: string;
  product_type: string;
  thumb_uri: string | null;
  agreement_name: string | null;
  product_id: number;
  download_details: { download_notes: string | null; project_code: string | null };
  download_source: string;
  user: { username: string; first_name: string | null; middle_name: string | null; last_name: string | null };
  size_name: string | null;
  dimensions: { width: number | null; height: number | null; dpi: number | null };
  license_model: string | null;
  /** A download of a generated image: the id POST /v3/ai/redownloads takes; null for catalogue assets. */
  generated_asset_id: string | null;
}

const NOUN: Readonly<Record<AssetKind, string>> = { image: 'Image', video: 'Video' };

const DAY_MS = 86_400_000;
const HISTORY_WINDOW_MS = 30 * DAY_MS;
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * Downloads: which product licenses an asset for a customer, the download itself (record, ledger
 * and debit in one transaction, then the signed delivery URL), the history, the purchases, and the
 * hypermedia download links of the metadata endpoints.
 */
export class DownloadsService {
  private readonly repository: DownloadsRepository;
  private readonly products: ProductsService;
  private readonly catalog: DownloadCatalog;
  private readonly deliveryUri: DeliveryUri;
  private readonly publicUrl: string;
  private readonly deliveryUriLifetimeMs: number;
  private readonly now: () => Date;

  constructor(deps: DownloadsServiceDeps) {
    this.repository = deps.repository;
    this.products = deps.products;
    this.catalog = deps.catalog;
    this.deliveryUri = deps.deliveryUri;
    this.publicUrl = deps.publicUrl.replace(/\/+$/, '');
    this.deliveryUriLifetimeMs = deps.deliveryUriLifetimeMs ?? DELIVERY_URI_LIFETIME_MS;
    this.now = deps.now ?? (() => new Date());
  }

  // ── downloading ───────────────────────────────────────────────────────────

  /** Which of the user's products already license the asset: downloading it again under them is free. */
  async licensedUnder(grant: CustomerGrant, productIds: readonly number[], assetId: string): Promise<Set<number>> {
    const customer = await this.products.customerOf(grant);
    const held = new Set((await this.products.productsOf(customer.id)).map((product) => product.id));
    return this.repository.licensedUnder(productIds.filter((id) => held.has(id)), assetId);
  }

  /**
   * Downloads an asset for the customer behind the token: chooses the product, checks its
   * requirements, records the download and takes its payment atomically, and returns the signed
   * URL of the file. A repeated Idempotency-Key returns the first answer without a second payment.
   */
  async download(request: DownloadRequest): Promise<DownloadResult> {
    const now = this.now();
    const userId = requireDownloadToken(request.grant, now);
    const customer = await this.products.customerOf(request.grant);
    const key = request.idempotencyKey;
    if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) {
      throw invalidParameter('Idempotency-Key', 'give 1 to 255 visible ASCII characters');
    }
    const fingerprint = requestFingerprint(request);
    if (key !== undefined) {
      const earlier = await this.repository.findByIdempotencyKey(userId, key);
      if (earlier) return this.replay(earlier, fingerprint, now);
    }

    const asset = await this.licensableAsset(request.assetType, request.assetId);
    const eps = request.fileType === 'eps';
    if (eps) checkEpsRequest(asset, request);
    const wanted = eps ? undefined : this.wantedSize(asset, request);
    if (request.useTeamCredits && (customer.team === null || !customer.partnerCredit)) {
      throw teamCreditsNotAvailable('use_team_credits needs a partner-credit user who belongs to a team');
    }

    const candidates = await this.candidates(customer, asset, request, now);
    const sizeFor = (product: Product): DownloadSize | undefined =>
      eps
        ? allowsVector(product, asset)
          ? asset.vector
          : undefined
        : wanted !== undefined
          ? allowsSize(product, wanted)
            ? wanted
            : undefined
          : largestSize(asset.sizes.filter((size) => allowsSize(product, size)));
    const sized = candidates.filter((product) => sizeFor(product) !== undefined);
    if (sized.length === 0) {
      throw unauthorizedDownloadSize(asset.assetType, asset.id);
    }
    const licensedUnder = await this.repository.licensedUnder(sized.map((product) => product.id), asset.id);
    const teamCredits = request.useTeamCredits ? await this.products.teamCredits(customer.team!) : undefined;
    const ordered = choiceOrder(sized, licensedUnder);
    const refusalOf = (product: Product) =>
      licensedUnder.has(product.id) ? undefined : paymentRefusal(product, downloadCredits(product.type, asset), now, teamCredits);
    // A product whose requirements (notes, project code) the request does not meet is passed
    // over for one that can take it as it is; when none can, the first that can pay says why.
    const payable = ordered.filter((product) => refusalOf(product) === undefined);
    const chosen = payable.find((product) => requirementProblem(product, request) === undefined) ?? payable[0];
    const payingTeam = request.useTeamCredits ? customer.team : null;
    if (chosen === undefined) throw this.refusal(refusalOf(ordered[0]!)!, ordered[0]!, asset, now, payingTeam);
    const problem = requirementProblem(chosen, request);
    if (problem) throw problem;

    const size = sizeFor(chosen)!;
    const fileType = request.fileType;
    try {
      const recorded = await this.repository.record(
        {
          user_id: userId,
          client_id: request.grant.clientId,
          product_id: chosen.id,
          product_type: chosen.type,
          team: customer.team,
          asset_id: asset.id,
          asset_type: asset.assetType,
          size_name: size.name,
          width: size.width,
          height: size.height,
          dpi: size.dpi,
          bytes: size.bytes,
          file_type: fileType ?? null,
          license_model: asset.licenseModel,
          download_notes: request.downloadNotes ?? null,
          project_code: request.projectCode?.trim() ?? null,
          downloaded_at: now.toISOString(),
          idempotency_key: key ?? null,
          request_fingerprint: key === undefined ? null : fingerprint,
          source: request.source ?? 'api',
        },
        {
          credits: downloadCredits(chosen.type, asset),
          team: payingTeam,
          countsDownload: chosen.downloadLimit !== null,
        },
        (downloadId) => this.deliveryUri(deliverySpec(downloadId, asset.id, asset.assetType, size, fileType)),
        now,
        request.order,
      );
      // Popularity counts licenses: a free download again under the same product adds nothing.
      if (recorded.newLicense) await this.countTowardsPopularity(asset);
      return { uri: recorded.deliveryUri, downloadId: recorded.id, replayed: false };
    } catch (error) {
      if (error instanceof PaymentRefusedError) throw this.refusal(error.refusal, chosen, asset, now, payingTeam);
      if (error instanceof OrderNotesConflictError) throw orderNotesConflict(error);
      // The same key at the same moment: the other request stored it first; answer as it did.
      if (key !== undefined && isUniqueViolation(error)) {
        const earlier = await this.repository.findByIdempotencyKey(userId, key);
        if (earlier) return this.replay(earlier, fingerprint, now);
      }
      throw error;
    }
  }

  /**
   * A download adds to the asset's popularity after its own transaction: the download is done
   * and paid by then, so a failure here must not turn it into an error (a client would try
   * again, and without an Idempotency-Key pay again). A lost count only nudges a ranking.
   */
  private async countTowardsPopularity(asset: LicensableAsset): Promise<void> {
    try {
      await this.catalog.countDownload(asset.assetType, asset.id);
    } catch {
      // see above: the download stands
    }
  }

  /** The answer to an earlier request with the same key: its URI (a fresh one once it has lapsed), never a second payment. */
  private async replay(earlier: DownloadRow, fingerprint: string, now: Date): Promise<DownloadResult> {
    if (earlier.request_fingerprint !== fingerprint) {
      throw idempotencyKeyReused();
    }
    const issuedAt = earlier.delivery_issued_at === null ? Number.NEGATIVE_INFINITY : Date.parse(earlier.delivery_issued_at);
    if (earlier.delivery_uri !== null && now.getTime() - issuedAt < this.deliveryUriLifetimeMs) {
      return { uri: earlier.delivery_uri, downloadId: earlier.id, replayed: true };
    }
    const size: DownloadSize = { name: earlier.size_name, width: earlier.width, height: earlier.height, dpi: earlier.dpi, bytes: earlier.bytes };
    const uri = this.deliveryUri(
      deliverySpec(earlier.id, earlier.asset_id, earlier.asset_type as AssetKind, size, earlier.file_type === 'jpg' || earlier.file_type === 'eps' ? earlier.file_type : undefined),
    );
    await this.repository.updateDelivery(earlier.id, uri, now.toISOString());
    return { uri, downloadId: earlier.id, replayed: true };
  }

  private async licensableAsset(assetType: AssetKind, id: string): Promise<LicensableAsset> {
    const { found } = await this.catalog.findAssets(assetType, [id]);
    const record = found[0];
    const noun = NOUN[assetType];
    if (!record) throw (await this.catalog.wasWithdrawn(assetType, id)) ? assetWithdrawn(assetType, id, 'file') : assetNotFound(assetType, id, 'file');
    // The asset is there (GET shows it) but nothing could be delivered: refused before any payment.
    if (record.original === null) {
      throw assetFileNotAvailable(`${noun} ${id} has no file to download: its record was added without one`);
    }
    const asset = licensableAsset(record);
    // An image is delivered at a size of known pixels; one without any has nothing to download.
    const sizes = assetType === 'image' ? asset.sizes.filter((size) => size.width !== null && size.height !== null) : asset.sizes;
    if (sizes.length === 0) throw noDownloadableSize(`${noun} ${id} has no download size: its record lists none`);
    return { ...asset, sizes };
  }

  /** The size the request names (height for images, size for videos); undefined: the largest the product allows. */
  private wantedSize(asset: LicensableAsset, request: DownloadRequest): DownloadSize | undefined {
    const list = (sizes: readonly DownloadSize[], show: (size: DownloadSize) => string) => sizes.map(show).join(', ');
    if (asset.assetType === 'image') {
      const height = request.height?.trim();
      if (!height) return undefined;
      const found = /^\d{1,6}$/.test(height) ? asset.sizes.find((size) => size.height === Number(height)) : undefined;
      if (!found) {
        throw invalidParameter('height', `image ${asset.id} has no download size ${height} pixels high (heights: ${list(asset.sizes, (s) => String(s.height))})`);
      }
      return found;
    }
    const name = request.size?.trim().toLowerCase();
    if (!name) return undefined;
    const found = asset.sizes.find((size) => size.name?.toLowerCase() === name);
    if (!found) throw invalidParameter('size', `video ${asset.id} has no download size '${request.size}' (sizes: ${list(asset.sizes, (s) => s.name ?? '')})`);
    return found;
  }

  /**
   * The customer's products that may license the asset for this request: held (active, not
   * expired), the one named by product_id / of the type named by product_type, licensing the
   * asset, and paying with credits when team credits are asked for. 403 NoAccessToProductType for none.
   */
  private async candidates(customer: Customer, asset: LicensableAsset, request: DownloadRequest, now: Date): Promise<Product[]> {
    let products = await this.products.heldProducts(customer.id, now);
    if (request.productId !== undefined) {
      products = products.filter((product) => product.id === request.productId);
      if (products.length === 0) throw noAccessToProductType(`You hold no active product ${request.productId}`);
    }
    if (request.productType !== undefined) {
      const type = request.productType;
      products = products.filter((product) => product.type === type);
      if (products.length === 0) throw noAccessToProductType(`You hold no active ${type} product${request.productId === undefined ? '' : ` ${request.productId}`}`);
    }
    const licensing = products.filter((product) => typeLicenses(product.type, asset));
    if (licensing.length === 0) throw noAccessToProductType(`None of your products licenses ${asset.assetType} ${asset.id}`);
    if (!request.useTeamCredits) return licensing;
    const withCredits = licensing.filter((product) => paysWithCredits(product.type));
    if (withCredits.length === 0) throw noAccessToProductType(`Team credits pay through a credit product, and none of yours licenses ${asset.assetType} ${asset.id}`);
    return withCredits;
  }

  private refusal(refusal: PaymentRefusal, product: Product, asset: LicensableAsset, now: Date, team: string | null): ApiError {
    if (refusal === 'InsufficientCredits') {
      const cost = downloadCredits(product.type, asset);
      const left = team === null ? `product ${product.id} has ${product.creditsRemaining ?? 0} left` : `team ${team} has fewer left`;
      return insufficientCredits(`Not enough credits: ${asset.assetType} ${asset.id} costs ${cost} credits, and ${left}`);
    }
    const resetsAt = periodState(product, now).resetsAt;
    return overageLimitReached(product.id, resetsAt === null ? '' : ` until ${utcDateTime(resetsAt)}`);
  }

  // ── history and purchases ─────────────────────────────────────────────────

  /** GET /downloads: the customer's (or the team's) downloads in a date window, newest first. */
  async history(grant: CustomerGrant, query: HistoryQuery): Promise<{ result_count: number; downloads: HistoricalDownload[] }> {
    const customer = await this.products.customerOf(grant);
    const filter = this.whose(customer, query.companyDownloads ?? false, 'company_downloads');
    const { from, until } = dateWindow(query, this.now());
    if (query.productType !== undefined) filter.productType = query.productType;
    const page = this.page(query.page, query.pageSize, 30);
    const { total, rows } = await this.repository.list({ ...filter, from, until }, page.offset, page.limit);
    return { result_count: total, downloads: await this.historical(rows) };
  }

  /** GET /images/{id}/downloadhistory, /videos/{id}/downloadhistory: the downloads of one asset. */
  async assetHistory(grant: CustomerGrant, assetType: AssetKind, assetId: string, companyDownloads: boolean) {
    const customer = await this.products.customerOf(grant);
    const { found } = await this.catalog.findAssets(assetType, [assetId]);
    if (found.length === 0) {
      throw assetNotFound(assetType, assetId);
    }
    const filter = { ...this.whose(customer, companyDownloads, 'company_downloads'), assetType, assetId };
    const { rows } = await this.repository.list(filter, 0, 1000);
    return { id: assetId, downloads: await this.historical(rows) };
  }

  /**
   * GET /purchased-assets and /purchased-images. A purchase here is a download that licensed its
   * asset (the first under its product); downloading it again is free and buys nothing.
   */
  async purchases(grant: CustomerGrant, assetType: AssetKind | undefined, query: PurchasesQuery) {
    const customer = await this.products.customerOf(grant);
    const filter: HistoryFilter = { ...this.whose(customer, query.companyPurchases ?? false, 'company_purchases'), purchasesOnly: true };
    if (assetType !== undefined) filter.assetType = assetType;
    if (query.dateFrom !== undefined) filter.from = dayStart(parseDate('date_from', query.dateFrom)).toISOString();
    if (query.dateTo !== undefined) filter.until = new Date(dayStart(parseDate('date_to', query.dateTo)).getTime() + DAY_MS).toISOString();
    if (filter.from !== undefined && filter.until !== undefined && filter.from >= filter.until) {
      throw invalidParameter('date_from', 'must not be after date_to');
    }
    if (query.page !== undefined && query.page < 1) throw pageNumberLessThanOne();
    const page = this.page(query.page, query.pageSize, 75);
    const { total, rows } = await this.repository.list(filter, page.offset, page.limit);
    const thumbs = await this.thumbs(rows);
    return {
      result_count: total,
      previous_purchases: rows.map((row) => ({
        date_purchased: utcDateTime(row.downloaded_at),
        purchased_by: row.username,
        asset_id: row.asset_id,
        // purchased-images names it image_id (each endpoint's schema keeps its own fields)
        image_id: row.asset_id,
        asset_type: row.asset_type,
        license_model: row.license_model,
        order_id: row.order_id === null ? null : String(row.order_id),
        thumb_uri: thumbs.get(`${row.asset_type}:${row.asset_id}`) ?? null,
        size_name: row.size_name,
        file_size_in_bytes: row.bytes === null ? null : String(row.bytes),
        // Downloading it again under the same product is free: the link to do so.
        download_uri: this.linkUri(row.asset_type as AssetKind, row.asset_id, { name: row.size_name, height: row.height }, row.product_id, row.product_type),
      })),
    };
  }

  /**
   * The downloads that licensed their asset with dates from `fromDay` to `toDay` (YYYY-MM-DD,
   * both whole days in UTC), per asset and client: what usage reports are set beside.
   */
  licensedDownloads(fromDay: string, toDay: string): Promise<LicensedDownloadCount[]> {
    const until = new Date(Date.parse(`${toDay}T00:00:00Z`) + DAY_MS).toISOString();
    return this.repository.licensedCounts(`${fromDay}T00:00:00.000Z`, until);
  }

  private whose(customer: Customer, company: boolean, parameter: string): HistoryFilter {
    if (!company) return { userId: customer.id };
    if (customer.team === null) {
      throw companyDownloadsNotEnabled(parameter);
    }
    return { team: customer.team };
  }

  private page(page: number | undefined, pageSize: number | undefined, defaultSize: number) {
    const size = pageSize ?? defaultSize;
    return { offset: ((page ?? 1) - 1) * size, limit: size };
  }

  private async thumbs(rows: readonly HistoryRow[]): Promise<Map<string, string>> {
    const thumbs = new Map<string, string>();
    for (const assetType of ['image', 'video'] as const) {
      const ids = [...new Set(rows.filter((row) => row.asset_type === assetType).map((row) => row.asset_id))];
      if (ids.length === 0) continue;
      for (const [id, uri] of await this.catalog.thumbUris(assetType, ids)) thumbs.set(`${assetType}:${id}`, uri);
    }
    return thumbs;
  }

  private async historical(rows: readonly HistoryRow[]): Promise<HistoricalDownload[]> {
    const thumbs = await this.thumbs(rows);
    return rows.map((row) => ({
      date_downloaded: utcDateTime(row.downloaded_at),
      id: row.asset_id,
      asset_type: row.asset_type,
      product_type: row.product_type,
      thumb_uri: thumbs.get(`${row.asset_type}:${row.asset_id}`) ?? null,
      agreement_name: row.agreement_name,
      product_id: row.product_id,
      download_details: { download_notes: row.download_notes, project_code: row.project_code },
      download_source: row.source,
      user: { username: row.username, first_name: row.first_name, middle_name: null, last_name: row.last_name },
      size_name: row.size_name,
      dimensions: { width: row.width, height: row.height, dpi: row.dpi },
      license_model: row.license_model,
      generated_asset_id: row.generated_asset_id,
    }));
  }

  // ── hypermedia links ──────────────────────────────────────────────────────

  /**
   * The links the metadata endpoints show in `downloads` and `largest_downloads`: for each size,
   * one per held product that licenses the asset at that size, in the order a download without
   * product_id would try them. The products are read once; every size is then answered in memory.
   */
  async downloadLinksFor(userId: number): Promise<CustomerDownloadLinks> {
    const held = await this.products.heldProducts(userId, this.now());
    const assets = new WeakMap<AssetRecord, { asset: LicensableAsset; products: Product[] }>();
    const licensing = (record: AssetRecord) => {
      let entry = assets.get(record);
      if (entry === undefined) {
        const asset = licensableAsset(record);
        entry = { asset, products: choiceOrder(held.filter((product) => typeLicenses(product.type, asset)), new Set()) };
        assets.set(record, entry);
      }
      return entry;
    };
    return {
      // The first product in the choice order: the one a download without product_id uses.
      downloadProductFor: (record) => licensing(record).products[0]?.type ?? null,
      linksFor: (record, rawSize): DownloadLink[] => {
        const entry = licensing(record);
        const size = downloadSizeOf(rawSize);
        const vector = isVectorSize(rawSize);
        const { asset } = entry;
        return entry.products
          .filter((product) => (vector ? allowsVector(product, asset) : allowsSize(product, size)))
          .map((product) => ({
            product_id: String(product.id),
            product_type: product.type,
            uri: this.linkUri(asset.assetType, record.id, size, product.id, product.type, vector),
            agreement_name: product.agreementName,
          }));
      },
    };
  }

  /** partner_licenses of an asset whose record lists none: the credits this server charges for it (see entitlements). */
  partnerLicensesOf(record: AssetRecord): Array<{ license_type: string; credits: number }> {
    return partnerLicensesOf(record);
  }

  /** The URI to POST to download one size of an asset with one product. */
  private linkUri(
    assetType: AssetKind,
    assetId: string,
    size: Pick<DownloadSize, 'name' | 'height'>,
    productId: number,
    productType: string,
    vector = false,
  ): string {
    const query = new URLSearchParams();
    if (vector) query.set('file_type', 'eps');
    else if (assetType === 'image' && size.height !== null) query.set('height', String(size.height));
    if (assetType === 'video' && size.name !== null) query.set('size', size.name);
    query.set('product_id', String(productId));
    query.set('product_type', productType);
    return `${this.publicUrl}/v3/downloads/${assetType}s/${encodeURIComponent(assetId)}?${query.toString()}`;
  }
}

/** A product may demand download notes and a project code (one of its list, when it has one). */
/** The error a download under this product would answer for its requirements, or undefined when the request meets them. */
function requirementProblem(product: Product, request: DownloadRequest): ApiError | undefined {
  const notes = request.downloadNotes?.trim();
  const code = request.projectCode?.trim();
  if (product.noteRequired && !notes) {
    return downloadNotesRequired(product.id);
  }
  if (product.projectCodeRequired && !code) {
    return projectCodeRequired(product.id);
  }
  if (code && product.projectCodes.length > 0 && !product.projectCodes.includes(code)) {
    return invalidParameter('project_code', `'${code}' is not one of the project codes of product ${product.id}: ${product.projectCodes.join(', ')}`);
  }
  return undefined;
}

function deliverySpec(downloadId: number, assetId: string, assetType: AssetKind, size: DownloadSize, fileType: 'jpg' | 'eps' | undefined): DeliverySpec {
  const spec: DeliverySpec = { downloadId, assetId, assetType, sizeName: size.name ?? (assetType === 'image' ? `${size.height}px` : 'video') };
  if (assetType === 'image') {
    if (size.height !== null) spec.height = size.height;
    if (size.width !== null) spec.width = size.width;
    if (fileType !== undefined) spec.fileType = fileType;
  }
  return spec;
}

/**
 * A download of an image's EPS: the image must have one (400 FileTypeNotAvailable, before any
 * payment), and the EPS has one size, so a height is not for it.
 */
function checkEpsRequest(asset: LicensableAsset, request: DownloadRequest): void {
  if (asset.assetType !== 'image' || asset.vector === undefined) {
    throw fileTypeNotAvailable(asset.assetType, asset.id);
  }
  if (request.height?.trim()) throw invalidParameter('height', 'an EPS file has one size: leave height out with file_type=eps');
}

/** What a download request asks for, independent of how it wants the answer (auto_download) or which path form it used. */
function requestFingerprint(request: DownloadRequest): string {
  const asked = [
    request.assetType,
    request.assetId,
    request.productType ?? null,
    request.productId ?? null,
    request.height?.trim() || null,
    request.size?.trim().toLowerCase() || null,
    request.fileType ?? null,
    request.useTeamCredits,
    request.downloadNotes ?? null,
    request.projectCode ?? null,
    request.order?.purchaseOrderNumber ?? null,
    request.order?.endClient ?? null,
    request.order?.licenseeName ?? null,
    request.order?.projectTitle ?? null,
    request.order?.orderedBy ?? null,
  ];
  return createHash('sha256').update(JSON.stringify(asked)).digest('hex');
}

/** An ISO 8601 date or date-time (the route's schema has checked it); without a zone, UTC. */
function parseDate(parameter: string, value: string): Date {
  const read = readIsoDate(value);
  if (!read) throw invalidParameter(parameter, `'${value}' is not ${ISO_DATE_EXPECTED}`);
  return new Date(read.millis);
}

function dayStart(date: Date): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
}

/**
 * The contract's window of GET /downloads: date_to defaults to the earlier of today and
 * date_from + 30 days, date_from to date_to − 30 days; both are whole days (date_to included)
 * unless use_time, when their times count.
 */
export function dateWindow(query: Pick<HistoryQuery, 'dateFrom' | 'dateTo' | 'useTime'>, now: Date): { from: string; until: string } {
  const useTime = query.useTime ?? false;
  const givenFrom = query.dateFrom === undefined ? undefined : parseDate('date_from', query.dateFrom);
  const givenTo = query.dateTo === undefined ? undefined : parseDate('date_to', query.dateTo);
  const to = givenTo ?? (givenFrom === undefined ? now : new Date(Math.min(now.getTime(), givenFrom.getTime() + HISTORY_WINDOW_MS)));
  const from = givenFrom ?? new Date(to.getTime() - HISTORY_WINDOW_MS);
  if (from.getTime() > to.getTime()) throw invalidParameter('date_from', 'date_from is after date_to');
  if (useTime) return { from: from.toISOString(), until: new Date(to.getTime() + 1).toISOString() };
  return { from: dayStart(from).toISOString(), until: new Date(dayStart(to).getTime() + DAY_MS).toISOString() };
}
