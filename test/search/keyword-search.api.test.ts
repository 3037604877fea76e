import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { seedDemo } from '../../src/catalog/demo/demo-catalog.js';
import { IngestService } from '../../src/catalog/ingest/ingest.service.js';
import { loadConfig } from '../../src/config/config.js';
import { addImage } from '../helpers/catalog-fixtures.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/*
 * The keyword searches over the demo catalogue (60 images, 8 videos, 8 events) and a few
 * crafted assets: every endpoint, sort, count, facet, matching mode, filter and error.
 */

interface Item {
  id: string;
  [field: string]: unknown;
}

const KEYWORD_ENDPOINTS = [
  { path: '/v3/search/images', property: 'images', family: undefined },
  { path: '/v3/search/images/creative', property: 'images', family: 'creative' },
  { path: '/v3/search/images/editorial', property: 'images', family: 'editorial' },
  { path: '/v3/search/videos', property: 'videos', family: undefined },
  { path: '/v3/search/videos/creative', property: 'videos', family: 'creative' },
  { path: '/v3/search/videos/editorial', property: 'videos', family: 'editorial' },
] as const;

/** The demo's own collections: a fixture must not contradict them. */
const CREATIVE = { asset_family: 'creative', collection_code: 'STK', collection_id: 101, collection_name: 'Stockroom Creative' };

let t: TestApp;
const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers: { 'api-key': t.apiKey, ...headers } });
const ok = async (url: string) => {
  const response = await get(url);
  expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
  return response.json();
};
const itemsOf = (body: Record<string, unknown>): Item[] => (body.images ?? body.videos ?? body.events) as Item[];
const idsOf = async (url: string) => itemsOf(await ok(url)).map((item) => item.id);
const withQuery = (url: string, query: string) => `${url}${url.includes('?') ? '&' : '?'}${query}`;

/** Every id of a search, page by page; checks that no page repeats an id and that the count is exact. */
async function pageThrough(url: string, pageSize: number): Promise<string[]> {
  const ids: string[] = [];
  let resultCount = -1;
  for (let page = 1; page <= 50; page++) {
    const body = await ok(withQuery(url, `page=${page}&page_size=${pageSize}&fields=id`));
    resultCount = body.result_count;
    const items = itemsOf(body);
    if (items.length === 0) break;
    ids.push(...items.map((item) => item.id));
  }
  expect(new Set(ids).size, url).toBe(ids.length);
  expect(ids.length, url).toBe(resultCount);
  return ids;
}

/** The words of a result that say what it shows: its title and keywords. */
const wordsOf = (item: Item) =>
  `${item.title as string} ${((item.keywords as Array<{ text: string }>) ?? []).map((k) => k.text).join(' ')}`.toLowerCase();

beforeAll(async () => {
  t = await createTestApp();
  await seedDemo({ catalog: t.services.catalog, blobs: t.services.blobs }, { images: 60, videos: 8, events: 8 });
  await addImage(t.services, '9000001', {
    fields: { ...CREATIVE, title: 'Running dog', caption: 'A terrier at full speed.', keywords: [{ text: 'terrier' }, { text: 'pet' }] },
  });
  await addImage(t.services, '9000002', {
    fields: { ...CREATIVE, title: 'Dog running on the beach', caption: 'Sand and surf.', keywords: [{ text: 'beach' }, { text: 'pet' }] },
  });
  await t.services.changeFeed.poll();
  await t.services.search.settled();
}, 180_000);
afterAll(async () => {
  await t.close();
});

describe('every keyword endpoint', () => {
  it.each(KEYWORD_ENDPOINTS)('$path answers its family with the summary set', async ({ path: url, property, family }) => {
    const body = await ok(withQuery(url, 'phrase=people'));
    expect(Object.keys(body)).toEqual(['result_count', property]);
    expect(body.result_count).toBeGreaterThan(0);
    for (const item of body[property] as Item[]) {
      expect(item).toMatchObject({ id: expect.any(String), title: expect.any(String), asset_family: family ?? expect.stringMatching(/^(creative|editorial)$/) });
      expect(item.id.startsWith('v')).toBe(property === 'videos');
    }
  });

  it('splits the blended counts exactly into creative and editorial', async () => {
    for (const media of ['images', 'videos']) {
      const blended = (await ok(`/v3/search/${media}?fields=id`)).result_count;
      const creative = (await ok(`/v3/search/${media}/creative?fields=id`)).result_count;
      const editorial = (await ok(`/v3/search/${media}/editorial?fields=id`)).result_count;
      expect(creative + editorial).toBe(blended);
    }
    expect((await ok('/v3/search/images?fields=id')).result_count).toBe(62);
    expect((await ok('/v3/search/videos?fields=id')).result_count).toBe(8);
  });
});

describe('result_count', () => {
  it.each([
    '/v3/search/images',
    '/v3/search/images?phrase=people',
    '/v3/search/images/creative?phrase=city',
    '/v3/search/images/editorial?phrase=festival&sort_order=oldest',
    '/v3/search/images?phrase=people&sort_order=random',
    '/v3/search/videos?phrase=london',
  ])('is the number of ids paging through everything gives: %s', async (url) => {
    const viaSmallPages = await pageThrough(url, 5);
    const viaOnePage = await idsOf(withQuery(url, 'page_size=100&fields=id'));
    expect(viaSmallPages).toEqual(viaOnePage);
  });

  it('stays the same past the last page, which is empty', async () => {
    const body = await ok('/v3/search/images?phrase=concert&page=40&page_size=10&fields=id');
    expect(body.images).toEqual([]);
    expect(body.result_count).toBe((await ok('/v3/search/images?phrase=concert&fields=id')).result_count);
  });
});

describe('sort orders', () => {
  it('best_match puts the strongest match first', async () => {
    // Title outweighs caption and keywords: the one titled with both words comes first.
    expect((await idsOf('/v3/search/images/creative?phrase=running%20dog&fields=id'))[0]).toBe('9000001');
  });

  it('newest and oldest order by creation date, oldest only where the contract offers it', async () => {
    for (const url of ['/v3/search/images?phrase=people', '/v3/search/images/creative', '/v3/search/videos/editorial']) {
      const dates = itemsOf(await ok(withQuery(url, 'sort_order=newest&page_size=100&fields=id,date_created'))).map((i) => i.date_created as string);
      expect(dates.length).toBeGreaterThan(1);
      expect(dates).toEqual([...dates].sort().reverse());
    }
    for (const url of ['/v3/search/images/editorial?phrase=people', '/v3/search/videos/editorial']) {
      const newest = itemsOf(await ok(withQuery(url, 'sort_order=newest&page_size=100&fields=id,date_created')));
      const oldest = itemsOf(await ok(withQuery(url, 'sort_order=oldest&page_size=100&fields=id,date_created')));
      expect(oldest.map((i) => i.date_created)).toEqual(newest.map((i) => i.date_created).reverse());
    }
    for (const url of ['/v3/search/images', '/v3/search/images/creative', '/v3/search/videos', '/v3/search/videos/creative']) {
      const response = await get(withQuery(url, 'sort_order=oldest'));
      expect(response.statusCode, url).toBe(400);
      expect(response.json()).toMatchObject({ code: 'InvalidParameterValue', message: expect.stringContaining("'sort_order'") });
    }
  });

  it('most_popular answers the same matches, in an order stable across pages', async () => {
    const popular = await pageThrough('/v3/search/images?phrase=people&sort_order=most_popular', 10);
    const best = await pageThrough('/v3/search/images?phrase=people', 10);
    expect([...popular].sort()).toEqual([...best].sort());
  });

  it('random is one permutation for every page of a query, and another for another query', async () => {
    const url = '/v3/search/images?phrase=people&sort_order=random';
    const paged = await pageThrough(url, 10);
    expect(await pageThrough(url, 10)).toEqual(paged);
    const best = await pageThrough('/v3/search/images?phrase=people', 10);
    expect([...paged].sort()).toEqual([...best].sort());
    expect(paged).not.toEqual(best);
    // The same matches asked another way (an exclusion that leaves nothing out): a different shuffle.
    const other = await pageThrough('/v3/search/images?phrase=people%20-zeppelin&sort_order=random', 10);
    expect([...other].sort()).toEqual([...paged].sort());
    expect(other).not.toEqual(paged);
  });
});

describe('facets', () => {
  it('are absent unless include_facets=true', async () => {
    expect(await ok('/v3/search/images/creative?phrase=city&fields=id')).not.toHaveProperty('facets');
  });

  it('creative searches count artists and locations over the whole match set', async () => {
    for (const url of ['/v3/search/images/creative', '/v3/search/videos/creative']) {
      const body = await ok(withQuery(url, 'include_facets=true&page_size=1&fields=id'));
      expect(Object.keys(body.facets).sort()).toEqual(['artists', 'locations']);
      const all = itemsOf(await ok(withQuery(url, 'page_size=100&fields=id,artist')));
      expect(body.facets.artists.map((a: { name: string }) => a.name).sort()).toEqual([...new Set(all.map((i) => i.artist))].sort());
      for (const location of body.facets.locations) expect(location).toEqual({ id: expect.any(Number), name: expect.any(String) });
    }
  });

  it('editorial searches count artists, events, locations and specific people', async () => {
    const body = await ok('/v3/search/images/editorial?include_facets=true&page_size=100&fields=id,event_ids,people');
    expect(Object.keys(body.facets).sort()).toEqual(['artists', 'events', 'locations', 'specific_people']);
    const eventIds = new Set(body.images.flatMap((i: Item) => i.event_ids as number[]));
    expect(new Set(body.facets.events.map((e: { id: number }) => e.id))).toEqual(eventIds);
    for (const event of body.facets.events) expect(event).toEqual({ id: expect.any(Number), name: expect.any(String), date: expect.any(String) });
    const people = new Set(body.images.flatMap((i: Item) => i.people as string[]));
    expect(new Set(body.facets.specific_people.map((p: { name: string }) => p.name))).toEqual(people);
    const videos = await ok('/v3/search/videos/editorial?include_facets=true&fields=id');
    expect(Object.keys(videos.facets).sort()).toEqual(['artists', 'events', 'locations', 'specific_people']);
  });

  it('follow the filters, keep to facet_fields, and stop at facet_max_count', async () => {
    const filtered = await ok('/v3/search/images/editorial?artists=Maren%20Holt&include_facets=true&facet_fields=artists&fields=id');
    expect(filtered.facets).toEqual({ artists: [{ name: 'Maren Holt' }] });
    const subset = await ok('/v3/search/images/editorial?include_facets=true&facet_fields=locations,events&fields=id');
    expect(Object.keys(subset.facets).sort()).toEqual(['events', 'locations']);
    const capped = await ok('/v3/search/images/editorial?include_facets=true&facet_max_count=2&fields=id');
    for (const [name, values] of Object.entries(capped.facets)) expect((values as unknown[]).length, name).toBe(2);
  });

  it('take artist names as free text, whatever their case and spacing', async () => {
    const exact = await ok('/v3/search/images/editorial?artists=Maren%20Holt&page_size=100&fields=id');
    const loose = await ok('/v3/search/images/editorial?artists=%20maren%20%20HOLT&page_size=100&fields=id');
    expect(exact.result_count).toBeGreaterThan(0);
    expect(loose).toEqual(exact);
  });

  it('give locations in the language of Accept-Language, with the same ids', async () => {
    const url = '/v3/search/images/editorial?include_facets=true&facet_fields=locations&fields=id';
    const english = (await get(url)).json().facets.locations as Array<{ id: number; name: string }>;
    const german = (await get(url, { 'accept-language': 'de-DE,de;q=0.9' })).json().facets.locations as Array<{ id: number; name: string }>;
    expect(german.map((l) => l.id)).toEqual(english.map((l) => l.id));
    const englishCountries = new Set(english.map((l) => l.name.split(', ').at(-1)));
    const germanCountries = new Set(german.map((l) => l.name.split(', ').at(-1)));
    expect(germanCountries).not.toEqual(englishCountries);
    if (englishCountries.has('Germany')) expect(germanCountries.has('Deutschland')).toBe(true);
  });

  it('refuses facets an endpoint does not have, and counts out of range (400)', async () => {
    const events = await get('/v3/search/images/creative?include_facets=true&facet_fields=events');
    expect(events.statusCode).toBe(400);
    expect(events.json()).toMatchObject({ code: 'InvalidParameterValue', message: expect.stringContaining("'facet_fields'") });
    const zero = await get('/v3/search/images/editorial?include_facets=true&facet_max_count=0');
    expect(zero.statusCode).toBe(400);
    expect(zero.json().message).toContain('facet_max_count');
    const blended = await get('/v3/search/images?include_facets=true');
    expect(blended.statusCode).toBe(400);
    expect(blended.json().code).toBe('MalformedRequest');
  });
});

describe('matching', () => {
  it('enhanced search matches word forms; precise search only the words as written', async () => {
    expect(await idsOf('/v3/search/images/creative?phrase=running%20dogs&fields=id')).toContain('9000001');
    expect(await idsOf('/v3/search/images/creative?phrase=running%20dogs&enhanced_search=true&fields=id')).toContain('9000001');
    expect(await idsOf('/v3/search/images/creative?phrase=running%20dogs&enhanced_search=false&fields=id')).toEqual([]);
    expect(await idsOf('/v3/search/images/creative?phrase=running%20dog&enhanced_search=false&fields=id')).toEqual(
      expect.arrayContaining(['9000001', '9000002']),
    );
    // Only the creative searches take enhanced_search.
    expect((await get('/v3/search/images/editorial?phrase=dog&enhanced_search=false')).statusCode).toBe(400);
  });

  it('matches a quoted phrase as consecutive words, and leaves out -excluded words', async () => {
    const both = await idsOf('/v3/search/images?phrase=running%20dog&fields=id');
    expect(both).toEqual(expect.arrayContaining(['9000001', '9000002']));
    expect(await idsOf(`/v3/search/images?phrase=${encodeURIComponent('"running dog"')}&fields=id`)).toEqual(['9000001']);
    expect(await idsOf(`/v3/search/images?phrase=${encodeURIComponent('"dog running"')}&fields=id`)).toEqual(['9000002']);
    expect(await idsOf(`/v3/search/images?phrase=${encodeURIComponent('dog -beach')}&fields=id`)).toEqual(['9000001']);
    expect(await idsOf(`/v3/search/images?phrase=${encodeURIComponent('pet -"running dog"')}&fields=id`)).toEqual(['9000002']);
  });

  it('suggests a corrected phrase for a misspelled word', async () => {
    const body = await ok('/v3/search/images?phrase=skylnie&fields=id');
    expect(body).toMatchObject({ result_count: 0, images: [], auto_corrections: { phrase: 'skyline' } });
  });

  it.each([
    ['laboratory', ['science', 'laboratory']],
    ['skyline', ['city', 'skyline']],
    ['concert', ['music', 'concert']],
    ['vegetables', ['food', 'vegetable']],
    ['marathon', ['sport', 'marathon']],
    ['mountain lake', ['nature']],
  ])('finds a theme first when searching for it: %s', async (phrase, themeWords) => {
    const body = await ok(`/v3/search/images?phrase=${encodeURIComponent(phrase)}&fields=title,keywords&page_size=3`);
    expect(body.result_count).toBeGreaterThan(0);
    for (const top of body.images as Item[]) {
      const words = wordsOf(top);
      expect(themeWords.every((word) => words.includes(word)), `${phrase}: ${words}`).toBe(true);
    }
  });
});

describe('filters', () => {
  const values = async (url: string, field: string) => itemsOf(await ok(withQuery(url, `page_size=100&fields=id,${field}`))).map((i) => i[field]);

  it('narrow the results to what they name', async () => {
    expect(new Set(await values('/v3/search/images?orientations=vertical,square', 'orientation'))).toEqual(new Set(['Vertical', 'Square']));
    expect(new Set(await values('/v3/search/images?artists=Maren%20Holt,Priya%20Raman', 'artist'))).toEqual(new Set(['Maren Holt', 'Priya Raman']));
    expect(new Set(await values('/v3/search/images?collection_codes=NWS', 'collection_code'))).toEqual(new Set(['NWS']));
    const excluded = await values('/v3/search/images?collection_codes=NWS,STK&collections_filter_type=exclude', 'collection_code');
    expect(excluded.length).toBeGreaterThan(0);
    expect(excluded).not.toContain('NWS');
    expect(excluded).not.toContain('STK');
    for (const segments of await values('/v3/search/images/editorial?editorial_segments=sport', 'editorial_segments')) {
      expect(segments).toContain('sport');
    }
    const dates = await values('/v3/search/images/editorial?date_from=2022-01-01&date_to=2023-12-31', 'date_created');
    expect(dates.length).toBeGreaterThan(0);
    for (const date of dates as string[]) expect(date >= '2022-01-01' && date < '2024-01-01').toBe(true);
    expect(new Set(await values('/v3/search/images/creative?graphical_styles=fine_art', 'graphical_style'))).toEqual(new Set(['Fine Art']));
    expect(new Set(await values('/v3/search/images/creative?moods=black_and_white', 'color_type'))).toEqual(new Set(['black_and_white']));
    const large = (await values('/v3/search/images?minimum_size=medium', 'max_dimensions')) as Array<{ width: number; height: number }>;
    expect(large.length).toBeGreaterThan(0);
    for (const size of large) expect(Math.max(size.width, size.height)).toBeGreaterThanOrEqual(2048);
    // The demo's vector pictures, and only they, come with an EPS file.
    const withEps = await values('/v3/search/images?file_types=eps', 'graphical_style');
    expect(withEps.length).toBeGreaterThan(0);
    expect(new Set(withEps)).toEqual(new Set(['Vector']));
  });

  it('combine event, people and keyword filters with the phrase', async () => {
    const [first] = itemsOf(await ok('/v3/search/images/editorial?phrase=festival&page_size=1&fields=id,event_ids,people,keywords'));
    const eventId = (first!.event_ids as number[])[0]!;
    for (const ids of await values(`/v3/search/images/editorial?event_ids=${eventId}`, 'event_ids')) expect(ids).toContain(eventId);
    const person = (first!.people as string[])[0]!;
    for (const people of await values(`/v3/search/images/editorial?specific_people=${encodeURIComponent(person)}`, 'people')) {
      expect(people).toContain(person);
    }
    const keyword = (first!.keywords as Array<{ keyword_id: string; text: string }>).find((k) => k.text === 'music')!;
    const tagged = await idsOf(`/v3/search/images/editorial?keyword_ids=${keyword.keyword_id}&page_size=100&fields=id`);
    const untagged = await idsOf(`/v3/search/images/editorial?exclude_keyword_ids=${keyword.keyword_id}&page_size=100&fields=id`);
    expect(tagged).toContain(first!.id);
    expect(untagged).not.toContain(first!.id);
    expect(tagged.length + untagged.length).toBe((await ok('/v3/search/images/editorial?fields=id')).result_count);
    // Both must match: the keyword and the phrase.
    expect(await idsOf(`/v3/search/images/editorial?phrase=marathon&keyword_ids=${keyword.keyword_id}&fields=id`)).toEqual([]);
  });

  it('limit clip lengths of videos, in seconds', async () => {
    const lengths = (await values('/v3/search/videos?min_clip_length=20&max_clip_length=40', 'clip_length')) as string[];
    for (const length of lengths) {
      const [h, m, s] = length.split(':').map(Number);
      expect(h! * 3600 + m! * 60 + s!).toBeGreaterThanOrEqual(20);
      expect(h! * 3600 + m! * 60 + s!).toBeLessThanOrEqual(40);
    }
  });

  it.each([
    ['/v3/search/images/creative?moods=sunny', 'moods'],
    ['/v3/search/images?orientations=diagonal', 'orientations'],
    ['/v3/search/images/editorial?date_from=2021-13-01', 'date_from'],
    ['/v3/search/images/editorial?date_from=2024-02-01&date_to=2024-01-01', 'date_to'],
    ['/v3/search/images?event_ids=abc', 'event_ids'],
    ['/v3/search/images?collection_codes=NWS&collections_filter_type=maybe', 'collections_filter_type'],
    ['/v3/search/videos?min_clip_length=40&max_clip_length=20', 'max_clip_length'],
    ['/v3/search/images?color=blue', 'color'],
    ['/v3/search/images?minimum_size=huge', 'minimum_size'],
    ['/v3/search/images?download_product=freebies', 'download_product'],
    ['/v3/search/images/creative?include_related_searches=perhaps', 'include_related_searches'],
    ['/v3/search/images?fields=id,secret_sauce', 'fields'],
  ])('refuse a bad value with 400 InvalidParameterValue naming the parameter: %s', async (url, parameter) => {
    const response = await get(url);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'InvalidParameterValue', message: expect.stringContaining(`'${parameter}'`) });
  });

  it('refuse an unknown parameter (MalformedRequest) and bad paging (InvalidPage, InvalidPageSize)', async () => {
    expect((await get('/v3/search/images?colour=red')).json()).toMatchObject({ code: 'MalformedRequest', message: expect.stringContaining("'colour'") });
    for (const page of ['0', '-1', 'two', '1.5']) expect((await get(`/v3/search/images?page=${page}`)).json().code, page).toBe('InvalidPage');
    for (const size of ['0', '7', '101', 'ten']) expect((await get(`/v3/search/images?page_size=${size}`)).json().code, size).toBe('InvalidPageSize');
  });

  it('event search needs a phrase or an editorial segment', async () => {
    const response = await get('/v3/search/events');
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe('SearchPhraseOrEditorialSegmentRequired');
    expect((await get('/v3/search/events?phrase=%20%20')).json().code).toBe('SearchPhraseOrEditorialSegmentRequired');
    expect((await ok('/v3/search/events?phrase=marathon')).result_count).toBeGreaterThan(0);
    expect((await get('/v3/search/events?phrase=---')).json().code).toBe('SearchPhraseOrEditorialSegmentRequired');
  });

  it('event search keeps to date_from and date_to (start dates, inclusive, whole days)', async () => {
    const all = (await ok('/v3/search/events?phrase=marathon&fields=id,start_date&page_size=100')).events as Array<{ id: number; start_date: string }>;
    expect(all.length).toBeGreaterThan(0);
    const start = all[0]!.start_date;
    const day = start.slice(0, 10);
    const on = (await ok(`/v3/search/events?phrase=marathon&date_from=${day}&date_to=${day}&fields=id,start_date&page_size=100`)).events;
    expect(on.map((e: { id: number }) => e.id)).toContain(all[0]!.id);
    for (const event of on) expect(event.start_date.slice(0, 10)).toBe(day);
    expect((await ok('/v3/search/events?phrase=marathon&date_from=2999-01-01')).result_count).toBe(0);
    expect((await ok('/v3/search/events?phrase=marathon&date_to=1900-01-01')).result_count).toBe(0);
    const before = new Date(Date.parse(start) - 1000).toISOString();
    const after = new Date(Date.parse(start) + 1000).toISOString();
    const ids = async (query: string) =>
      ((await ok(`/v3/search/events?phrase=marathon&${query}&page_size=100&fields=id`)).events as Array<{ id: number }>).map((e) => e.id);
    expect(await ids(`date_to=${encodeURIComponent(before)}`)).not.toContain(all[0]!.id);
    expect(await ids(`date_from=${encodeURIComponent(after)}`)).not.toContain(all[0]!.id);
    expect(await ids(`date_from=${encodeURIComponent(before)}&date_to=${encodeURIComponent(after)}`)).toContain(all[0]!.id);
  });

  it('download_product keeps the assets that product type licenses', async () => {
    const all = (await ok('/v3/search/images?page_size=100&fields=id,product_types')).images as Array<{ id: string; product_types: string[] }>;
    const sizes: number[] = [];
    for (const type of ['premiumaccess', 'editorialsubscription', 'royaltyfreesubscription']) {
      const expected = all.filter((image) => image.product_types.includes(type)).map((image) => image.id).sort();
      sizes.push(expected.length);
      const found = (await ok(`/v3/search/images?download_product=${type}&page_size=100&fields=id`)).images.map((i: { id: string }) => i.id).sort();
      expect(found, type).toEqual(expected);
      const withProductId = await ok(`/v3/search/images?download_product=${type}:1234&page_size=100&fields=id`);
      expect(withProductId.result_count, type).toBe(expected.length);
    }
    // The filter is tried on types that some, but not all, assets have.
    expect(sizes.some((n) => n > 0 && n < all.length)).toBe(true);
  });
});

describe('related searches', () => {
  it('are there only when asked for', async () => {
    expect(await ok('/v3/search/images?phrase=concert&fields=id')).not.toHaveProperty('related_searches');
    expect(await ok('/v3/search/images?phrase=concert&include_related_searches=false&fields=id')).not.toHaveProperty('related_searches');
  });

  it.each(KEYWORD_ENDPOINTS)('$path suggests up to five refinements that find something', async ({ path: url }) => {
    const body = await ok(withQuery(url, 'phrase=people&include_related_searches=true&fields=id'));
    const related = body.related_searches as Array<{ phrase: string; url: string }>;
    expect(related.length).toBeGreaterThan(0);
    expect(related.length).toBeLessThanOrEqual(5);
    for (const { phrase, url: link } of related) {
      expect(phrase.startsWith('people ')).toBe(true);
      expect(link).toBe(`http://stockroom.test${url}?phrase=${encodeURIComponent(phrase)}`);
      const refined = await ok(`${new URL(link).pathname}${new URL(link).search}&fields=id`);
      expect(refined.result_count, phrase).toBeGreaterThan(0);
      expect(refined.result_count).toBeLessThanOrEqual(body.result_count);
    }
  });

  it('suggest the keywords the best results share', async () => {
    const body = await ok('/v3/search/images?phrase=concert&include_related_searches=true&fields=id');
    expect(body.related_searches.map((r: { phrase: string }) => r.phrase)).toEqual(expect.arrayContaining(['concert music', 'concert stage']));
  });
});

describe('index freshness', () => {
  it('finds an asset ingested on this node once the change log is read', async () => {
    const ingest = new IngestService({ catalog: t.services.catalog, blobs: t.services.blobs });
    await ingest.ingestRecord({ asset_type: 'image', id: '9100001', title: 'Quokka smiling on Rottnest Island', ...CREATIVE });
    await t.services.changeFeed.poll();
    await t.services.search.settled();
    expect(await idsOf('/v3/search/images/creative?phrase=quokka&fields=id')).toEqual(['9100001']);

    await ingest.ingestRecord({ asset_type: 'image', id: '9100001', title: 'Wombat asleep in a burrow', ...CREATIVE });
    await t.services.changeFeed.poll();
    await t.services.search.settled();
    expect(await idsOf('/v3/search/images/creative?phrase=quokka&fields=id')).toEqual([]);
    expect(await idsOf('/v3/search/images/creative?phrase=wombat&fields=id')).toEqual(['9100001']);

    await t.services.catalog.deleteAsset('image', '9100001');
    await t.services.changeFeed.poll();
    await t.services.search.settled();
    expect(await idsOf('/v3/search/images/creative?phrase=wombat&fields=id')).toEqual([]);
  });

  it('finds an asset another node wrote to the same store, through the change log', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-two-nodes-'));
    const config = loadConfig({
      STOCKROOM_DATA_DIR: dataDir,
      STOCKROOM_LOG_LEVEL: 'silent',
      STOCKROOM_PUBLIC_URL: 'http://stockroom.test',
      STOCKROOM_SEARCH_SNAPSHOT: 'false',
    });
    // Both nodes read the log only when told to, so the test decides when each one catches up.
    const nodeA = await buildApp(config, { logger: false, changeFeedIntervalMs: 3_600_000 });
    const nodeB = await buildApp(config, { logger: false, changeFeedIntervalMs: 3_600_000 });
    try {
      const { apiKey } = await nodeA.services.clients.create({ name: 'Two nodes', queriesPerSecond: 1000, queriesPerDay: 100_000 });
      const searchOn = async (node: typeof nodeA, phrase: string) => {
        const response = await node.app.inject({ method: 'GET', url: `/v3/search/images?phrase=${phrase}&fields=id`, headers: { 'api-key': apiKey } });
        expect(response.statusCode).toBe(200);
        return response.json().images.map((i: Item) => i.id);
      };
      await new IngestService({ catalog: nodeA.services.catalog, blobs: nodeA.services.blobs }).ingestRecord({
        asset_type: 'image',
        id: '9200001',
        title: 'Narwhal surfacing between ice floes',
        ...CREATIVE,
      });
      expect(await searchOn(nodeB, 'narwhal')).toEqual([]);
      await nodeB.services.changeFeed.poll();
      await nodeB.services.search.settled();
      expect(await searchOn(nodeB, 'narwhal')).toEqual(['9200001']);
      await nodeA.services.changeFeed.poll();
      await nodeA.services.search.settled();
      expect(await searchOn(nodeA, 'narwhal')).toEqual(['9200001']);
    } finally {
      await nodeA.app.close();
      await nodeB.app.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
