import { describe, expect, it } from 'vitest';
import {
  addPeriods,
  allowsSize,
  choiceOrder,
  downloadCredits,
  downloadsRemaining,
  isHeld,
  largestSize,
  licensableAsset,
  paymentRefusal,
  periodEndAfter,
  periodState,
  standardCredits,
  typeLicenses,
  type Entitlement,
} from '../../src/licensing/entitlements.js';
import { PRODUCT_CHOICE_ORDER, PRODUCT_POLICIES } from '../../src/licensing/licensing-policy.js';
import { PRODUCT_TYPES, type ProductType } from '../../src/catalog/product-types.js';
import { assetRecord, creativeImageFields, creativeVideoFields, editorialImageFields, IMAGE_SIZES } from './licensing-fixtures.js';

const NOW = new Date('2025-03-10T12:00:00.000Z');

function product(overrides: Partial<Entitlement> = {}): Entitlement {
  return {
    id: 1,
    type: 'premiumaccess',
    status: 'active',
    expiresAt: null,
    createdAt: '2025-01-01T00:00:00.000Z',
    creditsRemaining: null,
    downloadLimit: null,
    downloadLimitDuration: null,
    downloadsUsed: 0,
    downloadPeriodEndsAt: null,
    overageLimit: null,
    overageCount: 0,
    imagepackResolution: null,
    ...overrides,
  };
}

const every = (fields: Record<string, unknown>) => ({ ...fields, product_types: [...PRODUCT_TYPES] });

describe('which product type licenses which asset', () => {
  const licensing = (fields: Record<string, unknown>, assetType: 'image' | 'video' = 'image') =>
    PRODUCT_TYPES.filter((type) => typeLicenses(type, licensableAsset(assetRecord(assetType, 'a1', fields))));

  it('only the types the asset lists in product_types', () => {
    expect(licensing(creativeImageFields({ product_types: ['creditpack'] }))).toEqual(['creditpack']);
    expect(licensing(creativeImageFields({ product_types: [] }))).toEqual([]);
    expect(licensing(creativeImageFields({ product_types: undefined }))).toEqual([]);
  });

  it('creative royalty-free images: every type but the editorial subscription (sandbox and aigen license nothing)', () => {
    expect(licensing(every(creativeImageFields()))).toEqual(['easyaccess', 'imagepack', 'premiumaccess', 'royaltyfreesubscription', 'creditpack']);
  });

  it('editorial rights-managed images: premium access and the editorial subscription', () => {
    expect(licensing(every(editorialImageFields()))).toEqual(['editorialsubscription', 'premiumaccess']);
  });

  it('editorial royalty-free images add easy access and image packs; creative rights-managed ones take credits and premium access', () => {
    expect(licensing(every(editorialImageFields({ license_model: 'royaltyfree' })))).toEqual([
      'easyaccess',
      'editorialsubscription',
      'imagepack',
      'premiumaccess',
    ]);
    expect(licensing(every(creativeImageFields({ license_model: 'rightsmanaged' })))).toEqual(['premiumaccess', 'creditpack']);
  });

  it('videos: never an image pack', () => {
    expect(licensing(every(creativeVideoFields()), 'video')).toEqual(['easyaccess', 'premiumaccess', 'royaltyfreesubscription', 'creditpack']);
  });

  it('an asset that states no family or license model is not refused for it', () => {
    expect(licensing(every(creativeImageFields({ asset_family: undefined, license_model: undefined })))).toEqual([
      'easyaccess',
      'editorialsubscription',
      'imagepack',
      'premiumaccess',
      'royaltyfreesubscription',
      'creditpack',
    ]);
  });

  it('has a policy for every product type, and a place in the choice order for every type that licenses', () => {
    expect(Object.keys(PRODUCT_POLICIES).sort()).toEqual([...PRODUCT_TYPES].sort());
    for (const type of PRODUCT_TYPES) {
      if (PRODUCT_POLICIES[type].assetTypes.length > 0) expect(PRODUCT_CHOICE_ORDER).toContain(type);
    }
  });
});

describe('what a download costs', () => {
  const asset = (fields: Record<string, unknown>, assetType: 'image' | 'video' = 'image') => licensableAsset(assetRecord(assetType, 'a1', fields));

  it('a credit pack pays the standard license of the asset’s partner_licenses', () => {
    expect(downloadCredits('creditpack', asset(creativeImageFields({ partner_licenses: [{ license_type: 'Standard', credits: 3 }] })))).toBe(3);
  });

  it('without partner_licenses: the policy table by asset type and partner_collection', () => {
    expect(standardCredits(asset(creativeImageFields({ partner_licenses: undefined, partner_collection: 'signature' })))).toBe(3);
    expect(standardCredits(asset(creativeImageFields({ partner_licenses: undefined, partner_collection: 'essentials' })))).toBe(1);
    expect(standardCredits(asset(creativeImageFields({ partner_licenses: undefined, partner_collection: undefined })))).toBe(1);
    expect(standardCredits(asset(creativeVideoFields({ partner_licenses: undefined, partner_collection: undefined }), 'video'))).toBe(6);
  });

  it('every other type pays no credits', () => {
    for (const type of PRODUCT_TYPES.filter((t) => t !== 'creditpack')) expect(downloadCredits(type, asset(creativeImageFields()))).toBe(0);
  });
});

describe('sizes a product allows (imagepack_resolution)', () => {
  const [xSmall, small, medium, large, xLarge] = IMAGE_SIZES.map((size) => ({ ...size, name: size.name }));

  it('any size without a resolution; up to the resolution’s longest edge with one', () => {
    for (const size of IMAGE_SIZES) expect(allowsSize(product(), size)).toBe(true);
    const pack = product({ type: 'imagepack', imagepackResolution: 'medium' });
    expect([xSmall, small, medium, large, xLarge].map((size) => allowsSize(pack, size!))).toEqual([true, true, true, false, false]);
  });

  it('the largest size is the one with the most pixels', () => {
    expect(largestSize(IMAGE_SIZES)?.name).toBe('x-large');
    expect(largestSize([])).toBeUndefined();
  });
});

describe('download limits and their periods', () => {
  it('counts a month from the day the product was granted, keeping month ends within the month', () => {
    expect(addPeriods(new Date('2025-01-31T10:00:00Z'), 'month', 1).toISOString()).toBe('2025-02-28T10:00:00.000Z');
    expect(addPeriods(new Date('2024-01-31T10:00:00Z'), 'month', 1).toISOString()).toBe('2024-02-29T10:00:00.000Z');
    expect(addPeriods(new Date('2025-01-31T10:00:00Z'), 'month', 2).toISOString()).toBe('2025-03-31T10:00:00.000Z');
    expect(addPeriods(new Date('2024-02-29T00:00:00Z'), 'year', 1).toISOString()).toBe('2025-02-28T00:00:00.000Z');
    expect(addPeriods(new Date('2025-01-01T00:00:00Z'), 'day', 3).toISOString()).toBe('2025-01-04T00:00:00.000Z');
  });

  it('the period now falls in ends at the first whole period after now', () => {
    const anchor = new Date('2025-01-01T00:00:00Z');
    expect(periodEndAfter(anchor, 'month', NOW).toISOString()).toBe('2025-04-01T00:00:00.000Z');
    expect(periodEndAfter(anchor, 'day', NOW).toISOString()).toBe('2025-03-11T00:00:00.000Z');
    expect(periodEndAfter(anchor, 'year', NOW).toISOString()).toBe('2026-01-01T00:00:00.000Z');
    // Exactly on a boundary, the next period has begun.
    expect(periodEndAfter(anchor, 'day', new Date('2025-03-11T00:00:00Z')).toISOString()).toBe('2025-03-12T00:00:00.000Z');
  });

  it('downloads_remaining counts down within a period and is whole again once it ends', () => {
    const monthly = product({ downloadLimit: 10, downloadLimitDuration: 'month', downloadsUsed: 7, downloadPeriodEndsAt: '2025-04-01T00:00:00.000Z' });
    expect(downloadsRemaining(monthly, NOW)).toBe(3);
    expect(periodState(monthly, NOW)).toMatchObject({ downloadsUsed: 7, rolled: false });
    const later = new Date('2025-04-02T00:00:00Z');
    expect(downloadsRemaining(monthly, later)).toBe(10);
    expect(periodState(monthly, later)).toMatchObject({ downloadsUsed: 0, rolled: true, resetsAt: new Date('2025-05-01T00:00:00Z') });
  });

  it('a limit without a period never resets; no limit is null', () => {
    const pack = product({ type: 'imagepack', downloadLimit: 5, downloadsUsed: 5 });
    expect(downloadsRemaining(pack, new Date('2030-01-01T00:00:00Z'))).toBe(0);
    expect(periodState(pack, NOW).resetsAt).toBeNull();
    expect(downloadsRemaining(product(), NOW)).toBeNull();
  });
});

describe('whether a product can pay', () => {
  it('credits: its own, or the team’s when team credits are used', () => {
    const pack = product({ type: 'creditpack', creditsRemaining: 2 });
    expect(paymentRefusal(pack, 2, NOW)).toBeUndefined();
    expect(paymentRefusal(pack, 3, NOW)).toBe('InsufficientCredits');
    expect(paymentRefusal(pack, 3, NOW, 5)).toBeUndefined();
    expect(paymentRefusal(pack, 3, NOW, 0)).toBe('InsufficientCredits');
  });

  it('downloads: the limit, then the overage', () => {
    const used = { downloadLimit: 2, downloadsUsed: 2, downloadLimitDuration: null } as const;
    expect(paymentRefusal(product(used), 0, NOW)).toBe('OverageLimitReached');
    expect(paymentRefusal(product({ ...used, overageLimit: 1 }), 0, NOW)).toBeUndefined();
    expect(paymentRefusal(product({ ...used, overageLimit: 1, overageCount: 1 }), 0, NOW)).toBe('OverageLimitReached');
  });
});

describe('products held and the choice order', () => {
  it('holds active products until they expire', () => {
    expect(isHeld(product(), NOW)).toBe(true);
    expect(isHeld(product({ status: 'inactive' }), NOW)).toBe(false);
    expect(isHeld(product({ expiresAt: '2025-03-10T12:00:00.000Z' }), NOW)).toBe(false);
    expect(isHeld(product({ expiresAt: '2025-03-10T12:00:01.000Z' }), NOW)).toBe(true);
  });

  it('tries a product that already licenses the asset first, then the policy order, the one that lapses first, the oldest', () => {
    const p = (id: number, type: ProductType, expiresAt: string | null = null) => product({ id, type, expiresAt });
    const products = [
      p(1, 'creditpack'),
      p(2, 'imagepack'),
      p(3, 'easyaccess', '2026-01-01T00:00:00.000Z'),
      p(4, 'easyaccess', '2025-06-01T00:00:00.000Z'),
      p(5, 'premiumaccess'),
      p(6, 'easyaccess'),
    ];
    expect(choiceOrder(products, new Set()).map((x) => x.id)).toEqual([5, 4, 3, 6, 2, 1]);
    expect(choiceOrder(products, new Set([1])).map((x) => x.id)).toEqual([1, 5, 4, 3, 6, 2]);
  });
});
