/*
 * The rules of a download, as pure functions over a product and an asset: which product licenses
 * which asset and at which sizes, what it costs, what is left in the current period, and which
 * product a download uses. No I/O: the service gathers the facts, these decide.
 */
import type { AssetRecord } from '../catalog/catalog.records.js';
import {
  PRODUCT_CHOICE_ORDER,
  PRODUCT_POLICIES,
  RESOLUTION_LONG_EDGES,
  EXTENDED_LICENSE_CREDITS,
  EXTENDED_LICENSE_TYPES,
  STANDARD_CREDITS,
  type AssetKind,
  type ExtendedLicenseType,
  type DownloadLimitDuration,
} from './licensing-policy.js';
import type { ProductType } from '../catalog/product-types.js';
import { EPS_MEDIA_TYPE } from '../media/eps-file.js';

/** What the rules need to know of a product a customer holds. */
export interface Entitlement {
  id: number;
  type: ProductType;
  status: 'active' | 'inactive';
  /** ISO 8601; null: it does not expire */
  expiresAt: string | null;
  createdAt: string;
  creditsRemaining: number | null;
  downloadLimit: number | null;
  downloadLimitDuration: DownloadLimitDuration | null;
  downloadsUsed: number;
  downloadPeriodEndsAt: string | null;
  overageLimit: number | null;
  overageCount: number;
  imagepackResolution: string | null;
}

/** What the rules need to know of an asset. */
export interface LicensableAsset {
  id: string;
  assetType: AssetKind;
  family: string | null;
  licenseModel: string | null;
  productTypes: readonly string[];
  partnerCollection: string | null;
  partnerLicenses: ReadonlyArray<{ license_type?: unknown; credits?: unknown }>;
  /** The sizes delivered as JPEG (an image's raster sizes; a video's sizes). */
  sizes: readonly DownloadSize[];
  /** An image's EPS (vector) original, the download size named `vector` (file_type=eps); its box in points. */
  vector?: DownloadSize | undefined;
}

/** One downloadable size of an asset, as the catalogue lists it. */
export interface DownloadSize {
  name: string | null;
  width: number | null;
  height: number | null;
  dpi: number | null;
  bytes: number | null;
}

/** Why a product that licenses an asset cannot pay for a download now. */
export type PaymentRefusal = 'InsufficientCredits' | 'OverageLimitReached';

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function whole(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

export function licensableAsset(record: AssetRecord): LicensableAsset {
  const fields = record.fields;
  const sizes = Array.isArray(fields.download_sizes) ? (fields.download_sizes as Array<Record<string, unknown>>) : [];
  const vector = sizes.find(isVectorSize);
  return {
    id: record.id,
    assetType: record.asset_type,
    family: text(fields.asset_family),
    licenseModel: text(fields.license_model),
    productTypes: Array.isArray(fields.product_types) ? (fields.product_types as string[]) : [],
    partnerCollection: text(fields.partner_collection),
    partnerLicenses: Array.isArray(fields.partner_licenses) ? (fields.partner_licenses as LicensableAsset['partnerLicenses']) : [],
    sizes: sizes.filter((size) => !isVectorSize(size)).map(downloadSizeOf),
    vector: vector === undefined ? undefined : downloadSizeOf(vector),
  };
}

/** The entry of an image's download_sizes that is its EPS file (media type application/postscript). */
export function isVectorSize(size: Record<string, unknown>): boolean {
  return size.media_type === EPS_MEDIA_TYPE;
}

/**
 * A product licenses an asset's EPS when it licenses the asset's largest raster size: a vector
 * scales to any size, so a product limited to smaller pictures (imagepack_resolution) does not.
 */
export function allowsVector(product: Pick<Entitlement, 'imagepackResolution'>, asset: Pick<LicensableAsset, 'sizes'>): boolean {
  const largest = largestSize(asset.sizes);
  return largest !== undefined && allowsSize(product, largest);
}

/** One entry of an asset's download_sizes, as the rules read it. */
export function downloadSizeOf(size: Record<string, unknown>): DownloadSize {
  return { name: text(size.name), width: whole(size.width), height: whole(size.height), dpi: whole(size.dpi), bytes: whole(size.bytes) };
}

/** Active and not expired at `now`. */
export function isHeld(product: Pick<Entitlement, 'status' | 'expiresAt'>, now: Date): boolean {
  return product.status === 'active' && (product.expiresAt === null || Date.parse(product.expiresAt) > now.getTime());
}

/** The product type licenses the asset: the asset lists the type, and the type's policy takes its kind, family and license model. */
export function typeLicenses(type: ProductType, asset: LicensableAsset): boolean {
  const policy = PRODUCT_POLICIES[type];
  return (
    asset.productTypes.includes(type) &&
    policy.assetTypes.includes(asset.assetType) &&
    (asset.family === null || policy.families.includes(asset.family)) &&
    (asset.licenseModel === null || policy.licenseModels.includes(asset.licenseModel))
  );
}

/** The size is within the product's imagepack_resolution (its longest edge at most the resolution's). */
export function allowsSize(product: Pick<Entitlement, 'imagepackResolution'>, size: DownloadSize): boolean {
  if (product.imagepackResolution === null) return true;
  // A resolution this server does not know allows nothing (grant refuses them; a stray one must not mean "any size").
  const limit = Object.hasOwn(RESOLUTION_LONG_EDGES, product.imagepackResolution) ? RESOLUTION_LONG_EDGES[product.imagepackResolution]! : 0;
  return Math.max(size.width ?? 0, size.height ?? 0) <= limit;
}

function area(size: DownloadSize): number {
  return (size.width ?? 0) * (size.height ?? 0) || (size.bytes ?? 0);
}

/** The largest of some sizes (by pixels, then bytes); undefined for none. */
export function largestSize(sizes: readonly DownloadSize[]): DownloadSize | undefined {
  let best: DownloadSize | undefined;
  for (const size of sizes) if (best === undefined || area(size) > area(best)) best = size;
  return best;
}

/** Credits of a standard license of the asset: its partner_licenses say, else the policy table. */
export function standardCredits(asset: LicensableAsset): number {
  for (const license of asset.partnerLicenses) {
    if (typeof license.license_type === 'string' && license.license_type.toLowerCase() === 'standard') {
      const credits = whole(license.credits);
      if (credits !== null && credits >= 0) return credits;
    }
  }
  const byCollection = STANDARD_CREDITS[asset.assetType];
  return asset.partnerCollection === 'essentials' || asset.partnerCollection === 'signature'
    ? byCollection[asset.partnerCollection]
    : byCollection.other;
}

/** The contract's names of the licenses (PartnerLicense.license_type). */
const LICENSE_NAMES: Readonly<Record<ExtendedLicenseType, string>> = { multiseat: 'Multiseat', unlimited: 'Unlimited', resale: 'Resale', indemnification: 'Indemnification' };

/**
 * partner_licenses of an asset whose record lists none: what this server charges in credits for
 * its standard license (STANDARD_CREDITS) and for each extended one (EXTENDED_LICENSE_CREDITS),
 * the prices a download with a credit pack and POST /asset-licensing use. None for an asset
 * credits cannot buy (editorial, or not sold for credits).
 */
export function partnerLicensesOf(record: AssetRecord): Array<{ license_type: string; credits: number }> {
  const asset = licensableAsset(record);
  if (!typeLicenses('creditpack', asset)) return [];
  return [
    { license_type: 'Standard', credits: standardCredits(asset) },
    ...EXTENDED_LICENSE_TYPES.map((type) => ({ license_type: LICENSE_NAMES[type], credits: EXTENDED_LICENSE_CREDITS[type] })),
  ];
}

/** Credits a download that licenses the asset costs under a product of this type. */
export function downloadCredits(type: ProductType, asset: LicensableAsset): number {
  return PRODUCT_POLICIES[type].payment === 'credits' ? standardCredits(asset) : 0;
}

export function paysWithCredits(type: ProductType): boolean {
  return PRODUCT_POLICIES[type].payment === 'credits';
}

/** `from` moved on by `count` periods, in UTC; a month end stays within its month (31 Jan + 1 month = 28/29 Feb). */
export function addPeriods(from: Date, duration: DownloadLimitDuration, count: number): Date {
  if (duration === 'day') return new Date(from.getTime() + count * 86_400_000);
  const months = duration === 'month' ? count : count * 12;
  const year = from.getUTCFullYear();
  const month = from.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const result = new Date(from.getTime());
  result.setUTCFullYear(year, month, Math.min(from.getUTCDate(), lastDay));
  return result;
}

/** The end of the period, counted from `anchor` in whole periods, that `now` falls in. */
export function periodEndAfter(anchor: Date, duration: DownloadLimitDuration, now: Date): Date {
  // Start from an estimate by the shortest length of such a period (a daily product may be years old), then settle.
  const shortest = { day: 86_400_000, month: 28 * 86_400_000, year: 365 * 86_400_000 }[duration];
  let count = Math.max(1, Math.floor((now.getTime() - anchor.getTime()) / shortest));
  while (count > 1 && addPeriods(anchor, duration, count - 1).getTime() > now.getTime()) count -= 1;
  while (addPeriods(anchor, duration, count).getTime() <= now.getTime()) count += 1;
  return addPeriods(anchor, duration, count);
}

/** A product's download counts as of `now`: a period that has ended counts from zero again. */
export interface PeriodState {
  downloadsUsed: number;
  overageCount: number;
  /** when the counts start again; null for a limit that never resets */
  resetsAt: Date | null;
  /** true when the stored counts belong to a period that has ended */
  rolled: boolean;
}

export function periodState(product: Entitlement, now: Date): PeriodState {
  if (product.downloadLimitDuration === null) {
    return { downloadsUsed: product.downloadsUsed, overageCount: product.overageCount, resetsAt: null, rolled: false };
  }
  const storedEnd = product.downloadPeriodEndsAt === null ? null : new Date(product.downloadPeriodEndsAt);
  if (storedEnd !== null && storedEnd.getTime() > now.getTime()) {
    return { downloadsUsed: product.downloadsUsed, overageCount: product.overageCount, resetsAt: storedEnd, rolled: false };
  }
  const resetsAt = periodEndAfter(new Date(product.createdAt), product.downloadLimitDuration, now);
  return { downloadsUsed: 0, overageCount: 0, resetsAt, rolled: true };
}

/** Downloads left in the current period; null without a limit. */
export function downloadsRemaining(product: Entitlement, now: Date): number | null {
  if (product.downloadLimit === null) return null;
  return Math.max(0, product.downloadLimit - periodState(product, now).downloadsUsed);
}

/** Overage downloads left in the current period; null when the product allows none. */
export function overageRemaining(product: Entitlement, now: Date): number | null {
  if (product.overageLimit === null) return null;
  return Math.max(0, product.overageLimit - periodState(product, now).overageCount);
}

/**
 * Whether the product can pay for a download that licenses the asset now: credits enough (its own,
 * or the team's with `teamCredits`), and a download left in the period or in its overage.
 */
export function paymentRefusal(product: Entitlement, cost: number, now: Date, teamCredits?: number | null): PaymentRefusal | undefined {
  if (cost > 0) {
    const available = teamCredits !== undefined ? (teamCredits ?? 0) : (product.creditsRemaining ?? 0);
    if (available < cost) return 'InsufficientCredits';
  }
  if (product.downloadLimit !== null && (downloadsRemaining(product, now) ?? 0) <= 0 && (overageRemaining(product, now) ?? 0) <= 0) {
    return 'OverageLimitReached';
  }
  return undefined;
}

/**
 * The order products are tried in: any under which the asset is already licensed (free), then the
 * policy's type order, the one that lapses first, the oldest.
 */
export function choiceOrder<P extends Pick<Entitlement, 'id' | 'type' | 'expiresAt'>>(products: readonly P[], licensedUnder: ReadonlySet<number>): P[] {
  const rank = (type: ProductType) => {
    const index = PRODUCT_CHOICE_ORDER.indexOf(type);
    return index === -1 ? PRODUCT_CHOICE_ORDER.length : index;
  };
  const expiry = (value: string | null) => (value === null ? Number.POSITIVE_INFINITY : Date.parse(value));
  return [...products].sort(
    (a, b) =>
      Number(licensedUnder.has(b.id)) - Number(licensedUnder.has(a.id)) ||
      rank(a.type) - rank(b.type) ||
      expiry(a.expiresAt) - expiry(b.expiresAt) ||
      a.id - b.id,
  );
}
