import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_DEMO, FIRST_IMAGE_ID, FIRST_VIDEO_ID, seedDemo } from '../../src/catalog/demo/demo-catalog.js';
import type { AssetRecord, StoredKeyword } from '../../src/catalog/catalog.records.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/*
 * The demo catalogue is what a client developer builds a filter UI against, so on it every
 * filter of every search endpoint must select something, and not everything: a non-empty
 * proper subset of what the endpoint answers without it. This walks the search endpoints'
 * query parameters as the OpenAPI document states them, tries each value of every filter
 * (each value of a list of choices, true for a flag, a value taken from the demo's own assets
 * for free text and ids) and compares the result count with the endpoint's count without it.
 */

/** Query parameters that choose what comes back or how, not which assets: not filters. */
const NOT_FILTERS = new Set([
  'phrase',
  'page',
  'page_size',
  'fields',
  'sort_order',
  'include_related_searches',
  'include_facets',
  'facet_fields',
  'facet_max_count',
  'enhanced_search',
  // how collection_codes and graphical_styles apply: tried with them (see MODIFIERS)
  'collections_filter_type',
  'graphical_styles_filter_type',
  // the subject of the search, not a narrowing of it
  'asset_id',
  'image_url',
  'artist_name',
]);

/** A mode parameter tried with the filter it modifies, in its other mode. */
const MODIFIERS: Readonly<Record<string, { filter: string; value: string }>> = {
  collections_filter_type: { filter: 'collection_codes', value: 'exclude' },
  graphical_styles_filter_type: { filter: 'graphical_styles', value: 'exclude' },
};

/**
 * Values that by their meaning select everything or nothing on an endpoint, whatever the
 * catalogue holds. Everything else must select a non-empty proper subset.
 */
const BY_MEANING: ReadonlyArray<{ path: RegExp; parameter: string; value: string; why: string }> = [
  { path: /videos/, parameter: 'format_available', value: 'sd', why: 'every clip is sold in SD, made from its original' },
  { path: /videos/, parameter: 'release_status', value: 'release_not_important', why: 'it asks for no release at all' },
  { path: /images/, parameter: 'minimum_size', value: 'x_small', why: 'the smallest size: every picture has it' },
  // product_types is the older name of download_product: the same products license nothing by meaning.
  ...(['download_product', 'product_types'] as const).flatMap((parameter) => [
    { path: /videos/, parameter, value: 'imagepack', why: 'an image pack licenses images only' },
    { path: /creative/, parameter, value: 'editorialsubscription', why: 'an editorial subscription licenses editorial assets only' },
    { path: /editorial/, parameter, value: 'royaltyfreesubscription', why: 'a royalty-free subscription licenses creative assets only' },
    { path: /editorial/, parameter, value: 'creditpack', why: 'credits license creative assets only' },
  ]),
];

interface DocumentParameter {
  name: string;
  in: string;
  deprecated?: boolean;
  schema: { type?: string; enum?: unknown[]; items?: { enum?: unknown[]; type?: string }; pattern?: string; minimum?: number; maximum?: number };
}

/** The search endpoints of the document: every GET below /v3 that takes filters of results. */
const SEARCH_PATH = /^\/v3\/(search\/|affiliates\/search\/)/;

let t: TestApp;
let document: { paths: Record<string, Record<string, { parameters?: DocumentParameter[] }>> };
const samples = new Map<string, AssetRecord>();
/** Every demo asset, by type. */
const demoAssets: Record<'image' | 'video', AssetRecord[]> = { image: [], video: [] };

/** An asset of the same type and family as the sample, by another artist. */
function otherArtistThan(sample: AssetRecord): AssetRecord {
  const other = demoAssets[sample.asset_type].find(
    (asset) => asset.fields.asset_family === sample.fields.asset_family && asset.fields.artist !== sample.fields.artist,
  );
  if (!other) throw new Error(`no ${sample.asset_type} by another artist than ${String(sample.fields.artist)}`);
  return other;
}

const get = async (url: string) => {
  const response = await t.app.inject({ method: 'GET', url, headers: { 'api-key': t.apiKey } });
  expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
  return response.json<Record<string, unknown>>();
};

/** How many results a search answers: its result_count, or the length of its one list. */
function countOf(body: Record<string, unknown>): number {
  if (typeof body.result_count === 'number') return body.result_count;
  const list = ['images', 'videos', 'events'].map((name) => body[name]).find(Array.isArray);
  if (!list) throw new Error(`no result list in ${JSON.stringify(body).slice(0, 200)}`);
  return list.length;
}

const kindOf = (path: string) => ({
  type: path.includes('video') ? ('video' as const) : ('image' as const),
  family: path.includes('editorial') ? 'editorial' : path.includes('creative') ? 'creative' : undefined,
});

/** A demo asset an endpoint answers, to take free-text and id values from: one of its family, half-way through. */
function sampleFor(path: string): AssetRecord {
  const { type, family } = kindOf(path);
  const key = `${type}:${family ?? 'any'}`;
  const found = samples.get(key);
  if (!found) throw new Error(`no sample asset for ${key}`);
  return found;
}

/** The query that answers the endpoint's whole set, without filters. */
function baselineOf(path: string): Record<string, string> {
  if (path.endsWith('/by-image')) return { asset_id: sampleFor(path).id };
  if (path === '/v3/search/events') return { editorial_segment: 'news' };
  return {};
}

/** The values to try of one filter of one endpoint. */
function valuesOf(path: string, parameter: DocumentParameter): string[] {
  const { schema, name } = parameter;
  if (schema.type === 'boolean' || (schema.enum?.length === 2 && schema.enum.includes('true') && schema.enum.includes('false'))) return ['true'];
  if (schema.enum) return schema.enum.map(String);
  if (schema.items?.enum) return schema.items.enum.map(String);
  if (schema.type === 'integer' && schema.minimum !== undefined && schema.maximum !== undefined && schema.maximum - schema.minimum < 10) {
    return Array.from({ length: schema.maximum - schema.minimum + 1 }, (_, i) => String(schema.minimum! + i));
  }
  const sample = sampleFor(path);
  const fields = sample.fields;
  const keywords = fields.keywords as StoredKeyword[];
  switch (name) {
    case 'artists':
      // Search by an asset leaves that asset out: the artist of another one of the family.
      return [String((path.endsWith('/by-image') ? otherArtistThan(sample) : sample).fields.artist)];
    case 'collection_codes':
      return [String(fields.collection_code)];
    case 'specific_people':
      return [(fields.people as string[])[0]!];
    case 'event_ids':
      return [String((fields.event_ids as number[])[0])];
    case 'keyword_ids':
    case 'exclude_keyword_ids':
      // the asset's main keyword (its theme): other themes have other ones
      return [keywords[0]!.keyword_id];
    case 'entity_uris':
      return [keywords.find((keyword) => keyword.entity_uris.length > 0)!.entity_uris[0]!];
    case 'color':
      return [sample.media_facts!.colors[0]!.hex];
    case 'date_from':
    case 'date_to':
      // The demo's assets and events span 2019 to 2025.
      return ['2023-06-01'];
    case 'min_clip_length':
    case 'max_clip_length':
      return ['4'];
    case 'download_product':
    case 'product_types':
      return productTypesOf(parameter);
    default:
      throw new Error(`${path}: no way to try the filter ${name}; teach this walk its values`);
  }
}

/** The product types a product parameter's pattern names: ^(?:a|b|c)(?::…)?$ */
function productTypesOf(parameter: DocumentParameter): string[] {
  const pattern = parameter.schema.pattern ?? (parameter.schema.items as { pattern?: string } | undefined)?.pattern ?? '';
  const match = /^\^\(\?:([a-z|]+)\)/.exec(pattern);
  if (!match) throw new Error(`${parameter.name}: no product types in ${pattern}`);
  return match[1]!.split('|');
}

/** A query string; one result a page where the endpoint pages (only the count is read). */
const query = (params: Record<string, string>, paged = true) => new URLSearchParams({ ...params, ...(paged ? { page_size: '1' } : {}) }).toString();
const isPaged = (path: string) => document.paths[path]!.get!.parameters!.some((parameter) => parameter.name === 'page_size');

beforeAll(async () => {
  t = await createTestApp();
  await seedDemo({ catalog: t.services.catalog, blobs: t.services.blobs }, DEFAULT_DEMO);
  await t.services.search.build();
  document = (await t.app.inject({ method: 'GET', url: '/v3/openapi.json' })).json();
  const ids = (first: number, prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${first + i}`);
  const images = (await t.services.catalog.findAssets('image', ids(FIRST_IMAGE_ID, '', DEFAULT_DEMO.images))).found;
  const videos = (await t.services.catalog.findAssets('video', ids(FIRST_VIDEO_ID, 'v', DEFAULT_DEMO.videos))).found;
  demoAssets.image = images;
  demoAssets.video = videos;
  for (const [type, assets] of [['image', images], ['video', videos]] as const) {
    // Half-way through, so that neither date bound is the first or last date.
    const pick = (family: string | undefined) => {
      const matching = assets.filter((asset) => family === undefined || asset.fields.asset_family === family);
      return matching.filter((asset) => (asset.fields.people as string[] | undefined)?.length || family !== 'editorial')[Math.floor(matching.length / 3)]!;
    };
    samples.set(`${type}:creative`, pick('creative'));
    samples.set(`${type}:editorial`, pick('editorial'));
    samples.set(`${type}:any`, pick('editorial'));
  }
}, 600_000);

afterAll(async () => {
  await t?.close();
});

describe('the demo catalogue exercises every search filter', () => {
  it('selects a non-empty proper subset with every value of every filter of every search endpoint', async () => {
    const failures: string[] = [];
    let tried = 0;
    const paths = Object.keys(document.paths).filter((path) => SEARCH_PATH.test(path) && document.paths[path]!.get);
    expect(paths.length).toBeGreaterThanOrEqual(10);
    for (const path of paths) {
      const parameters = (document.paths[path]!.get!.parameters ?? []).filter((parameter) => parameter.in === 'query' && !parameter.deprecated);
      const baseline = baselineOf(path);
      const url = path.replace(/^\/v3/, '/v3');
      const paged = isPaged(path);
      const whole = countOf(await get(`${url}?${query(baseline, paged)}`));
      for (const parameter of parameters) {
        const modifier = MODIFIERS[parameter.name];
        if (NOT_FILTERS.has(parameter.name) && !modifier) continue;
        const tries: Array<{ label: string; params: Record<string, string> }> = [];
        if (modifier) {
          const filter = parameters.find((other) => other.name === modifier.filter);
          if (!filter) continue;
          const value = valuesOf(path, filter).find((candidate) => candidate !== 'vector') ?? valuesOf(path, filter)[0]!;
          tries.push({ label: `${modifier.filter}=${value}&${parameter.name}=${modifier.value}`, params: { [modifier.filter]: value, [parameter.name]: modifier.value } });
        } else {
          for (const value of valuesOf(path, parameter)) {
            if (BY_MEANING.some((rule) => rule.path.test(path) && rule.parameter === parameter.name && rule.value === value)) continue;
            tries.push({ label: `${parameter.name}=${value}`, params: { [parameter.name]: value } });
          }
        }
        for (const attempt of tries) {
          tried += 1;
          // Event search needs a phrase or a segment: a segment is compared with every event.
          const alone = path === '/v3/search/events' && parameter.name === 'editorial_segment';
          const count = countOf(await get(`${url}?${query(alone ? attempt.params : { ...baseline, ...attempt.params }, paged)}`));
          const of = alone ? DEFAULT_DEMO.events : whole;
          // A search without paging answers a fixed page of its best matches: only emptiness shows.
          const proper = paged ? count > 0 && count < of : count > 0;
          if (!proper) failures.push(`${path} ${attempt.label}: ${count} of ${of}`);
        }
      }
    }
    expect(tried).toBeGreaterThan(300);
    expect(failures).toEqual([]);
  }, 600_000);

  it('answers every facet with values, each of which selects a non-empty proper subset', async () => {
    const failures: string[] = [];
    const facetParameter: Readonly<Record<string, string>> = { artists: 'artists', events: 'event_ids', specific_people: 'specific_people' };
    for (const [path, item] of Object.entries(document.paths)) {
      const facetFields = item.get?.parameters?.find((parameter) => parameter.name === 'facet_fields');
      if (!SEARCH_PATH.test(path) || !facetFields) continue;
      const baseline = baselineOf(path);
      const whole = countOf(await get(`${path}?${query(baseline)}`));
      const body = await get(`${path}?${query({ ...baseline, include_facets: 'true' })}`);
      const facets = body.facets as Record<string, Array<{ id?: number; name: string }>>;
      for (const field of facetFields.schema.items!.enum!.map(String)) {
        const values = facets[field] ?? [];
        // Every asset has one location: with two or more, each is a proper subset.
        if (values.length < 2) failures.push(`${path} facet ${field}: ${values.length} values`);
        const parameter = facetParameter[field];
        if (!parameter) continue;
        for (const value of values.slice(0, 3)) {
          const filterValue = field === 'events' ? String(value.id) : value.name;
          const count = countOf(await get(`${path}?${query({ ...baseline, [parameter]: filterValue })}`));
          if (count === 0 || count >= whole) failures.push(`${path} facet ${field} ${filterValue}: ${count} of ${whole}`);
        }
      }
    }
    expect(failures).toEqual([]);
  }, 300_000);
});
