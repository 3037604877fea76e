import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerErrorHandler } from '../../../src/platform/http/error-handler.js';
import { registerParameterReading } from '../../../src/platform/http/parameters.js';
import { validatorsByPart } from '../../../src/platform/http/validators.js';
import { normalizeSearchParameters, type RawSearchQuery } from '../../../src/search/params/normalize.js';
import { searchQuerySchema } from '../../../src/search/params/search-parameters.js';
import { SEARCH_ENDPOINTS } from '../../../src/search/params/search-values.js';
import { BASE } from './helpers.js';

/*
 * The schemas and the normalizer as the lead's routes will use them: Fastify with the app's
 * Ajv options (coerceTypes 'array', useDefaults), the app's error handler, each endpoint's
 * querystring schema, and the normalizer on the validated query.
 */
describe('behind a route, schema and normalizer answer as the API does', () => {
  let app: FastifyInstance;

  beforeAll(async () => {
    app = Fastify({
      logger: false,
      ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', useDefaults: true } },
      schemaController: { compilersFactory: { buildValidator: validatorsByPart() } },
    });
    registerErrorHandler(app);
    registerParameterReading(app);
    for (const endpoint of SEARCH_ENDPOINTS) {
      app.get(`/${endpoint}`, { schema: { querystring: searchQuerySchema(endpoint) } }, async (request) =>
        normalizeSearchParameters(endpoint, request.query as RawSearchQuery),
      );
    }
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
  });

  const get = (path: string) => app.inject({ method: 'GET', url: path });
  const query = (values: RawSearchQuery) => new URLSearchParams(values as Record<string, string>).toString();

  it.each(SEARCH_ENDPOINTS)('answers %s with the same result as the normalizer on the raw query', async (endpoint) => {
    const response = await get(`/${endpoint}?${query(BASE[endpoint])}`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual(JSON.parse(JSON.stringify(normalizeSearchParameters(endpoint, BASE[endpoint]))));
  });

  it('takes a full creative video query', async () => {
    const response = await get(
      '/videos_creative?phrase=harbour&pageSize=60&page=2&orientation=Vertical&aspect_ratio=9:16&ethnicity=east%20asian' +
        '&include_facets=TRUE&facet_fields=artists&min_clip_length=5&max_clip_length=30&download_product=premiumaccess:1234' +
        '&keyword_ids=12&keyword_ids=7&safe_search=true&enhanced_search=False&sort_order=random',
    );
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({
      endpoint: 'videos_creative',
      phrase: 'harbour',
      page: 2,
      page_size: 60,
      sort_order: 'random',
      enhanced_search: false,
      include_related_searches: false,
      facets: { include: true, fields: ['artists'], max_count: 300 },
      filters: {
        orientations: ['vertical'],
        aspect_ratios: ['9:16'],
        ethnicity: ['east_asian'],
        min_clip_length: 5,
        max_clip_length: 30,
        download_product: { product_type: 'premiumaccess', product_id: 1234 },
        keyword_ids: [12, 7],
        safe_search: true,
      },
    });
  });

  it('answers the named 400s', async () => {
    const cases: Array<[string, string, RegExp]> = [
      ['/images_creative?moods=sunny', 'InvalidParameterValue', /^Invalid value for parameter 'moods': 'sunny' is not one of black_and_white, bold/],
      ['/images?page=0', 'InvalidPage', /^Invalid value for parameter 'page'/],
      ['/images?page=x', 'InvalidPage', /^Invalid value for parameter 'page'/],
      ['/events?phrase=a&page=51', 'InvalidPage', /^Invalid value for parameter 'page'/],
      ['/images?page_size=7', 'InvalidPageSize', /^Invalid value for parameter 'page_size': '7' is not one of/],
      ['/images?pageSize=500', 'InvalidPageSize', /^Invalid value for parameter 'pageSize'/],
      ['/images?colour=red', 'MalformedRequest', /^Unknown parameter 'colour'$/],
      ['/events', 'SearchPhraseOrEditorialSegmentRequired', /^At least one of phrase and editorial_segment/],
      ['/images_creative_by_image', 'InvalidParameterValue', /^Exactly one of the parameters 'asset_id' and 'image_url'/],
      ['/artists_images', 'InvalidParameterValue', /^Missing required parameter 'artist_name'$/],
      ['/images_creative?safe_search=yes', 'InvalidParameterValue', /^Invalid value for parameter 'safe_search': 'yes' is not true or false$/],
      ['/images_editorial?date_from=2023-02-29', 'InvalidParameterValue', /^Invalid value for parameter 'date_from'/],
    ];
    for (const [path, code, message] of cases) {
      const response = await get(path);
      expect(response.statusCode, path).toBe(400);
      expect(response.json().code, path).toBe(code);
      expect(response.json().message, path).toMatch(message);
    }
  });
});
