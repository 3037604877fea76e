import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeVisualSignature, encodeStoredSignature } from '../../src/media/visual-signature.js';
import { addImage, fullImageFields, makeJpeg } from '../helpers/catalog-fixtures.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/*
 * The token rule of search: with a token whose user holds products that license assets, the
 * results are the assets those product types license; otherwise the whole catalogue.
 */

const LIGHTHOUSES: Record<string, { family: 'creative' | 'editorial'; productTypes: string[] }> = {
  'lh-creative-rf': { family: 'creative', productTypes: ['easyaccess', 'royaltyfreesubscription', 'creditpack', 'imagepack'] },
  'lh-creative-rm': { family: 'creative', productTypes: ['premiumaccess', 'creditpack'] },
  'lh-editorial-news': { family: 'editorial', productTypes: ['editorialsubscription', 'premiumaccess', 'easyaccess'] },
  'lh-editorial-ent': { family: 'editorial', productTypes: ['premiumaccess', 'editorialsubscription'] },
  'lh-unsold': { family: 'creative', productTypes: [] },
};
const EVERY_LIGHTHOUSE = Object.keys(LIGHTHOUSES).sort();

describe('search with a token: limited to what the customer may license', () => {
  let t: TestApp;
  let userCount = 0;

  const search = (url: string, token?: string) =>
    t.app.inject({
      method: 'GET',
      url,
      headers: { 'api-key': t.apiKey, ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
    });
  const idsOf = async (url: string, token?: string): Promise<string[]> => {
    const response = await search(url, token);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    const items: Array<{ id: string }> = body.images ?? body.videos;
    expect(body.result_count).toBe(items.length);
    return items.map((item) => item.id).sort();
  };

  /** A new customer holding these products, and a password-grant token for them. */
  async function customerHolding(...products: Array<{ type: string; expiresAt?: Date; inactive?: boolean }>): Promise<string> {
    userCount += 1;
    const user = await t.services.users.create({ username: `customer-${userCount}`, password: 'correct horse battery' });
    for (const product of products) {
      const granted = await t.services.products.grant({ userId: user.id, type: product.type, ...(product.expiresAt ? { expiresAt: product.expiresAt } : {}) });
      if (product.inactive) await t.services.products.setStatus(granted.id, 'inactive');
    }
    const { token } = await t.services.tokens.issue({ clientId: t.clientId, userId: user.id, grantType: 'password', lifetimeSeconds: 1800 });
    return token;
  }

  beforeAll(async () => {
    t = await createTestApp();
    for (const [id, { family, productTypes }] of Object.entries(LIGHTHOUSES)) {
      await addImage(t.services, id, {
        fields: {
          title: `Lighthouse on the coast (${id})`,
          asset_family: family,
          product_types: productTypes,
          keywords: [{ text: 'lighthouse', type: 'Concept', relevance: 5 }],
        },
      });
    }
    await t.services.catalog.upsertAsset({
      asset_type: 'video',
      id: 'lh-video-rf',
      fields: { title: 'Lighthouse beam at night', asset_family: 'creative', product_types: ['royaltyfreesubscription'] },
    });
    await t.services.catalog.upsertAsset({
      asset_type: 'video',
      id: 'lh-video-news',
      fields: { title: 'Lighthouse keeper interviewed', asset_family: 'editorial', product_types: ['editorialsubscription'] },
    });
    await t.services.catalog.upsertEvent({ id: 990001, name: 'Lighthouse Heritage Day', start_date: '2024-06-01T09:00:00Z', editorial_segments: ['news'] });
    await t.services.changeFeed.poll();
    await t.services.search.settled();
  }, 60_000);
  afterAll(async () => {
    await t.close();
  });

  it('without a token, shows the whole catalogue', async () => {
    expect(await idsOf('/v3/search/images?phrase=lighthouse&fields=id')).toEqual(EVERY_LIGHTHOUSE);
  });

  it('limits to the assets whose product_types include a type the customer holds', async () => {
    const editorial = await customerHolding({ type: 'editorialsubscription' });
    expect(await idsOf('/v3/search/images?phrase=lighthouse&fields=id', editorial)).toEqual(['lh-editorial-ent', 'lh-editorial-news']);
    const premium = await customerHolding({ type: 'premiumaccess' });
    expect(await idsOf('/v3/search/images?phrase=lighthouse&fields=id', premium)).toEqual(['lh-creative-rm', 'lh-editorial-ent', 'lh-editorial-news']);
    const twoProducts = await customerHolding({ type: 'imagepack' }, { type: 'easyaccess' });
    expect(await idsOf('/v3/search/images?phrase=lighthouse&fields=id', twoProducts)).toEqual(['lh-creative-rf', 'lh-editorial-news']);
  });

  it('treats a credit pack like any other type: the assets that list creditpack', async () => {
    const credits = await customerHolding({ type: 'creditpack' });
    expect(await idsOf('/v3/search/images?phrase=lighthouse&fields=id', credits)).toEqual(['lh-creative-rf', 'lh-creative-rm']);
  });

  it('does not limit a customer with nothing to license with: no products, sandbox or aigen only, inactive or expired ones', async () => {
    const cases = [
      await customerHolding(),
      await customerHolding({ type: 'sandbox' }, { type: 'aigen' }),
      await customerHolding({ type: 'premiumaccess', inactive: true }),
      await customerHolding({ type: 'editorialsubscription', expiresAt: new Date(Date.now() - 60_000) }),
    ];
    for (const token of cases) expect(await idsOf('/v3/search/images?phrase=lighthouse&fields=id', token)).toEqual(EVERY_LIGHTHOUSE);
  });

  it('does not limit a token without a user (client credentials)', async () => {
    expect(await idsOf('/v3/search/images?phrase=lighthouse&fields=id', await t.issueToken())).toEqual(EVERY_LIGHTHOUSE);
  });

  it('refuses a token that is unknown or expired with 401 and the Bearer challenge', async () => {
    const unknown = await search('/v3/search/images/creative?phrase=lighthouse', 'not-a-token');
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json().code).toBe('Unauthorized');
    expect(unknown.headers['www-authenticate']).toMatch(/^Bearer realm=".*", error="invalid_token"/);
    const { token } = await t.services.tokens.issue({ clientId: t.clientId, userId: null, grantType: 'password', lifetimeSeconds: 0 });
    const expired = await search('/v3/search/images/editorial?phrase=lighthouse', token);
    expect(expired.statusCode).toBe(401);
    expect(expired.json().message).toMatch(/expired/);
  });

  it('applies to every keyword search, counts and facets included', async () => {
    const editorial = await customerHolding({ type: 'editorialsubscription' });
    expect(await idsOf('/v3/search/images/creative?phrase=lighthouse&fields=id', editorial)).toEqual([]);
    expect(await idsOf('/v3/search/images/editorial?phrase=lighthouse&fields=id', editorial)).toEqual(['lh-editorial-ent', 'lh-editorial-news']);
    expect(await idsOf('/v3/search/videos?phrase=lighthouse&fields=id', editorial)).toEqual(['lh-video-news']);
    expect(await idsOf('/v3/search/videos/creative?phrase=lighthouse&fields=id', editorial)).toEqual([]);
    expect(await idsOf('/v3/search/videos/editorial?phrase=lighthouse&fields=id', editorial)).toEqual(['lh-video-news']);
    const subscription = await customerHolding({ type: 'royaltyfreesubscription' });
    expect(await idsOf('/v3/search/videos/creative?phrase=lighthouse&fields=id', subscription)).toEqual(['lh-video-rf']);

    const facets = (await search('/v3/search/images/editorial?phrase=lighthouse&include_facets=true&facet_fields=artists&fields=id', editorial)).json();
    expect(facets.facets.artists).toEqual([{ name: 'Ada Lens' }]);
    const unlimited = (await search('/v3/search/images/creative?phrase=lighthouse&include_facets=true&fields=id')).json();
    expect(unlimited.result_count).toBe(3);
  });

  it('follows the products as they change: a grant counts from the next request', async () => {
    userCount += 1;
    const user = await t.services.users.create({ username: `customer-${userCount}`, password: 'correct horse battery' });
    const { token } = await t.services.tokens.issue({ clientId: t.clientId, userId: user.id, grantType: 'password', lifetimeSeconds: 1800 });
    expect(await idsOf('/v3/search/images?phrase=lighthouse&fields=id', token)).toEqual(EVERY_LIGHTHOUSE);
    const product = await t.services.products.grant({ userId: user.id, type: 'creditpack' });
    expect(await idsOf('/v3/search/images?phrase=lighthouse&fields=id', token)).toEqual(['lh-creative-rf', 'lh-creative-rm']);
    await t.services.products.setStatus(product.id, 'inactive');
    expect(await idsOf('/v3/search/images?phrase=lighthouse&fields=id', token)).toEqual(EVERY_LIGHTHOUSE);
  });

  it('leaves event search alone: events are not licensed, their assets are', async () => {
    const credits = await customerHolding({ type: 'creditpack' });
    const withToken = (await search('/v3/search/events?phrase=lighthouse', credits)).json();
    const without = (await search('/v3/search/events?phrase=lighthouse')).json();
    expect(withToken).toEqual(without);
    expect(without.events.map((e: { id: number }) => e.id)).toEqual([990001]);
  });
});

describe('the token rule beyond the keyword searches: by-image, similar, same-series, artists', () => {
  let t: TestApp;
  // One shoot: the same artist, day and collection, so also one series.
  const SHOOT: Record<string, string[]> = {
    'tr-rf-1': ['royaltyfreesubscription'],
    'tr-rf-2': ['royaltyfreesubscription'],
    'tr-pa-1': ['premiumaccess'],
    'tr-pa-2': ['premiumaccess'],
  };

  const get = (url: string, token?: string) =>
    t.app.inject({ method: 'GET', url, headers: { 'api-key': t.apiKey, ...(token ? { authorization: `Bearer ${token}` } : {}) } });
  const ids = async (url: string, token?: string): Promise<string[]> => {
    const response = await get(url, token);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body.result_count).toBe(body.images.length);
    return body.images.map((image: { id: string }) => image.id).sort();
  };

  let royaltyFreeCustomer: string;
  let anonymousToken: string;

  beforeAll(async () => {
    t = await createTestApp();
    let shade = 0;
    for (const [id, productTypes] of Object.entries(SHOOT)) {
      const signature = await computeVisualSignature(await makeJpeg(64, 48, `#${(0x402020 + shade++ * 0x000810).toString(16)}`));
      await t.services.catalog.upsertAsset({
        asset_type: 'image',
        id,
        fields: {
          ...fullImageFields(id),
          asset_family: 'creative',
          event_ids: [],
          artist: 'Iris Quay',
          date_created: '2024-04-02T10:00:00Z',
          collection_code: 'STK',
          collection_id: 101,
          collection_name: 'Stockroom Creative',
          product_types: productTypes,
        },
        visual_signature: encodeStoredSignature(signature),
      });
    }
    await t.services.changeFeed.poll();
    await t.services.search.settled();
    const user = await t.services.users.create({ username: 'rf-customer', password: 'correct horse battery' });
    await t.services.products.grant({ userId: user.id, type: 'royaltyfreesubscription' });
    royaltyFreeCustomer = (await t.services.tokens.issue({ clientId: t.clientId, userId: user.id, grantType: 'password', lifetimeSeconds: 1800 })).token;
    anonymousToken = await t.issueToken();
  }, 60_000);
  afterAll(async () => {
    await t.close();
  });

  it('limits search by image to what the customer may license', async () => {
    const url = '/v3/search/images/creative/by-image?asset_id=tr-pa-1&fields=id';
    expect(await ids(url)).toEqual(['tr-pa-2', 'tr-rf-1', 'tr-rf-2']);
    expect(await ids(url, anonymousToken)).toEqual(['tr-pa-2', 'tr-rf-1', 'tr-rf-2']);
    expect(await ids(url, royaltyFreeCustomer)).toEqual(['tr-rf-1', 'tr-rf-2']);
  });

  it('limits similar and same-series the same way (they need a token anyway)', async () => {
    for (const kind of ['similar', 'same-series']) {
      const url = `/v3/images/tr-pa-1/${kind}?fields=id`;
      expect(await ids(url, anonymousToken), kind).toEqual(['tr-pa-2', 'tr-rf-1', 'tr-rf-2']);
      expect(await ids(url, royaltyFreeCustomer), kind).toEqual(['tr-rf-1', 'tr-rf-2']);
    }
  });

  it('limits an artist search', async () => {
    const url = '/v3/artists/images?artist_name=iris%20quay&fields=id&page_size=10';
    expect(await ids(url)).toEqual(Object.keys(SHOOT).sort());
    expect(await ids(url, royaltyFreeCustomer)).toEqual(['tr-rf-1', 'tr-rf-2']);
  });

  it('refuses an invalid token on these searches', async () => {
    const response = await get('/v3/search/images/creative/by-image?asset_id=tr-pa-1', 'not-a-token');
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toContain('invalid_token');
  });
});
