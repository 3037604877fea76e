import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { IngestService } from '../../src/catalog/ingest/ingest.service.js';
import { parseManifestLine, type AssetManifestRecord } from '../../src/catalog/ingest/ingest.schemas.js';
import { MEDIA_FACTS_VERSION, type MediaFacts } from '../../src/media/media-facts.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/*
 * The filters the partner's official clients send, over a catalogue made here: each one is
 * tried where the contract or the clients give it, and must answer exactly the generated assets
 * its rule selects — a proper, non-empty subset, so that the results change and every result
 * satisfies the filter.
 */

type Line = Record<string, unknown> & { asset_type: 'image' | 'video'; id: string; asset_family: 'creative' | 'editorial' };
interface Generated {
  line: Line;
  /** the nudity classifier's verdict, stored as its scores */
  nude: boolean;
  /** the dominant colour */
  colour: '#ff0000' | '#0000ff';
}

const COLLECTIONS = {
  creative: { collection_code: 'FCR', collection_id: 801, collection_name: 'Filter Creative' },
  editorial: { collection_code: 'FED', collection_id: 802, collection_name: 'Filter Editorial' },
} as const;
const PRODUCT_SETS = [['premiumaccess'], ['editorialsubscription'], ['easyaccess', 'imagepack'], ['royaltyfreesubscription', 'creditpack']];
const ENTITY_A = 'https://entities.example.org/Q100';
const ENTITY_B = 'https://entities.example.org/Q200';
const ENTITY_NAMES: Record<string, string> = { [ENTITY_A]: 'Cape Point Lighthouse', [ENTITY_B]: 'North Head Lighthouse' };
const SHOT_SPEEDS = ['Real Time', 'Slow Motion', 'Time Lapse', undefined];
const COUNT = 24;

const keyword = (text: string, type: string, entity?: string) => ({ text, type, ...(entity ? { entity_uris: [entity], entity_types: ['thing'] } : {}) });

/*
 * Asset n is creative when n is even, editorial when odd; m = n / 2 (rounded down) is its place in
 * its family, and every fact follows m, so each family holds every case.
 */
const placeOf = (n: number) => Math.floor(n / 2);

function entityOf(m: number): string | undefined {
  return m % 4 === 0 ? ENTITY_A : m % 4 === 1 ? ENTITY_B : undefined;
}

/** Shared by images and videos: family, products, entities, restrictions, releases. */
function common(n: number, assetType: 'image' | 'video'): Line {
  const family = n % 2 === 0 ? 'creative' : 'editorial';
  const m = placeOf(n);
  const entity = entityOf(m);
  return {
    asset_type: assetType,
    id: `${assetType === 'image' ? 'fi' : 'fv'}-${String(n).padStart(2, '0')}`,
    asset_family: family,
    ...COLLECTIONS[family],
    title: `Lighthouse by the harbour ${n}`,
    date_created: `2024-05-${String(1 + n).padStart(2, '0')}T10:00:00Z`,
    product_types: PRODUCT_SETS[m % PRODUCT_SETS.length],
    // An entity belongs to a keyword (every asset tagged with it shares it): one keyword per entity.
    keywords: [keyword('lighthouse', 'Concept'), keyword('harbour', 'Concept'), ...(entity ? [keyword(ENTITY_NAMES[entity]!, 'Location', entity)] : [])],
    allowed_use: {
      how_can_i_use_it: 'Under the licence terms.',
      release_info: m % 3 === 0 ? 'Model and property released' : m % 3 === 1 ? 'Model released' : 'Not released',
      // Creative assets restricted to editorial use: one in four of them.
      usage_restrictions: family === 'creative' && m % 4 === 1 ? ['Editorial use only'] : family === 'creative' && m % 4 === 3 ? ['No merchandising'] : [],
    },
  };
}

function generateImage(n: number): Generated {
  const m = placeOf(n);
  const line = { ...common(n, 'image'), prestige: m % 3 === 0, license_model: 'royaltyfree' };
  return { line, nude: m % 5 === 0, colour: m % 2 === 0 ? '#ff0000' : '#0000ff' };
}

function generateVideo(n: number): Generated {
  const m = placeOf(n);
  const base = common(n, 'video');
  const keywords = [...(base.keywords as unknown[]), ...(m % 3 === 1 ? [keyword('Aerial View', 'Viewpoint')] : [])];
  const line: Line = {
    ...base,
    keywords,
    license_model: m % 4 === 0 || m % 4 === 1 ? 'rightsready' : 'royaltyfree',
    ...(base.asset_family === 'editorial' && m % 6 !== 5 ? { editorial_video_type: m % 2 === 0 ? 'raw' : 'produced' } : {}),
    ...(SHOT_SPEEDS[m % 4] ? { shot_speed: SHOT_SPEEDS[m % 4] } : {}),
    color_type: m % 3 === 0 ? 'black_and_white' : 'color',
    ...(m % 5 === 0 ? { image_techniques: ['selective_focus'] } : m % 7 === 0 ? { image_techniques: ['animation'] } : {}),
    ...(m % 4 === 2 ? { viewpoints: ['tracking_shot'] } : {}),
    // The ingest field wins over release_info either way.
    ...(m % 5 === 1 ? { fully_released: true } : m % 5 === 3 ? { fully_released: false } : {}),
  };
  return { line, nude: m % 5 === 2, colour: '#0000ff' };
}

const IMAGES = Array.from({ length: COUNT }, (_, n) => generateImage(n));
const VIDEOS = Array.from({ length: COUNT }, (_, n) => generateVideo(n));

function factsOf(asset: Generated): MediaFacts {
  return {
    version: MEDIA_FACTS_VERSION,
    colors: [{ hex: asset.colour, share: 0.9 }],
    color_type: 'color',
    nudity: asset.nude ? { drawing: 0, hentai: 0.05, neutral: 0.05, porn: 0.85, sexy: 0.05 } : { drawing: 0.05, hentai: 0, neutral: 0.95, porn: 0, sexy: 0 },
  };
}

// ---- What each filter should select, written from the generated lines ------------------------

type Rule = (asset: Generated) => boolean;
const fields = (asset: Generated) => asset.line as Record<string, unknown>;
const products = (asset: Generated) => fields(asset).product_types as string[];
const entities = (asset: Generated) => (fields(asset).keywords as Array<{ entity_uris?: string[] }>).flatMap((k) => k.entity_uris ?? []);
const restrictions = (asset: Generated) => (fields(asset).allowed_use as { usage_restrictions: string[] }).usage_restrictions;
const releaseInfo = (asset: Generated) => (fields(asset).allowed_use as { release_info: string }).release_info;
const techniques = (asset: Generated): string[] => {
  const f = fields(asset);
  const speed = { 'Real Time': 'realtime', 'Slow Motion': 'slow_motion', 'Time Lapse': 'time_lapse' }[f.shot_speed as string];
  return [...((f.image_techniques as string[] | undefined) ?? []), ...(speed ? [speed] : []), f.color_type as string];
};
const viewpoints = (asset: Generated): string[] => [
  ...((fields(asset).viewpoints as string[] | undefined) ?? []),
  ...((fields(asset).keywords as Array<{ type: string }>).some((k) => k.type === 'Viewpoint') ? ['aerial_view'] : []),
];

const ENDPOINTS = {
  images: { assets: IMAGES, family: undefined },
  images_creative: { assets: IMAGES, family: 'creative' },
  images_editorial: { assets: IMAGES, family: 'editorial' },
  videos: { assets: VIDEOS, family: undefined },
  videos_creative: { assets: VIDEOS, family: 'creative' },
  videos_editorial: { assets: VIDEOS, family: 'editorial' },
} as const;
type Endpoint = keyof typeof ENDPOINTS;
const PATHS: Record<Endpoint, string> = {
  images: '/v3/search/images',
  images_creative: '/v3/search/images/creative',
  images_editorial: '/v3/search/images/editorial',
  videos: '/v3/search/videos',
  videos_creative: '/v3/search/videos/creative',
  videos_editorial: '/v3/search/videos/editorial',
};

let t: TestApp;
const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { 'api-key': t.apiKey } });

async function idsOf(url: string): Promise<string[]> {
  const response = await get(url);
  expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
  const body = response.json();
  const items = (body.images ?? body.videos) as Array<{ id: string }>;
  expect(items.length, url).toBe(body.result_count);
  return items.map((item) => item.id).sort();
}

/** The endpoint's answer to the query is exactly the generated assets the rule selects, a proper subset of its family. */
async function expectSelects(endpoint: Endpoint, query: string, rule: Rule): Promise<void> {
  const { assets, family } = ENDPOINTS[endpoint];
  const all = assets.filter((asset) => family === undefined || asset.line.asset_family === family);
  const expected = all.filter(rule).map((asset) => asset.line.id).sort();
  expect(expected.length, `${endpoint} ${query} selects something`).toBeGreaterThan(0);
  expect(expected.length, `${endpoint} ${query} leaves something out`).toBeLessThan(all.length);
  expect(await idsOf(`${PATHS[endpoint]}?phrase=lighthouse&page_size=100&fields=id&${query}`), `${endpoint} ${query}`).toEqual(expected);
}

beforeAll(async () => {
  t = await createTestApp();
  for (const asset of [...IMAGES, ...VIDEOS]) {
    // Validated as an ingest line is, so every field used here is one ingest takes.
    const parsed = parseManifestLine(asset.line);
    if (!parsed.ok) throw new Error(`${asset.line.id}: ${parsed.reason}`);
    const { asset_type: assetType, id, ...given } = parsed.record as AssetManifestRecord;
    await t.services.catalog.upsertAsset({ asset_type: assetType, id, fields: given, media_facts: factsOf(asset) });
  }
  await t.services.changeFeed.poll();
  await t.services.search.settled();
}, 120_000);
afterAll(async () => {
  await t.close();
});

describe('every generated asset is found without filters', () => {
  it.each(Object.keys(ENDPOINTS) as Endpoint[])('%s', async (endpoint) => {
    const { assets, family } = ENDPOINTS[endpoint];
    const all = assets.filter((asset) => family === undefined || asset.line.asset_family === family).map((asset) => asset.line.id);
    expect(await idsOf(`${PATHS[endpoint]}?phrase=lighthouse&page_size=100&fields=id`)).toEqual(all.sort());
  });
});

describe('product_types: the older name of download_product, on every image and video search', () => {
  it.each(Object.keys(ENDPOINTS) as Endpoint[])('%s', async (endpoint) => {
    await expectSelects(endpoint, 'product_types=easyaccess,editorialsubscription', (a) =>
      products(a).some((type) => type === 'easyaccess' || type === 'editorialsubscription'),
    );
    // The :productId form narrows to one product of the type, which licenses what the type does.
    await expectSelects(endpoint, 'product_types=premiumaccess:1234', (a) => products(a).includes('premiumaccess'));
    // The same answer as download_product for one type.
    expect(await idsOf(`${PATHS[endpoint]}?phrase=lighthouse&page_size=100&fields=id&product_types=imagepack`)).toEqual(
      await idsOf(`${PATHS[endpoint]}?phrase=lighthouse&page_size=100&fields=id&download_product=imagepack`),
    );
    // With download_product as well, both apply.
    await expectSelects(endpoint, 'product_types=easyaccess,creditpack&download_product=imagepack', (a) => products(a).includes('imagepack'));
  });
});

describe('prestige_content_only on the image searches', () => {
  it.each(['images', 'images_creative', 'images_editorial'] as const)('%s', async (endpoint) => {
    await expectSelects(endpoint, 'prestige_content_only=true', (a) => fields(a).prestige === true);
    expect((await idsOf(`${PATHS[endpoint]}?phrase=lighthouse&page_size=100&fields=id&prestige_content_only=false`)).length).toBe(
      ENDPOINTS[endpoint].assets.filter((a) => ENDPOINTS[endpoint].family === undefined || a.line.asset_family === ENDPOINTS[endpoint].family).length,
    );
  });
});

describe('entity_uris, exclude_nudity and color on the editorial searches', () => {
  it.each(['images_editorial', 'videos_editorial'] as const)('entity_uris on %s: the assets whose keywords carry the entity', async (endpoint) => {
    await expectSelects(endpoint, `entity_uris=${encodeURIComponent(ENTITY_A)}`, (a) => entities(a).includes(ENTITY_A));
    await expectSelects(endpoint, `entity_uris=${encodeURIComponent(`${ENTITY_A},${ENTITY_B}`)}`, (a) => entities(a).length > 0);
    expect(await idsOf(`${PATHS[endpoint]}?phrase=lighthouse&fields=id&entity_uris=${encodeURIComponent('https://entities.example.org/Q999')}`)).toEqual([]);
  });

  it.each(['images_editorial', 'videos_editorial'] as const)('exclude_nudity on %s', async (endpoint) => {
    await expectSelects(endpoint, 'exclude_nudity=true', (a) => !a.nude);
  });

  it('color on editorial image search keeps the pictures of that dominant colour', async () => {
    await expectSelects('images_editorial', 'color=%23ff0000', (a) => a.colour === '#ff0000');
    await expectSelects('images_editorial', 'color=0000FF', (a) => a.colour === '#0000ff');
  });
});

describe('editorial_video_types and license_models', () => {
  it('editorial_video_types on blended and editorial video search: only editorial videos of those types', async () => {
    for (const endpoint of ['videos', 'videos_editorial'] as const) {
      await expectSelects(endpoint, 'editorial_video_types=raw', (a) => fields(a).editorial_video_type === 'raw');
      await expectSelects(endpoint, 'editorial_video_types=produced', (a) => fields(a).editorial_video_type === 'produced');
      await expectSelects(endpoint, 'editorial_video_types=raw,produced', (a) => fields(a).editorial_video_type !== undefined);
    }
  });

  it('license_models on blended and creative video search', async () => {
    for (const endpoint of ['videos', 'videos_creative'] as const) {
      await expectSelects(endpoint, 'license_models=rightsready', (a) => fields(a).license_model === 'rightsready');
      await expectSelects(endpoint, 'license_models=royaltyfree', (a) => fields(a).license_model === 'royaltyfree');
    }
  });
});

describe('exclude_editorial_use_only: a licensing matter', () => {
  it.each(['images_creative', 'videos_creative'] as const)('%s leaves out creative assets restricted to editorial use', async (endpoint) => {
    await expectSelects(endpoint, 'exclude_editorial_use_only=true', (a) => !restrictions(a).includes('Editorial use only'));
  });
});

describe('image_techniques, release_status and viewpoints on the video searches, from the catalogue facts', () => {
  it.each(['videos', 'videos_creative', 'videos_editorial'] as const)('%s', async (endpoint) => {
    for (const technique of ['realtime', 'slow_motion', 'time_lapse', 'black_and_white', 'color', 'selective_focus', 'animation']) {
      await expectSelects(endpoint, `image_techniques=${technique}`, (a) => techniques(a).includes(technique));
    }
    await expectSelects(endpoint, 'image_techniques=time_lapse,animation', (a) => techniques(a).some((x) => x === 'time_lapse' || x === 'animation'));
    await expectSelects(endpoint, 'release_status=fully_released', (a) => {
      const given = fields(a).fully_released;
      return typeof given === 'boolean' ? given : releaseInfo(a) === 'Model and property released';
    });
    expect((await idsOf(`${PATHS[endpoint]}?phrase=lighthouse&page_size=100&fields=id&release_status=release_not_important`)).length).toBe(
      VIDEOS.filter((a) => ENDPOINTS[endpoint].family === undefined || a.line.asset_family === ENDPOINTS[endpoint].family).length,
    );
    await expectSelects(endpoint, 'viewpoints=aerial_view', (a) => viewpoints(a).includes('aerial_view'));
    await expectSelects(endpoint, 'viewpoints=tracking_shot,aerial_view', (a) => viewpoints(a).length > 0);
  });
});

describe('exclude_editorial_use_only on the by-image searches', () => {
  /** A picture of two colour halves, so that every one looks alike and differs a little. */
  const picture = (shade: number) =>
    sharp({ create: { width: 160, height: 120, channels: 3, background: { r: 200, g: 90 + shade, b: 40 } } })
      .composite([{ input: { create: { width: 80, height: 120, channels: 3, background: { r: 30, g: 60, b: 150 + shade } } }, left: 0, top: 0 }])
      .png()
      .toBuffer();

  it.each([
    ['images', '/v3/search/images/creative/by-image', 'image'],
    ['videos', '/v3/search/videos/creative/by-image', 'video'],
  ] as const)('%s', async (_, path, assetType) => {
    const ingest = new IngestService({ catalog: t.services.catalog, blobs: t.services.blobs });
    const ids: string[] = [];
    for (let n = 0; n < 6; n++) {
      const id = `bi-${assetType}-${n}`;
      ids.push(id);
      await ingest.ingestRecord(
        {
          asset_type: assetType,
          id,
          file: `${id}.png`,
          title: `Two-tone card ${n}`,
          asset_family: 'creative',
          ...COLLECTIONS.creative,
          allowed_use: { usage_restrictions: n % 2 === 1 ? ['For editorial use only.'] : [] },
        },
        await picture(n * 8),
      );
    }
    await t.services.changeFeed.poll();
    await t.services.search.settled();
    const source = `asset_id=bi-${assetType}-0`;
    const ours = (found: string[]) => found.filter((id) => id.startsWith(`bi-${assetType}-`));
    const all = ours(await idsOf(`${path}?${source}&page_size=100&fields=id`));
    expect(all).toEqual(ids.slice(1).sort());
    const allowed = ours(await idsOf(`${path}?${source}&page_size=100&fields=id&exclude_editorial_use_only=true`));
    expect(allowed).toEqual(ids.filter((id, n) => n > 0 && n % 2 === 0).sort());
  });
});
