import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES, createTestApp, type TestApp } from '../helpers/test-app.js';
import { addImage } from '../helpers/catalog-fixtures.js';

describe.each(STORES)('image metadata endpoints on $name', ({ url }) => {
  let t: TestApp;
  const get = (path: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: path, headers: { 'api-key': t.apiKey, ...headers } });
  /** The one image of GET /v3/images/{id}, which answers the wrapper of GET /v3/images. */
  const image = async (path: string, headers: Record<string, string> = {}) => (await get(path, headers)).json().images[0];

  beforeAll(async () => {
    t = await createTestApp({ databaseUrl: url });
    await addImage(t.services, '1001');
    await addImage(t.services, '1002', { width: 600, height: 900, fields: { title: 'Tall one' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers summary_set by default, id always included', async () => {
    const response = await get('/v3/images/1001');
    expect(response.statusCode).toBe(200);
    expect(Object.keys(response.json().images[0]).sort()).toEqual(
      ['id', 'artist', 'asset_family', 'caption', 'collection_code', 'collection_id', 'collection_name', 'license_model', 'max_dimensions', 'title'].sort(),
    );
    expect(response.json().images[0]).toMatchObject({ id: '1001', artist: 'Ada Lens', collection_id: 7, max_dimensions: { width: 1200, height: 800 } });
  });

  it('answers /images/{id} with the wrapper of /images, its one image_detail inside (clients read images[0])', async () => {
    const byId = await get('/v3/images/1001?fields=title');
    expect(byId.statusCode).toBe(200);
    expect(byId.json()).toEqual({ images: [{ id: '1001', title: 'Title of 1001' }], images_not_found: [] });
    expect(byId.json()).toEqual((await get('/v3/images?ids=1001&fields=title')).json());
  });

  it('answers detail_set with every field of the set', async () => {
    const body = await image('/v3/images/1001?fields=detail_set');
    for (const field of ['allowed_use', 'artist_title', 'call_for_image', 'city', 'color_type', 'copyright', 'country', 'credit_line', 'date_created', 'date_submitted', 'editorial_segments', 'event_ids', 'graphical_style', 'orientation', 'prestige', 'product_types', 'quality_rank', 'referral_destinations', 'state_province']) {
      expect(body, field).toHaveProperty(field);
    }
    // download_sizes reaches detail_set only with a token.
    expect(body).not.toHaveProperty('download_sizes');
  });

  it('combines sets, single fields and display sizes freely', async () => {
    const body = await image('/v3/images/1001?fields=id,keywords,people,thumb,comp_webp,partner_licenses');
    expect(Object.keys(body).sort()).toEqual(['display_sizes', 'id', 'keywords', 'partner_licenses', 'people']);
    expect(body.display_sizes.map((d: { name: string }) => d.name)).toEqual(['thumb', 'comp_webp']);
    expect(body.keywords[0]).toEqual({ keyword_id: expect.any(String), text: 'harbour', type: 'Concept', relevance: 5, entity_uris: [], entity_types: [] });
  });

  it('answers display_set with comp, preview and thumb', async () => {
    const body = await image('/v3/images/1001?fields=display_set');
    expect(body.display_sizes.map((d: { name: string }) => d.name).sort()).toEqual(['comp', 'preview', 'thumb']);
  });

  it('offers every display size with signed URIs that carry a file extension', async () => {
    const all = 'thumb,preview,comp,mid_res_comp,high_res_comp,comp_webp,mid_res_comp_webp,high_res_comp_webp';
    const body = await image(`/v3/images/1001?fields=${all}`);
    const names = body.display_sizes.map((d: { name: string }) => d.name);
    expect(names).toEqual(all.split(','));
    for (const size of body.display_sizes) {
      expect(size.uri).toMatch(/^http:\/\/stockroom\.test\/display\/1001\/[a-z_]+\.(jpg|webp)\?expires=\d+&signature=/);
      expect(size.width).toBeGreaterThan(0);
    }
    const preview = body.display_sizes.find((d: { name: string }) => d.name === 'preview');
    const comp = body.display_sizes.find((d: { name: string }) => d.name === 'comp');
    expect(preview.uri).toBe(comp.uri);
    expect(body.display_sizes.find((d: { name: string }) => d.name === 'thumb').is_watermarked).toBe(false);
    expect(comp.is_watermarked).toBe(true);
  });

  it('returns records whose sub-objects lack members, null for a value and [] for a list a record lacks', async () => {
    await t.services.catalog.upsertAsset({
      asset_type: 'image',
      id: 'sparse',
      fields: {
        allowed_use: { release_info: 'Not released' },
        editorial_source: { id: 5 },
        download_sizes: [{ name: 'original' }],
        referral_destinations: [{ site_name: 'partner' }],
        keywords: ['plain'].map((text) => ({ text })),
      },
    });
    const token = await t.issueToken();
    const response = await get('/v3/images?ids=sparse,1001&fields=allowed_use,editorial_source,download_sizes,referral_destinations,keywords,prestige,alternative_ids', {
      authorization: `Bearer ${token}`,
    });
    expect(response.statusCode).toBe(200);
    const sparse = response.json().images[0];
    expect(sparse).toMatchObject({
      id: 'sparse',
      allowed_use: { release_info: 'Not released' },
      editorial_source: { id: 5 },
      download_sizes: [{ name: 'original' }],
      // Not in the curated top tier: false, not null.
      prestige: false,
      // An absent list is an empty list.
      alternative_ids: [],
    });
  });

  it('rejects an unknown field with 400 InvalidParameterValue naming it', async () => {
    const response = await get('/v3/images/1001?fields=title,colour');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ code: 'InvalidParameterValue', message: expect.stringContaining("'colour'") });
  });

  it('localizes keyword text by Accept-Language, en-US by default', async () => {
    const german = await image('/v3/images/1001?fields=keywords', { 'accept-language': 'de-DE,de;q=0.9' });
    expect(german.keywords.map((k: { text: string }) => k.text)).toEqual(['Hafen', 'boat']);
    const french = await image('/v3/images/1001?fields=keywords', { 'accept-language': 'fr' });
    expect(french.keywords[0].text).toBe('port');
    const plain = await image('/v3/images/1001?fields=keywords');
    expect(plain.keywords[0].text).toBe('harbour');
  });

  it('lists several images and the unknown ids in images_not_found', async () => {
    const response = await get('/v3/images?ids=1002,nope,1001&fields=title');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      images: [
        { id: '1002', title: 'Tall one' },
        { id: '1001', title: 'Title of 1001' },
      ],
      images_not_found: ['nope'],
    });
  });

  it('requires ids: 400 ImageIdMustBeSpecified', async () => {
    const response = await get('/v3/images');
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe('ImageIdMustBeSpecified');
  });

  it('refuses more than 100 ids with 400', async () => {
    const ids = Array.from({ length: 101 }, (_, i) => String(i)).join(',');
    const response = await get(`/v3/images?ids=${ids}`);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'InvalidParameterValue', message: expect.stringContaining('ids') });
  });

  it('answers 404 ImageNotFound naming an unknown id', async () => {
    const response = await get('/v3/images/999999');
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ code: 'ImageNotFound', message: expect.stringContaining('999999') });
  });

  it('pages through ids with page and page_size', async () => {
    const body = (await get('/v3/images?ids=1001,1002&fields=id&page=2&page_size=1')).json();
    expect(body.images).toEqual([{ id: '1002' }]);
  });

  it('answers 400 InvalidPage and InvalidPageSize for bad paging', async () => {
    expect((await get('/v3/images?ids=1001&page=0')).json().code).toBe('InvalidPage');
    expect((await get('/v3/images?ids=1001&page_size=abc')).json().code).toBe('InvalidPageSize');
  });

  it('pages by the rule the searches follow: whole numbers in plain digits only', async () => {
    for (const value of ['Infinity', '-Infinity', '1e308', '1e2', '1.5']) {
      for (const [parameter, code] of [['page', 'InvalidPage'], ['page_size', 'InvalidPageSize'], ['pageSize', 'InvalidPageSize']]) {
        const response = await get(`/v3/images?ids=1001&${parameter}=${value}`);
        expect(response.statusCode, `${parameter}=${value}`).toBe(400);
        expect(response.json(), `${parameter}=${value}`).toEqual({ code, message: `Invalid value for parameter '${parameter}': '${value}' is not a whole number` });
      }
    }
  });

  it('answers 400 naming a misspelled parameter', async () => {
    const response = await get('/v3/images?ids=1001&feilds=title');
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toContain('feilds');
  });

  describe('download information needs a bearer token', () => {
    for (const field of ['download_sizes', 'downloads', 'largest_downloads']) {
      it(`answers 401 with the Bearer challenge for ${field} without a token`, async () => {
        const response = await get(`/v3/images/1001?fields=${field}`);
        expect(response.statusCode).toBe(401);
        expect(response.json().code).toBe('AuthorizationTokenRequired');
        // RFC 6750 §3.1: a request that sent no token learns no error code.
        expect(response.headers['www-authenticate']).toBe('Bearer realm="Stockroom"');
      });
    }

    it('answers 401 Unauthorized with error="invalid_token" for an unknown token', async () => {
      const response = await get('/v3/images/1001?fields=download_sizes', { authorization: 'Bearer not-a-token' });
      expect(response.statusCode).toBe(401);
      expect(response.json().code).toBe('Unauthorized');
      expect(response.headers['www-authenticate']).toMatch(/^Bearer realm="Stockroom", error="invalid_token", error_description="[^"]+"$/);
    });

    it('answers 401 with error="invalid_request" for a malformed Bearer header', async () => {
      const response = await get('/v3/images/1001?fields=download_sizes', { authorization: 'Bearer two words' });
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toContain('error="invalid_request"');
    });

    it('answers the bare challenge to another scheme, which is no bearer token at all (RFC 6750 §3.1)', async () => {
      const response = await get('/v3/images/1001?fields=download_sizes', { authorization: 'Basic dXNlcjpwYXNz' });
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer realm="Stockroom"');
    });

    it('answers 401 for an expired token', async () => {
      const token = await t.issueToken(-1);
      const response = await get('/v3/images/1001?fields=download_sizes', { authorization: `Bearer ${token}` });
      expect(response.statusCode).toBe(401);
      expect(response.json().message).toMatch(/expired/);
    });

    it('returns download sizes derived from the original with a valid token', async () => {
      const token = await t.issueToken();
      const body = await image('/v3/images/1001?fields=download_sizes,largest_downloads', { authorization: `Bearer ${token}` });
      expect(body.download_sizes.length).toBeGreaterThan(0);
      for (const size of body.download_sizes) {
        expect(size).toEqual({ bytes: expect.any(Number), height: expect.any(Number), width: expect.any(Number), media_type: expect.any(String), name: expect.any(String), dpi: expect.any(Number) });
      }
      const largest = body.download_sizes.reduce((a: { width: number }, b: { width: number }) => (b.width > a.width ? b : a));
      expect(body.largest_downloads).toEqual([{ ...largest, downloads: [] }]);
      expect(largest).toMatchObject({ width: 1200, height: 800 });
    });

    it('adds download_sizes to detail_set when a token is present', async () => {
      const token = await t.issueToken();
      const body = await image('/v3/images/1001?fields=detail_set', { authorization: `Bearer ${token}` });
      expect(body.download_sizes.length).toBeGreaterThan(0);
    });
  });
});
