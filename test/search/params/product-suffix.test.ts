import { describe, expect, it } from 'vitest';
import { apiError, endpointsWith, filters, search } from './helpers.js';

const SEARCHES = [
  'images', 'images_creative', 'images_editorial', 'images_creative_by_image',
  'videos', 'videos_creative', 'videos_editorial', 'videos_creative_by_image',
] as const;

describe('download_product and product_types take a product type with an optional :productId', () => {
  it('offers download_product and product_types on every image and video search', () => {
    expect(endpointsWith('download_product').sort()).toEqual([...SEARCHES].sort());
    expect(endpointsWith('product_types').sort()).toEqual([...SEARCHES].sort());
  });

  it.each(SEARCHES)('download_product on %s', (endpoint) => {
    expect(filters(endpoint, { download_product: 'premiumaccess:1234' }).download_product).toEqual({
      product_type: 'premiumaccess',
      product_id: 1234,
    });
    expect(filters(endpoint, { download_product: 'editorialsubscription' }).download_product).toEqual({
      product_type: 'editorialsubscription',
    });
    // The spec's product types include creditpack.
    expect(filters(endpoint, { download_product: 'creditpack:9' }).download_product).toEqual({ product_type: 'creditpack', product_id: 9 });
    for (const bad of ['premiumaccess:', 'premiumaccess:abc', 'premiumaccess:0', 'premiumaccess:-4', 'premiumaccess:1:2', 'premiumaccess:2147483648']) {
      const error = apiError(() => search(endpoint, { download_product: bad }));
      expect(error.code, bad).toBe('InvalidParameterValue');
      expect(error.message, bad).toBe(
        `Invalid value for parameter 'download_product': '${bad}': the product id after ':' must be a whole number from 1 to 2147483647`,
      );
    }
    for (const bad of ['sandbox', ':1234', 'gold:12']) {
      const error = apiError(() => search(endpoint, { download_product: bad }));
      expect(error.message, bad).toMatch(/^Invalid value for parameter 'download_product': '[^']*' is not one of easyaccess, /);
    }
    expect(apiError(() => search(endpoint, { download_product: ['easyaccess', 'imagepack'] })).code).toBe('InvalidParameterValue');
  });

  it.each(['images_creative_by_image', 'videos_creative_by_image'] as const)('product_types on %s', (endpoint) => {
    expect(filters(endpoint, { product_types: 'premiumaccess:1234,easyaccess,premiumaccess:1234,imagepack:7' }).product_types).toEqual([
      { product_type: 'premiumaccess', product_id: 1234 },
      { product_type: 'easyaccess' },
      { product_type: 'imagepack', product_id: 7 },
    ]);
    // The contract's list for by-image: no editorialsubscription, no creditpack.
    expect(apiError(() => search(endpoint, { product_types: 'easyaccess,editorialsubscription' })).message).toBe(
      "Invalid value for parameter 'product_types': 'editorialsubscription' is not one of easyaccess, imagepack, premiumaccess, royaltyfreesubscription",
    );
    expect(apiError(() => search(endpoint, { product_types: 'imagepack:x' })).code).toBe('InvalidParameterValue');
  });

  it.each(['images', 'images_creative', 'images_editorial', 'videos', 'videos_creative', 'videos_editorial'] as const)(
    'product_types on %s: the older name of download_product, as a list, with download_product\'s values',
    (endpoint) => {
      // What the partner's official client sends: a comma-separated list.
      expect(filters(endpoint, { product_types: 'easyaccess,editorialsubscription:12,creditpack' }).product_types).toEqual([
        { product_type: 'easyaccess' },
        { product_type: 'editorialsubscription', product_id: 12 },
        { product_type: 'creditpack' },
      ]);
      expect(filters(endpoint, { product_types: ['premiumaccess', 'premiumaccess'] }).product_types).toEqual([{ product_type: 'premiumaccess' }]);
      expect(filters(endpoint, { product_types: '' })).not.toHaveProperty('product_types');
      expect(apiError(() => search(endpoint, { product_types: 'easyaccess,gold' })).message).toBe(
        "Invalid value for parameter 'product_types': 'gold' is not one of easyaccess, editorialsubscription, imagepack, premiumaccess, royaltyfreesubscription, creditpack",
      );
      expect(apiError(() => search(endpoint, { product_types: 'premiumaccess:0' })).message).toBe(
        "Invalid value for parameter 'product_types': 'premiumaccess:0': the product id after ':' must be a whole number from 1 to 2147483647",
      );
    },
  );
});
