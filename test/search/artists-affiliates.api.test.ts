import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/catalog/demo/demo-catalog.js';
import { fitWithinLongEdge } from '../../src/media/display-sizes.js';
import { addImage } from '../helpers/catalog-fixtures.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

interface Item {
  id: string;
  [field: string]: unknown;
}

let t: TestApp;
const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { 'api-key': t.apiKey } });
const ok = async (url: string) => {
  const response = await get(url);
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
};
const ids = (items: Item[]) => items.map((item) => item.id);

/** The demo's own collections: a fixture must not contradict them. */
const CREATIVE = { asset_family: 'creative', collection_code: 'STK', collection_id: 101, collection_name: 'Stockroom Creative' };
const EDITORIAL = { asset_family: 'editorial', collection_code: 'NWS', collection_id: 201, collection_name: 'News Wire' };

beforeAll(async () => {
  t = await createTestApp();
  await seedDemo({ catalog: t.services.catalog, blobs: t.services.blobs }, { images: 60, videos: 8, events: 8 });
  // A name title case does not spell, and assets the affiliate searches must tell apart.
  await addImage(t.services, 'mc-1', {
    fields: { artist: 'Jean-Luc McAllister', title: 'Harbour crane at dawn', date_created: '2023-01-01T00:00:00Z', ...CREATIVE },
  });
  await addImage(t.services, 'mc-2', {
    fields: { artist: 'Jean-Luc McAllister', title: 'Harbour crane at dusk', date_created: '2024-01-01T00:00:00Z', ...CREATIVE },
  });
  await addImage(t.services, 'vector-1', {
    fields: { title: 'Flat harbour icon set', graphical_style: 'Vector', ...CREATIVE, referral_destinations: [] },
  });
  await addImage(t.services, 'editorial-harbour', { fields: { title: 'Harbour strike closes the port', ...EDITORIAL } });
  await t.services.catalog.upsertAsset({
    asset_type: 'video',
    id: 'v-no-poster',
    fields: { title: 'Harbour tugboat timelapse', ...CREATIVE, clip_length: '00:00:12:00', artist: 'Jean-Luc McAllister' },
  });
  await t.services.changeFeed.poll();
  await t.services.search.settled();
}, 180_000);
afterAll(async () => {
  await t.close();
});

describe('GET /v3/artists/images and /v3/artists/videos', () => {
  it('lists an artist’s images newest first, with the exact count', async () => {
    const all = await ok('/v3/search/images?artists=Maren%20Holt&page_size=100&fields=id');
    expect(all.result_count).toBeGreaterThan(1);
    const body = await ok('/v3/artists/images?artist_name=Maren%20Holt&page_size=100&fields=id,artist,date_created');
    expect(body.result_count).toBe(all.result_count);
    expect(new Set(ids(body.images))).toEqual(new Set(ids(all.images)));
    expect(new Set(body.images.map((i: Item) => i.artist))).toEqual(new Set(['Maren Holt']));
    const dates = body.images.map((i: Item) => i.date_created as string);
    expect(dates).toEqual([...dates].sort().reverse());
  });

  it('matches the name whatever its letter case and spacing', async () => {
    const exact = await ok('/v3/artists/images?artist_name=Maren%20Holt&fields=id');
    for (const name of ['maren holt', '  MAREN   HOLT ', 'mAREN hOLT']) {
      const body = await ok(`/v3/artists/images?artist_name=${encodeURIComponent(name)}&fields=id`);
      expect(body, name).toEqual(exact);
    }
    // Title case gives "Jean-Luc Mcallister": found by comparing every catalogued name.
    const mixed = await ok('/v3/artists/images?artist_name=jean-luc%20mcallister&fields=id,date_created');
    expect(ids(mixed.images)).toEqual(['mc-2', 'mc-1']);
  });

  it('pages ten at a time by default, with the summary set', async () => {
    const first = await ok('/v3/artists/images?artist_name=Maren%20Holt');
    const total = first.result_count;
    expect(first.images).toHaveLength(Math.min(10, total));
    expect(Object.keys(first.images[0]).sort()).toEqual(
      ['id', 'asset_family', 'caption', 'collection_code', 'collection_id', 'collection_name', 'display_sizes', 'license_model', 'max_dimensions', 'title'].sort(),
    );
    const everything = ids((await ok('/v3/artists/images?artist_name=Maren%20Holt&page_size=100&fields=id')).images);
    const paged: string[] = [];
    for (let page = 1; page <= Math.ceil(total / 3) + 1; page++) {
      paged.push(...ids((await ok(`/v3/artists/images?artist_name=Maren%20Holt&page_size=3&page=${page}&fields=id`)).images));
    }
    expect(paged).toEqual(everything);
  });

  it('answers asset_type when asked, as the contract’s field list offers it', async () => {
    const body = await ok('/v3/artists/images?artist_name=Maren%20Holt&page_size=1&fields=id,asset_type');
    expect(body.images[0]).toEqual({ id: expect.any(String), asset_type: 'image' });
  });

  it('lists videos by the videographer, images and videos kept apart', async () => {
    const videos = await ok('/v3/artists/videos?artist_name=noah%20bennett&page_size=100&fields=id,artist');
    expect(videos.result_count).toBeGreaterThan(0);
    for (const video of videos.videos) expect(video).toMatchObject({ id: expect.stringMatching(/^v/), artist: 'Noah Bennett' });
    const images = await ok('/v3/artists/images?artist_name=Noah%20Bennett&fields=id');
    expect(images).toEqual({ result_count: 0, images: [] });
    const mixed = await ok('/v3/artists/videos?artist_name=Jean-Luc%20McAllister&fields=id');
    expect(ids(mixed.videos)).toEqual(['v-no-poster']);
  });

  it('answers an empty page for an artist nobody catalogued', async () => {
    expect(await ok('/v3/artists/images?artist_name=Nobody%20Here')).toEqual({ result_count: 0, images: [] });
  });

  it('requires artist_name and checks the paging and fields parameters (400)', async () => {
    for (const url of ['/v3/artists/images', '/v3/artists/images?artist_name=%20%20', '/v3/artists/videos?artist_name=']) {
      const response = await get(url);
      expect(response.statusCode, url).toBe(400);
      expect(response.json(), url).toMatchObject({ code: 'InvalidParameterValue', message: expect.stringContaining('artist_name') });
    }
    expect((await get('/v3/artists/images?artist_name=Maren%20Holt&page=0')).json().code).toBe('InvalidPage');
    expect((await get('/v3/artists/images?artist_name=Maren%20Holt&page_size=7')).json().code).toBe('InvalidPageSize');
    const field = await get('/v3/artists/images?artist_name=Maren%20Holt&fields=downloads');
    expect(field.statusCode).toBe(400);
    expect(field.json().message).toContain("'fields'");
  });
});

describe('GET /v3/affiliates/search/images', () => {
  it('answers the best creative matches with previews and destination URLs', async () => {
    const body = await ok('/v3/affiliates/search/images?phrase=harbour');
    expect(Object.keys(body)).toEqual(['images']);
    expect(ids(body.images)).toContain('mc-1');
    expect(ids(body.images)).not.toContain('editorial-harbour');
    const first = body.images.find((i: Item) => i.id === 'mc-1');
    expect(Object.keys(first)).toEqual(['id', 'title', 'caption', 'preview_urls', 'destination_url']);
    expect(first).toMatchObject({ title: 'Harbour crane at dawn', caption: 'Caption of mc-1', destination_url: 'https://example.org/photo' });
  });

  it('gives the real size of each preview rendition: thumb, comp, high_res_comp', async () => {
    const body = await ok('/v3/affiliates/search/images?phrase=skyline');
    expect(body.images.length).toBeGreaterThan(0);
    const details = await ok(`/v3/images?ids=${ids(body.images).join(',')}&fields=max_dimensions,asset_family,referral_destinations`);
    const byId = new Map(details.images.map((i: Item) => [i.id, i]));
    for (const image of body.images) {
      const detail = byId.get(image.id) as { max_dimensions: { width: number; height: number }; asset_family: string; referral_destinations: Array<{ uri: string }> };
      expect(detail.asset_family).toBe('creative');
      const { width, height } = detail.max_dimensions;
      const p = image.preview_urls;
      for (const [prefix, file, longEdge] of [['small', 'thumb.jpg', 170], ['medium', 'comp.jpg', 612], ['large', 'high_res_comp.jpg', 2048]] as const) {
        expect(new URL(p[prefix]).pathname).toBe(`/display/${image.id}/${file}`);
        expect({ width: p[`${prefix}_width`], height: p[`${prefix}_height`] }).toEqual(fitWithinLongEdge(width, height, longEdge));
      }
      expect(image.destination_url).toBe(detail.referral_destinations[0]!.uri);
    }
    // The URLs are the signed display URIs: they serve the picture as they are.
    const small = await t.app.inject({ method: 'GET', url: new URL(body.images[0].preview_urls.small).pathname + new URL(body.images[0].preview_urls.small).search });
    expect(small.statusCode).toBe(200);
    expect(small.headers['content-type']).toBe('image/jpeg');
  });

  it('answers a destination of null without a referral destination', async () => {
    const body = await ok('/v3/affiliates/search/images?phrase=icon');
    expect(body.images.find((i: Item) => i.id === 'vector-1').destination_url).toBeNull();
  });

  it('keeps to one style when asked: vector or photography', async () => {
    expect(ids((await ok('/v3/affiliates/search/images?phrase=harbour&style=vector')).images)).toEqual(['vector-1']);
    const photos = ids((await ok('/v3/affiliates/search/images?phrase=harbour&style=Photography')).images);
    expect(photos).toEqual(expect.arrayContaining(['mc-1', 'mc-2']));
    expect(photos).not.toContain('vector-1');
  });

  it('answers a fixed page of 30', async () => {
    const creative = await ok('/v3/search/images/creative?page_size=1&fields=id');
    expect(creative.result_count).toBeGreaterThan(30);
    expect((await ok('/v3/affiliates/search/images')).images).toHaveLength(30);
  });

  it('suggests a corrected phrase for a misspelling', async () => {
    const body = await ok('/v3/affiliates/search/images?phrase=skylnie');
    expect(body).toEqual({ images: [], auto_corrections: { phrase: 'skyline' } });
  });

  it('refuses a style outside the list and parameters it does not take (400)', async () => {
    const style = await get('/v3/affiliates/search/images?phrase=harbour&style=illustration');
    expect(style.statusCode).toBe(400);
    expect(style.json()).toMatchObject({ code: 'InvalidParameterValue', message: expect.stringContaining("'style'") });
    const page = await get('/v3/affiliates/search/images?phrase=harbour&page=2');
    expect(page.statusCode).toBe(400);
    expect(page.json().code).toBe('MalformedRequest');
  });
});

describe('GET /v3/affiliates/search/videos', () => {
  it('answers creative videos with their poster stills, their preview clip as motion preview, and the clip length', async () => {
    const body = await ok('/v3/affiliates/search/videos');
    const details = await ok(`/v3/videos?ids=${ids(body.videos).join(',')}&fields=asset_family,clip_length,referral_destinations,preview`);
    expect(details.videos.length).toBe(body.videos.length);
    const byId = new Map(details.videos.map((v: Item) => [v.id, v]));
    for (const video of body.videos) {
      const detail = byId.get(video.id) as { asset_family: string; clip_length: string; referral_destinations: Array<{ uri: string }>; display_sizes: Array<{ uri: string }> };
      expect(detail.asset_family).toBe('creative');
      expect(Object.keys(video)).toEqual(['id', 'title', 'caption', 'preview_urls', 'destination_url', 'clip_length']);
      expect(video.clip_length).toBe(detail.clip_length);
      expect(video.destination_url).toBe(detail.referral_destinations[0]?.uri ?? null);
      // The motion preview is the video's preview clip (one size), null for a video stored as a still.
      const clip = detail.display_sizes.find((size) => /\.mp4(\?|$)/.test(size.uri))?.uri ?? null;
      expect(video.preview_urls.small_motion).toBe(clip);
      expect(video.preview_urls.large_motion).toBe(clip);
      if (video.id === 'v-no-poster') continue;
      expect(new URL(video.preview_urls.small_still).pathname).toBe(`/display/${video.id}/thumb.jpg`);
      expect(new URL(video.preview_urls.medium_still).pathname).toBe(`/display/${video.id}/comp.jpg`);
      expect(new URL(video.preview_urls.large_still).pathname).toBe(`/display/${video.id}/high_res_comp.jpg`);
    }
  });

  it('answers null previews for a video without a stored poster', async () => {
    const body = await ok('/v3/affiliates/search/videos?phrase=tugboat');
    expect(body.videos).toEqual([
      {
        id: 'v-no-poster',
        title: 'Harbour tugboat timelapse',
        caption: null,
        preview_urls: { small_still: null, medium_still: null, large_still: null, small_motion: null, large_motion: null },
        destination_url: null,
        clip_length: '00:00:12:00',
      },
    ]);
  });

  it('takes a phrase only', async () => {
    const response = await get('/v3/affiliates/search/videos?phrase=harbour&style=vector');
    expect(response.statusCode).toBe(400);
  });
});
