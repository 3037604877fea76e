/*
 * The licensing rules that are tables rather than code: which product types license which
 * assets, what a download costs, the order a product is chosen in, the sizes a resolution
 * allows, the prices of extended licenses. The rules that read them live in entitlements.ts.
 */
import type { ProductType } from '../catalog/product-types.js';

export type AssetKind = 'image' | 'video';

/** How a product pays for a download that licenses an asset. */
export type Payment =
  /** nothing per download; the product's download limit (if any) counts it */
  | 'downloads'
  /** credits, at the asset's standard price (its partner_licenses, else STANDARD_CREDITS) */
  | 'credits';

export interface ProductPolicy {
  /** the asset types it licenses; empty: it licenses nothing */
  readonly assetTypes: readonly AssetKind[];
  /** asset_family values it licenses (an asset without a family is not refused for it) */
  readonly families: readonly string[];
  /** license_model values it licenses (an asset without one is not refused for it) */
  readonly licenseModels: readonly string[];
  readonly payment: Payment;
}

const EVERY_MODEL = ['royaltyfree', 'rightsmanaged', 'rightsready'] as const;

/**
 * What each product type licenses. An asset must also list the type in its product_types:
 * the catalogue's word comes first, these rows narrow it.
 */
export const PRODUCT_POLICIES: Readonly<Record<ProductType, ProductPolicy>> = {
  premiumaccess: { assetTypes: ['image', 'video'], families: ['creative', 'editorial'], licenseModels: EVERY_MODEL, payment: 'downloads' },
  easyaccess: { assetTypes: ['image', 'video'], families: ['creative', 'editorial'], licenseModels: ['royaltyfree'], payment: 'downloads' },
  editorialsubscription: { assetTypes: ['image', 'video'], families: ['editorial'], licenseModels: EVERY_MODEL, payment: 'downloads' },
  imagepack: { assetTypes: ['image'], families: ['creative', 'editorial'], licenseModels: ['royaltyfree'], payment: 'downloads' },
  royaltyfreesubscription: { assetTypes: ['image', 'video'], families: ['creative'], licenseModels: ['royaltyfree'], payment: 'downloads' },
  creditpack: { assetTypes: ['image', 'video'], families: ['creative'], licenseModels: ['royaltyfree', 'rightsmanaged'], payment: 'credits' },
  sandbox: { assetTypes: [], families: [], licenseModels: [], payment: 'downloads' },
  aigen: { assetTypes: [], families: [], licenseModels: [], payment: 'downloads' },
};

/**
 * Without product_type or product_id, the first product in this order that licenses the asset
 * (at the size asked) and can pay for it is used — after any product under which the asset is
 * already licensed, since downloading it again there costs nothing. Subscriptions come before
 * packs, and credits last: credits are money the customer paid per asset.
 */
export const PRODUCT_CHOICE_ORDER: readonly ProductType[] = [
  'premiumaccess',
  'editorialsubscription',
  'easyaccess',
  'royaltyfreesubscription',
  'imagepack',
  'creditpack',
];

/** Credits of a standard license when the asset's partner_licenses does not say, by asset type and partner_collection. */
export const STANDARD_CREDITS: Readonly<Record<AssetKind, Readonly<Record<'essentials' | 'signature' | 'other', number>>>> = {
  image: { essentials: 1, signature: 3, other: 1 },
  video: { essentials: 6, signature: 12, other: 6 },
};

export const EXTENDED_LICENSE_TYPES = ['multiseat', 'unlimited', 'resale', 'indemnification'] as const;
export type ExtendedLicenseType = (typeof EXTENDED_LICENSE_TYPES)[number];

/** Credits of an extended license when the asset's partner_licenses does not say. */
export const EXTENDED_LICENSE_CREDITS: Readonly<Record<ExtendedLicenseType, number>> = {
  multiseat: 2,
  unlimited: 4,
  resale: 6,
  indemnification: 2,
};

/**
 * imagepack_resolution: the size names a product may be limited to, each with the longest edge
 * (pixels) a download under it may have. The names are those of the catalogue's download sizes.
 */
export const RESOLUTION_LONG_EDGES: Readonly<Record<string, number>> = {
  'x-small': 594,
  small: 1024,
  medium: 2048,
  large: 3500,
  'x-large': Number.POSITIVE_INFINITY,
};
export const RESOLUTIONS = Object.keys(RESOLUTION_LONG_EDGES);

export const DOWNLOAD_LIMIT_DURATIONS = ['day', 'month', 'year'] as const;
export type DownloadLimitDuration = (typeof DOWNLOAD_LIMIT_DURATIONS)[number];

/** Downloads need a token issued this recently (spec, Limits: "Download token age"). */
export const DOWNLOAD_TOKEN_MAX_AGE_MS = 30 * 24 * 3600 * 1000;

/** How long a delivery URI works by default (STOCKROOM_DELIVERY_URL_TTL), and how long a replayed Idempotency-Key returns the same one. */
export const DELIVERY_URI_LIFETIME_MS = 24 * 3600 * 1000;
