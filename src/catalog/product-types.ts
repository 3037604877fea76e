/*
 * Product types, as data the catalogue, search and licensing share: an asset lists the types it
 * can be licensed with (`product_types`), a customer holds products of these types. They live
 * with the catalogue, the first of the three to be built, so that none of them reaches forward.
 */

/**
 * The product types that license catalogue assets: the spec's list for image_detail.product_types.
 * The catalogue's records list creditpack (creative collections take credits, editorial ones do
 * not), so a credit pack licenses exactly the assets that say so, like every other type here.
 */
export const ASSET_PRODUCT_TYPES = ['easyaccess', 'editorialsubscription', 'imagepack', 'premiumaccess', 'royaltyfreesubscription', 'creditpack'] as const;
export type AssetProductType = (typeof ASSET_PRODUCT_TYPES)[number];

/** Every type a customer can hold (the contract's Product.type): those above, a sandbox and AI generation, which license no asset. */
export const PRODUCT_TYPES = [...ASSET_PRODUCT_TYPES, 'sandbox', 'aigen'] as const;
export type ProductType = (typeof PRODUCT_TYPES)[number];

/** The name a product of each type is given when its operator gives none, and the word the pages show for the type. */
export const PRODUCT_TYPE_NAMES: Readonly<Record<ProductType, string>> = {
  premiumaccess: 'Premium Access',
  easyaccess: 'Easy Access',
  editorialsubscription: 'Editorial Subscription',
  imagepack: 'Image Pack',
  royaltyfreesubscription: 'Royalty-Free Subscription',
  creditpack: 'Credit Pack',
  sandbox: 'Sandbox',
  aigen: 'AI Generation',
};
