import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/catalog/demo/demo-catalog.js';
import { IngestService } from '../../src/catalog/ingest/ingest.service.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { landscapeImage, stripedImage } from './visual/visual-fixtures.js';

/*
 * Search by image, similar and same-series over a small demo catalogue plus crafted assets
 * whose pictures and metadata are chosen so that the right answers are known:
 *
 * - "vl-dusk" and its near copies (resized, recompressed): "vl-dusk-copy" (creative),
 *   "vl-editorial" (editorial), "vv-dusk" and "vv-dusk-copy" (video posters);
 * - "vl-stripes", "vv-stripes": pictures nothing like the dusk ones;
 * - a series by Vera Lind on 2024-03-10 (collection VLS) and assets just outside it: the next
 *   day, another artist, another collection, editorial, a video;
 * - a series by Omar Field on 2024-04-02 tied by events.
 */

const VERA = 'Vera Lind';
const OMAR = 'Omar Field';
const SERIES_DAY = '2024-03-10';
const EVENT_A = 900_001;
const EVENT_B = 900_002;

interface Item {
  id: string;
  title?: string;
  artist?: string;
  asset_family?: string;
}

const ids = (items: Item[]) => items.map((item) => item.id);

function dusk(): Promise<Buffer> {
  return landscapeImage({ skyTop: '#1d2b64', skyBottom: '#f8a055', sun: '#ffd27a', farHill: '#3b4a6b', nearHill: '#22303f' });
}

/** The same picture, resized and recompressed: what a near duplicate looks like. */
async function nearCopy(picture: Buffer, width: number, quality: number): Promise<Buffer> {
  return sharp(picture).resize(width).jpeg({ quality }).toBuffer();
}

describe('search by image, similar and same series', () => {
  let t: TestApp;
  let duskPicture: Buffer;
  const get = (url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url, headers: { 'api-key': t.apiKey, ...headers } });
  let bearer: Record<string, string>;
  const withToken = (url: string) => get(url, bearer);

  beforeAll(async () => {
    t = await createTestApp();
    await seedDemo({ catalog: t.services.catalog, blobs: t.services.blobs }, { images: 30, videos: 6, events: 4 });
    const ingest = new IngestService({ catalog: t.services.catalog, blobs: t.services.blobs });
    duskPicture = await dusk();
    const stripes = await stripedImage('vertical', 8, ['#0b6623', '#f5f5dc']);
    const videoStripes = await stripedImage('horizontal', 6, ['#7b1fa2', '#ffeb3b']);
    const creative = (id: string, fields: Record<string, unknown>) => ({
      asset_type: 'image',
      id,
      asset_family: 'creative',
      artist: VERA,
      collection_code: 'VLS',
      collection_name: 'Vera Lind Studio',
      city: 'Bergen',
      country: 'Norway',
      ...fields,
    });
    await ingest.ingestRecord({ asset_type: 'event', id: EVENT_A, name: 'Harbour Festival' });
    await ingest.ingestRecord({ asset_type: 'event', id: EVENT_B, name: 'Boat Parade' });

    // The Vera Lind series of 2024-03-10 (vl-dusk is the source in most tests).
    await ingest.ingestRecord(creative('vl-dusk', { file: 'dusk.png', title: 'Harbour at dusk', date_created: `${SERIES_DAY}T08:00:00Z` }), duskPicture);
    await ingest.ingestRecord(
      creative('vl-dusk-copy', { file: 'dusk-copy.jpg', title: 'Harbour at dusk again', date_created: `${SERIES_DAY}T09:00:00Z` }),
      await nearCopy(duskPicture, 700, 60),
    );
    await ingest.ingestRecord(creative('vl-stripes', { file: 'stripes.png', title: 'Zebrawave awning', date_created: `${SERIES_DAY}T07:00:00Z` }), stripes);
    await ingest.ingestRecord(creative('vl-late', { title: 'Last light', date_created: `${SERIES_DAY}T23:59:59Z` }));
    // Just outside the series.
    await ingest.ingestRecord(creative('vl-next-day', { title: 'Morning after', date_created: '2024-03-11T00:00:00Z' }));
    await ingest.ingestRecord(creative('other-artist', { artist: 'Someone Else', title: 'Same day', date_created: `${SERIES_DAY}T10:00:00Z` }));
    await ingest.ingestRecord(
      creative('vl-other-collection', { collection_code: 'ALT', collection_name: 'Alternative', title: 'Elsewhere', date_created: `${SERIES_DAY}T11:00:00Z` }),
    );
    await ingest.ingestRecord(
      creative('vl-editorial', { asset_family: 'editorial', file: 'dusk-news.jpg', title: 'Harbour news', date_created: `${SERIES_DAY}T12:00:00Z` }),
      await nearCopy(duskPicture, 640, 45),
    );
    await ingest.ingestRecord(creative('no-picture', { title: 'Metadata only', date_created: '2023-01-01T00:00:00Z' }));

    // The Omar Field series of 2024-04-02, tied by events.
    const omar = (id: string, fields: Record<string, unknown>) =>
      creative(id, { artist: OMAR, collection_code: 'OFS', date_created: '2024-04-02T10:00:00Z', ...fields });
    await ingest.ingestRecord(omar('of-source', { event_ids: [EVENT_A] }));
    await ingest.ingestRecord(omar('of-both-events', { event_ids: [EVENT_A, EVENT_B], date_created: '2024-04-02T11:00:00Z' }));
    await ingest.ingestRecord(omar('of-other-event', { event_ids: [EVENT_B] }));
    await ingest.ingestRecord(omar('of-no-event', {}));

    // Videos of Vera Lind on the series day (their posters are pictures too).
    const video = (id: string, fields: Record<string, unknown>) => ({ ...creative(id, fields), asset_type: 'video' });
    await ingest.ingestRecord(video('vv-dusk', { file: 'poster.jpg', title: 'Dusk clip', date_created: `${SERIES_DAY}T08:30:00Z` }), await nearCopy(duskPicture, 800, 70));
    await ingest.ingestRecord(
      video('vv-dusk-copy', { file: 'poster-copy.jpg', title: 'Dusk clip again', date_created: `${SERIES_DAY}T09:30:00Z` }),
      await nearCopy(duskPicture, 600, 50),
    );
    await ingest.ingestRecord(video('vv-stripes', { file: 'poster-stripes.png', title: 'Awning clip', date_created: `${SERIES_DAY}T06:00:00Z` }), videoStripes);
    await ingest.ingestRecord(video('vv-next-day', { title: 'Next day clip', date_created: '2024-03-11T08:00:00Z' }));

    await t.services.search.build();
    bearer = { authorization: `Bearer ${await t.issueToken()}` };
  }, 180_000);

  afterAll(async () => {
    await t.close();
  });

  describe('GET /v3/search/images/creative/by-image', () => {
    const byImage = (query: string) => get(`/v3/search/images/creative/by-image?${query}`);

    it('ranks a near duplicate of the source first, before a picture nothing like it, and leaves the source out', async () => {
      const response = await byImage('asset_id=vl-dusk&page_size=100&fields=title,asset_family');
      expect(response.statusCode).toBe(200);
      const body = response.json();
      const found = ids(body.images);
      expect(found[0]).toBe('vl-dusk-copy');
      expect(found).toContain('vl-stripes');
      expect(found.indexOf('vl-dusk-copy')).toBeLessThan(found.indexOf('vl-stripes'));
      expect(found).not.toContain('vl-dusk');
      // Creative only: the editorial near copy is not a result.
      expect(found).not.toContain('vl-editorial');
      expect(new Set(body.images.map((i: Item) => i.asset_family))).toEqual(new Set(['creative']));
      // Every creative image with a picture but the source.
      expect(body.result_count).toBe(found.length);
      expect(body.image_fingerprint).toMatch(/^[0-9a-f]{16}$/);
      expect(body).not.toHaveProperty('facets');
    });

    it('takes a video as the source as well', async () => {
      const body = (await byImage('asset_id=vv-dusk&page_size=5')).json();
      expect(ids(body.images).slice(0, 2).sort()).toEqual(['vl-dusk', 'vl-dusk-copy']);
    });

    it('gives the same fingerprint for the same source, another for another', async () => {
      const a = (await byImage('asset_id=vl-dusk&page_size=1')).json();
      const b = (await byImage('asset_id=vl-dusk&page_size=5&page=2')).json();
      const c = (await byImage('asset_id=vl-stripes&page_size=1')).json();
      expect(a.image_fingerprint).toBe(b.image_fingerprint);
      expect(c.image_fingerprint).not.toBe(a.image_fingerprint);
    });

    it('pages through one order', async () => {
      const all = (await byImage('asset_id=vl-dusk&page_size=10&fields=id')).json();
      const first = (await byImage('asset_id=vl-dusk&page_size=5&page=1&fields=id')).json();
      const second = (await byImage('asset_id=vl-dusk&page_size=5&page=2&fields=id')).json();
      expect([...ids(first.images), ...ids(second.images)]).toEqual(ids(all.images));
      expect(first.result_count).toBe(all.result_count);
      const beyond = (await byImage(`asset_id=vl-dusk&page_size=100&page=50`)).json();
      expect(beyond).toMatchObject({ result_count: all.result_count, images: [] });
    });

    it('narrows the set with filters and with a phrase', async () => {
      const byArtist = (await byImage(`asset_id=vl-dusk&artists=${encodeURIComponent(VERA)}&page_size=100&fields=artist`)).json();
      expect(ids(byArtist.images)).toEqual(['vl-dusk-copy', 'vl-stripes']);
      expect(byArtist.result_count).toBe(2);

      const byPhrase = (await byImage('asset_id=vl-dusk&phrase=zebrawave&page_size=100')).json();
      expect(ids(byPhrase.images)).toEqual(['vl-stripes']);
      expect(byPhrase.result_count).toBe(1);
    });

    it('counts facets over the whole set on include_facets=true', async () => {
      const body = (await byImage('asset_id=vl-dusk&include_facets=true&page_size=1')).json();
      expect(body.images).toHaveLength(1);
      expect(body.facets.artists).toContainEqual({ name: VERA });
      expect(body.facets.locations).toContainEqual({ id: expect.any(Number), name: 'Bergen, Norway' });
      const onlyArtists = (await byImage('asset_id=vl-dusk&include_facets=true&facet_fields=artists&page_size=1')).json();
      expect(Object.keys(onlyArtists.facets)).toEqual(['artists']);
    });

    it('counts facets over exactly the results: never the source asset, nor an asset without a picture', async () => {
      const body = (await byImage('asset_id=vl-dusk&include_facets=true&page_size=100&fields=artist')).json();
      expect(body.images).toHaveLength(body.result_count);
      const artists = [...new Set((body.images as Item[]).map((image) => image.artist))].sort();
      expect((body.facets.artists as Array<{ name: string }>).map((value) => value.name).sort()).toEqual(artists);
      // Creative and passing every filter, but without a picture: not a result, so not counted.
      expect(body.facets.artists).not.toContainEqual({ name: 'Someone Else' });
      // Only the source matches the phrase: nothing is found, so no facet has a value.
      const sourceAlone = (await byImage('asset_id=vl-stripes&phrase=zebrawave&include_facets=true')).json();
      expect(sourceAlone).toMatchObject({ result_count: 0, images: [], facets: { artists: [], locations: [] } });
    });

    it('answers 404 AssetNotFound for an unknown asset_id', async () => {
      for (const id of ['no-such-asset', 'bad id!']) {
        const response = await byImage(`asset_id=${encodeURIComponent(id)}`);
        expect(response.statusCode).toBe(404);
        expect(response.json()).toMatchObject({ code: 'AssetNotFound' });
      }
    });

    it('answers 400 naming asset_id for an asset without a picture', async () => {
      const response = await byImage('asset_id=no-picture');
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ code: 'InvalidParameterValue', message: expect.stringContaining("'asset_id'") });
    });

    it('answers 400 for both sources or neither', async () => {
      for (const query of ['asset_id=vl-dusk&image_url=http%3A%2F%2Fstockroom.test%2Fv3%2Fsearch%2Fby-image%2Fuploads%2Fx.jpg', 'phrase=dusk']) {
        const response = await byImage(query);
        expect(response.statusCode).toBe(400);
        expect(response.json()).toMatchObject({ code: 'InvalidParameterValue' });
      }
    });

    it('searches by an uploaded picture given as image_url', async () => {
      const upload = await t.app.inject({
        method: 'PUT',
        url: '/v3/search/by-image/uploads/my-dusk.png',
        headers: { 'api-key': t.apiKey, 'content-type': 'image/png' },
        payload: duskPicture,
      });
      expect(upload.statusCode).toBe(200);
      const { url } = upload.json();

      const body = (await byImage(`image_url=${encodeURIComponent(url)}&page_size=5`)).json();
      // The upload is vl-dusk's own picture: vl-dusk takes part (nothing is excluded) and comes first.
      expect(ids(body.images)[0]).toBe('vl-dusk');
      expect(ids(body.images)[1]).toBe('vl-dusk-copy');
      const bySource = (await byImage('asset_id=vl-dusk&page_size=1')).json();
      expect(body.image_fingerprint).toBe(bySource.image_fingerprint);

      const videos = (await get(`/v3/search/videos/creative/by-image?image_url=${encodeURIComponent(url)}&page_size=2`)).json();
      expect(ids(videos.videos).sort()).toEqual(['vv-dusk', 'vv-dusk-copy']);

      const unknown = await byImage(`image_url=${encodeURIComponent(url.replace('my-dusk.png', 'never-uploaded.png'))}`);
      expect(unknown.statusCode).toBe(400);
      expect(unknown.json()).toMatchObject({ code: 'InvalidParameterValue', message: expect.stringContaining("'image_url'") });
    });
  });

  describe('GET /v3/search/videos/creative/by-image', () => {
    it('ranks the videos whose posters look like the source first', async () => {
      const response = await get('/v3/search/videos/creative/by-image?asset_id=vl-dusk&page_size=100&fields=title');
      expect(response.statusCode).toBe(200);
      const body = response.json();
      const found = ids(body.videos);
      expect(found.slice(0, 2).sort()).toEqual(['vv-dusk', 'vv-dusk-copy']);
      expect(found.indexOf('vv-dusk')).toBeLessThan(found.indexOf('vv-stripes'));
      expect(body.result_count).toBe(found.length);
      expect(body.image_fingerprint).toMatch(/^[0-9a-f]{16}$/);
    });

    it('leaves a video source out of its own results', async () => {
      const body = (await get('/v3/search/videos/creative/by-image?asset_id=vv-dusk&page_size=100')).json();
      expect(ids(body.videos)[0]).toBe('vv-dusk-copy');
      expect(ids(body.videos)).not.toContain('vv-dusk');
    });

    it('answers 404 AssetNotFound for an unknown asset_id', async () => {
      const response = await get('/v3/search/videos/creative/by-image?asset_id=nothing-here');
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ code: 'AssetNotFound' });
    });
  });

  describe('GET /v3/images/{id}/similar', () => {
    it('needs a token', async () => {
      const response = await get('/v3/images/vl-dusk/similar');
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ code: 'AuthorizationTokenRequired' });
    });

    it('answers 404 ImageNotFound for an unknown image, or a video id', async () => {
      for (const id of ['no-such-image', 'vv-dusk']) {
        const response = await withToken(`/v3/images/${id}/similar`);
        expect(response.statusCode).toBe(404);
        expect(response.json()).toMatchObject({ code: 'ImageNotFound' });
      }
    });

    it('lists the nearest images of any family first, the image itself left out', async () => {
      const response = await withToken('/v3/images/vl-dusk/similar?page_size=100&fields=asset_family');
      expect(response.statusCode).toBe(200);
      const body = response.json();
      const found = ids(body.images);
      expect(found.slice(0, 2).sort()).toEqual(['vl-dusk-copy', 'vl-editorial']);
      expect(found).not.toContain('vl-dusk');
      expect(found.indexOf('vl-dusk-copy')).toBeLessThan(found.indexOf('vl-stripes'));
      expect(body.result_count).toBe(found.length);
      const paged = (await withToken('/v3/images/vl-dusk/similar?page_size=2&page=2')).json();
      expect(ids(paged.images)).toEqual(found.slice(2, 4));
    });

    it('answers an empty list for an image without a picture', async () => {
      const response = await withToken('/v3/images/no-picture/similar');
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ result_count: 0, images: [] });
    });
  });

  describe('GET /v3/videos/{id}/similar', () => {
    it('needs a token and a known video', async () => {
      expect((await get('/v3/videos/vv-dusk/similar')).statusCode).toBe(401);
      const unknown = await withToken('/v3/videos/vl-dusk/similar');
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toMatchObject({ code: 'VideosNotFound' });
    });

    it('lists the nearest videos first, the video itself left out', async () => {
      const body = (await withToken('/v3/videos/vv-dusk/similar?page_size=100')).json();
      const found = ids(body.videos);
      expect(found[0]).toBe('vv-dusk-copy');
      expect(found).not.toContain('vv-dusk');
      expect(found).not.toContain('vl-dusk');
      expect(body.result_count).toBe(found.length);
    });
  });

  describe('GET /v3/images/{id}/same-series', () => {
    it('needs a token', async () => {
      const response = await get('/v3/images/vl-dusk/same-series');
      expect(response.statusCode).toBe(401);
    });

    it('answers 404 ImageNotFound for an unknown image', async () => {
      const response = await withToken('/v3/images/no-such-image/same-series');
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ code: 'ImageNotFound' });
    });

    it('lists the same artist’s creative images of that day and collection in shoot order, the source left out', async () => {
      const response = await withToken('/v3/images/vl-dusk/same-series?fields=date_created');
      expect(response.statusCode).toBe(200);
      const body = response.json();
      // Not vl-next-day (next day), other-artist, vl-other-collection, vl-editorial, nor the videos.
      expect(ids(body.images)).toEqual(['vl-stripes', 'vl-dusk-copy', 'vl-late']);
      expect(body.result_count).toBe(3);

      const secondPage = (await withToken('/v3/images/vl-dusk/same-series?page_size=2&page=2')).json();
      expect(secondPage).toMatchObject({ result_count: 3 });
      expect(ids(secondPage.images)).toEqual(['vl-late']);
      // From another member, the series is the same less that member.
      const fromLate = (await withToken('/v3/images/vl-late/same-series')).json();
      expect(ids(fromLate.images)).toEqual(['vl-stripes', 'vl-dusk', 'vl-dusk-copy']);
    });

    it('ties a source that belongs to events to the assets that share one of them', async () => {
      const body = (await withToken('/v3/images/of-source/same-series')).json();
      expect(ids(body.images)).toEqual(['of-both-events']);
      expect(body.result_count).toBe(1);
    });

    it('answers an empty list for an editorial image', async () => {
      const response = await withToken('/v3/images/vl-editorial/same-series');
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ result_count: 0, images: [] });
    });
  });

  describe('GET /v3/videos/{id}/same-series', () => {
    it('needs a token and a known video', async () => {
      expect((await get('/v3/videos/vv-dusk/same-series')).statusCode).toBe(401);
      const unknown = await withToken('/v3/videos/vl-dusk/same-series');
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toMatchObject({ code: 'VideosNotFound' });
    });

    it('lists the same artist’s creative videos of that day in shoot order, no images', async () => {
      const body = (await withToken('/v3/videos/vv-dusk/same-series?fields=title')).json();
      expect(ids(body.videos)).toEqual(['vv-stripes', 'vv-dusk-copy']);
      expect(body.result_count).toBe(2);
    });
  });
});
