import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, STORES, type TestApp } from '../helpers/test-app.js';
import { addAssets, creativeImageFields, creativeVideoFields, editorialImageFields, fakeDeliveryUri, insertUser } from '../licensing/licensing-fixtures.js';

/**
 * The fields a record may leave out that the API still fills: download_product for the caller,
 * prestige, partner_licenses from this server's prices, entity_details from the keywords'
 * entities.
 */
describe.each(STORES)('fields the API fills when a record leaves them out, on $name', ({ url }) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ databaseUrl: url, deliveryUri: fakeDeliveryUri });
    const keywords = [
      { text: 'Lisbon', type: 'Location', entity_uris: ['https://www.wikidata.org/wiki/Q597'], entity_types: ['place'], translations: { de: 'Lissabon' } },
      { text: 'tram', type: 'Object' },
      { text: 'Lisboa', type: 'Location', entity_uris: ['https://www.wikidata.org/wiki/Q597'], entity_types: ['place'] },
    ];
    // Creative images sold for credits and by subscription, without partner_licenses or prestige.
    await addAssets(t.services, 'image', ['plain'], creativeImageFields({ partner_licenses: undefined, product_types: ['premiumaccess', 'creditpack'], keywords }));
    await addAssets(t.services, 'image', ['top'], creativeImageFields({ prestige: true, download_product: 'imagepack' }));
    await addAssets(t.services, 'image', ['news'], editorialImageFields());
    await addAssets(t.services, 'video', ['clip'], creativeVideoFields({ partner_licenses: undefined, partner_collection: 'signature', product_types: ['creditpack'] }));
  });
  afterAll(async () => {
    await t.close();
  });

  const get = (path: string, token?: string) =>
    t.app.inject({ method: 'GET', url: path, headers: { 'api-key': t.apiKey, ...(token ? { authorization: `Bearer ${token}` } : {}) } });
  const images = async (query: string, token?: string) => {
    const response = await get(`/v3/images?${query}`, token);
    expect(response.statusCode, response.body).toBe(200);
    return new Map(response.json<{ images: Array<Record<string, unknown> & { id: string }> }>().images.map((image) => [image.id, image]));
  };

  it('prestige is true for the curated tier and false, never null, for the rest', async () => {
    const byId = await images('ids=plain,top,news&fields=prestige');
    expect([...byId.values()].map((image) => [image.id, image.prestige])).toEqual([
      ['plain', false],
      ['top', true],
      ['news', false],
    ]);
  });

  it('download_product is the product type the caller’s download would use; without a customer, what ingest said', async () => {
    const userId = await insertUser(t.services.database.db);
    await t.services.products.grant({ userId, type: 'creditpack', credits: 10 });
    await t.services.products.grant({ userId, type: 'premiumaccess' });
    const { token } = await t.services.tokens.issue({ clientId: t.clientId, userId, grantType: 'password', lifetimeSeconds: 1800 });
    // Premium access comes before credits in the choice order, and every one of these images lists it.
    const asCustomer = await images('ids=plain,top,news&fields=download_product', token);
    expect(asCustomer.get('plain')!.download_product).toBe('premiumaccess');
    expect(asCustomer.get('news')!.download_product).toBe('premiumaccess');
    expect(asCustomer.get('top')!.download_product).toBe('premiumaccess');

    const creditsOnly = await insertUser(t.services.database.db);
    await t.services.products.grant({ userId: creditsOnly, type: 'creditpack', credits: 10 });
    const credits = (await t.services.tokens.issue({ clientId: t.clientId, userId: creditsOnly, grantType: 'password', lifetimeSeconds: 1800 })).token;
    const withCredits = await images('ids=plain,news&fields=download_product', credits);
    expect(withCredits.get('plain')!.download_product).toBe('creditpack');
    // No product of this customer licenses an editorial image.
    expect(withCredits.get('news')!.download_product).toBeNull();

    const anonymous = await images('ids=plain,top&fields=download_product');
    expect(anonymous.get('top')!.download_product).toBe('imagepack');
    expect(anonymous.get('plain')!.download_product).toBeNull();
  });

  it('partner_licenses: a record’s own list, else the credits this server charges, [] where credits buy nothing', async () => {
    const byId = await images('ids=plain,top,news&fields=partner_licenses');
    expect(byId.get('plain')!.partner_licenses).toEqual([
      { license_type: 'Standard', credits: 1 },
      { license_type: 'Multiseat', credits: 2 },
      { license_type: 'Unlimited', credits: 4 },
      { license_type: 'Resale', credits: 6 },
      { license_type: 'Indemnification', credits: 2 },
    ]);
    expect(byId.get('top')!.partner_licenses).toEqual(creativeImageFields().partner_licenses);
    expect(byId.get('news')!.partner_licenses).toEqual([]);
    // A signature video's standard license costs what a credit download of it costs.
    const video = (await get('/v3/videos/clip?fields=partner_licenses')).json<{ partner_licenses: Array<{ license_type: string; credits: number }> }>();
    expect(video.partner_licenses[0]).toEqual({ license_type: 'Standard', credits: 12 });
    expect(video.partner_licenses.map((license) => license.license_type)).toEqual(['Standard', 'Multiseat', 'Unlimited', 'Resale', 'Indemnification']);
  });

  it('entity_details: one per entity the keywords name, in keyword order, localized', async () => {
    const english = await images('ids=plain,top&fields=entity_details');
    expect(english.get('plain')!.entity_details).toEqual([
      { entity_uri: 'https://www.wikidata.org/wiki/Q597', entity_types: ['place'], name: 'Lisbon', keyword_id: expect.stringMatching(/^\d+$/) },
    ]);
    expect(english.get('top')!.entity_details).toEqual([]);
    const german = (await (await t.app.inject({ method: 'GET', url: '/v3/images?ids=plain&fields=entity_details', headers: { 'api-key': t.apiKey, 'accept-language': 'de' } })).json()) as {
      images: Array<{ entity_details: Array<{ name: string }> }>;
    };
    expect(german.images[0]!.entity_details[0]!.name).toBe('Lissabon');
  });
});
