import { typeLicenses } from '../../licensing/entitlements.js';
import { PRODUCT_POLICIES } from '../../licensing/licensing-policy.js';
import type { ProductType } from '../product-types.js';

/*
 * An asset may list a product type that can never license it: a credit pack on an editorial
 * picture, an image pack on a video. It is stored (the record says so), but the editor is told
 * why, from the licensing rules themselves.
 */

/** A product type an asset lists that the licensing rules never let license it, and why. */
export interface UnfitProductType {
  productType: string;
  /** Completes "… can never license it: ", e.g. "creditpack licenses creative assets only, and the asset is editorial". */
  reason: string;
}

/** The warning for an asset that lists no product_types (ingest's report and the back office say the same). */
export function unlicensableWarning(id: string): string {
  return `asset '${id}' lists no product_types, so no product can license it`;
}

/** The warning for a product type that can never license the asset. */
export function unfitWarning(id: string, unfit: UnfitProductType): string {
  return `asset '${id}' lists product type ${unfit.productType}, which can never license it: ${unfit.reason}`;
}

export function unfitProductTypes(asset: {
  assetType: 'image' | 'video';
  family: string | null;
  licenseModel: string | null;
  productTypes: readonly string[];
}): UnfitProductType[] {
  const unfit: UnfitProductType[] = [];
  for (const productType of new Set(asset.productTypes)) {
    if (!Object.hasOwn(PRODUCT_POLICIES, productType)) continue;
    const type = productType as ProductType;
    const licensable = { id: '', partnerCollection: null, partnerLicenses: [], sizes: [], ...asset, productTypes: [type] };
    if (typeLicenses(type, licensable)) continue;
    const policy = PRODUCT_POLICIES[type];
    let reason: string;
    if (!policy.assetTypes.includes(asset.assetType)) {
      reason = policy.assetTypes.length === 0 ? `${type} licenses no asset` : `${type} licenses ${policy.assetTypes.map((kind) => `${kind}s`).join(' and ')} only, and the asset is a ${asset.assetType}`;
    } else if (asset.family !== null && !policy.families.includes(asset.family)) {
      reason = `${type} licenses ${policy.families.join(' and ')} assets only, and the asset is ${asset.family}`;
    } else {
      reason = `${type} licenses ${policy.licenseModels.join(' and ')} assets only, and the asset is ${asset.licenseModel ?? 'of no license model'}`;
    }
    unfit.push({ productType: type, reason });
  }
  return unfit;
}
