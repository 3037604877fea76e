import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/catalog/demo/demo-catalog.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

describe('search endpoints on the demo catalogue', () => {
  let t: TestApp;
  const get = (url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url, headers: { 'api-key': t.apiKey, ...headers } });

  beforeAll(async () => {
    t = await createTestApp();
    await seedDemo({ catalog: t.services.catalog, blobs: t.services.blobs }, { images: 60, videos: 8, events: 8 });
    await t.services.search.build();
  }, 120_000);
  afterAll(async () => {
    await t.close();
  });

  it('finds a theme first when searching for it (relevance a person would agree with)', async () => {
    const body = (await get('/v3/search/images?phrase=skyline&fields=title,keywords')).json();
    expect(body.result_count).toBeGreaterThan(0);
    const top = body.images[0];
    const words = `${top.title} ${top.keywords.map((k: { text: string }) => k.text).join(' ')}`.toLowerCase();
    expect(words).toContain('skyline');
  });

  it('answers result_count exactly and pages through the same order', async () => {
    const all = (await get('/v3/search/images?page_size=100&fields=id')).json();
    expect(all.result_count).toBe(60);
    const first = (await get('/v3/search/images?page_size=10&page=1&fields=id')).json();
    const second = (await get('/v3/search/images?page_size=10&page=2&fields=id')).json();
    expect([...first.images, ...second.images].map((i: { id: string }) => i.id)).toEqual(all.images.slice(0, 20).map((i: { id: string }) => i.id));
  });

  it('keeps creative and editorial apart', async () => {
    const creative = (await get('/v3/search/images/creative?page_size=100&fields=asset_family')).json();
    const editorial = (await get('/v3/search/images/editorial?page_size=100&fields=asset_family')).json();
    expect(new Set(creative.images.map((i: { asset_family: string }) => i.asset_family))).toEqual(new Set(['creative']));
    expect(new Set(editorial.images.map((i: { asset_family: string }) => i.asset_family))).toEqual(new Set(['editorial']));
    expect(creative.result_count + editorial.result_count).toBe(60);
  });

  it('filters by orientation', async () => {
    const body = (await get('/v3/search/images?orientations=vertical&page_size=100&fields=orientation')).json();
    expect(body.result_count).toBeGreaterThan(0);
    expect(new Set(body.images.map((i: { orientation: string }) => i.orientation))).toEqual(new Set(['Vertical']));
  });

  it('sorts by newest and oldest', async () => {
    const newest = (await get('/v3/search/images/editorial?sort_order=newest&page_size=100&fields=date_created')).json();
    const dates = newest.images.map((i: { date_created: string }) => i.date_created);
    expect([...dates].sort().reverse()).toEqual(dates);
    const oldest = (await get('/v3/search/images/editorial?sort_order=oldest&page_size=100&fields=date_created')).json();
    expect(oldest.images.map((i: { date_created: string }) => i.date_created)).toEqual([...dates].reverse());
  });

  it('has series in the demo: the creative pictures of one shoot', async () => {
    const token = await t.issueToken();
    const body = (await get('/v3/images/1000001/same-series?fields=id,artist,date_created', { authorization: `Bearer ${token}` })).json();
    expect(body.result_count).toBe(2);
    const source = (await get('/v3/images/1000001?fields=artist,date_created')).json().images[0];
    for (const image of body.images) {
      expect(image.artist).toBe(source.artist);
      expect(image.date_created.slice(0, 10)).toBe(source.date_created.slice(0, 10));
    }
    expect(new Set(body.images.map((i: { id: string }) => i.id))).toEqual(new Set(['1000003', '1000005']));
  });

  it('keeps random order stable across the pages of one query', async () => {
    const a = (await get('/v3/search/images?sort_order=random&page_size=10&fields=id')).json();
    const b = (await get('/v3/search/images?sort_order=random&page_size=10&fields=id')).json();
    expect(a.images).toEqual(b.images);
  });

  it('returns facets over the whole match set on include_facets=true', async () => {
    const body = (await get('/v3/search/images/editorial?include_facets=true&page_size=1&fields=id')).json();
    expect(body.images).toHaveLength(1);
    const artistTotal = body.facets.artists.length;
    expect(artistTotal).toBeGreaterThan(1);
    expect(body.facets.events.length).toBeGreaterThan(0);
    expect(body.facets.events[0]).toEqual({ id: expect.any(Number), name: expect.any(String), date: expect.any(String) });
    expect(body.facets.locations[0]).toEqual({ id: expect.any(Number), name: expect.any(String) });
    const capped = (await get('/v3/search/images/editorial?include_facets=true&facet_max_count=1&fields=id')).json();
    expect(capped.facets.artists).toHaveLength(1);
  });

  it('answers 400 for a bad filter value, naming the parameter', async () => {
    const response = await get('/v3/search/images/creative?moods=sunny');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'InvalidParameterValue', message: expect.stringContaining("'moods'") });
  });

  it('answers InvalidPageSize for a page size outside the spec’s list', async () => {
    const response = await get('/v3/search/images?page_size=7');
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe('InvalidPageSize');
  });

  it('searches videos', async () => {
    const body = (await get('/v3/search/videos?page_size=100&fields=id')).json();
    expect(body.result_count).toBe(8);
    expect(body.videos[0].id).toMatch(/^v/);
  });

  it('searches events by phrase or segment, and requires one of them', async () => {
    const missing = await get('/v3/search/events');
    expect(missing.statusCode).toBe(400);
    expect(missing.json().code).toBe('SearchPhraseOrEditorialSegmentRequired');
    const bySegment = (await get('/v3/search/events?editorial_segment=sport&fields=id,name,editorial_segments')).json();
    for (const event of bySegment.events) expect(event.editorial_segments).toContain('sport');
  });

  it('finds an ingested asset within a moment, without a restart', async () => {
    await t.services.catalog.upsertAsset({ asset_type: 'image', id: '7777777', fields: { title: 'Zanzibar lighthouse at dusk', asset_family: 'creative' } });
    await t.services.changeFeed.poll();
    await t.services.search.settled();
    const body = (await get('/v3/search/images?phrase=zanzibar&fields=id')).json();
    expect(body.images.map((i: { id: string }) => i.id)).toEqual(['7777777']);
  });
});
