import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/catalog/demo/demo-catalog.js';
import { POSTGRES_URL, createTestApp, type TestApp } from '../helpers/test-app.js';

/** Searches whose answers must not depend on the store the index was read from. */
const SEARCHES = [
  '/v3/search/images?phrase=city&fields=id,title&page_size=100',
  '/v3/search/images?phrase=marathon%20runners&fields=id&page_size=100',
  '/v3/search/images/creative?phrase=portrait&sort_order=newest&fields=id,date_created&page_size=100',
  '/v3/search/images/creative?include_facets=true&facet_fields=artists,locations&fields=id&page_size=20',
  '/v3/search/images/editorial?phrase=festival&include_facets=true&fields=id,event_ids&page_size=100',
  '/v3/search/images/editorial?sort_order=oldest&editorial_segments=sport&fields=id&page_size=100',
  '/v3/search/images?orientations=vertical&sort_order=random&fields=id&page_size=50&page=2',
  '/v3/search/images?phrase=people%20-city&fields=id&page_size=100',
  '/v3/search/videos?phrase=city&fields=id&page_size=100',
  '/v3/search/events?editorial_segment=sport&fields=id,name',
  '/v3/search/events?phrase=festival&sort_order=oldest&fields=id,name',
];

describe.skipIf(!POSTGRES_URL)('search on SQLite and on PostgreSQL', () => {
  const apps: TestApp[] = [];

  beforeAll(async () => {
    for (const databaseUrl of [undefined, POSTGRES_URL]) {
      const t = await createTestApp({ databaseUrl });
      await seedDemo({ catalog: t.services.catalog, blobs: t.services.blobs }, { images: 48, videos: 8, events: 8 });
      await t.services.search.build();
      apps.push(t);
    }
  }, 240_000);
  afterAll(async () => {
    for (const t of apps) await t.close();
  });

  it.each(SEARCHES)('answers %s the same way', async (url) => {
    const [sqlite, postgres] = await Promise.all(
      apps.map((t) => t.app.inject({ method: 'GET', url, headers: { 'api-key': t.apiKey } })),
    );
    expect(sqlite!.statusCode).toBe(200);
    expect(postgres!.statusCode).toBe(200);
    expect(postgres!.json()).toEqual(sqlite!.json());
  });

  it('finds something for most of these searches (the comparison is not between two empty answers)', async () => {
    const t = apps[0]!;
    let nonEmpty = 0;
    for (const url of SEARCHES) {
      const body = (await t.app.inject({ method: 'GET', url, headers: { 'api-key': t.apiKey } })).json();
      if (body.result_count > 0) nonEmpty++;
    }
    expect(nonEmpty).toBeGreaterThanOrEqual(SEARCHES.length - 3);
  });
});
