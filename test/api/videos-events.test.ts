import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES, createTestApp, type TestApp } from '../helpers/test-app.js';
import { addImage } from '../helpers/catalog-fixtures.js';

describe.each(STORES)('videos, events, collections and countries on $name', ({ url }) => {
  let t: TestApp;
  const get = (path: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: path, headers: { 'api-key': t.apiKey, ...headers } });

  beforeAll(async () => {
    t = await createTestApp({ databaseUrl: url });
    await addImage(t.services, '1001', { fields: { event_ids: [500001] } });
    await addImage(t.services, '1002', { fields: { event_ids: [500001, 500002] } });
    await t.services.catalog.upsertAsset({
      asset_type: 'video',
      id: 'v2000001',
      fields: {
        title: 'Harbour at dawn',
        caption: 'Boats leave the harbour',
        asset_family: 'creative',
        license_model: 'royaltyfree',
        collection_code: 'STK',
        collection_name: 'Stockroom Creative',
        clip_length: '00:00:21:12',
        aspect_ratio: '16:9',
        orientation: 'horizontal',
        quality_rank: 1,
        era: '2020s',
        shot_speed: 'Real time',
        mastered_to: 'QuickTime',
        originally_shot_on: 'Digital Cinema',
        source: 'Stockroom',
        download_sizes: [
          { bytes: 73400320, bit_depth: '10', compression: 'ProRes 422', content_type: 'video/quicktime', description: 'HD 1080p', format: 'HD', frame_rate: 29.97, frame_size: '1920x1080', height: 1080, interlaced: false, name: 'hd1', width: 1920 },
          { bytes: 293601280, bit_depth: '10', compression: 'ProRes 422 HQ', content_type: 'video/quicktime', description: '4K', format: '4K', frame_rate: 29.97, frame_size: '3840x2160', height: 2160, interlaced: false, name: '4k', width: 3840 },
        ],
      },
    });
    await t.services.catalog.upsertEvent({
      id: 500001,
      name: 'Harbour Festival',
      start_date: '2024-06-01T00:00:00Z',
      editorial_segments: ['entertainment'],
      hero_image_id: '1001',
      location: { city: 'Porto', country: 'Portugal', state_province: 'Porto', venue: 'Ribeira' },
      keywords: [{ text: 'harbour', type: 'Concept' }, { text: 'Porto', type: 'Location' }],
    });
    await t.services.catalog.upsertEvent({ id: 500002, name: 'Harbour Festival — Day One', parent_id: 500001, start_date: '2024-06-01T00:00:00Z' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers the video summary_set by default', async () => {
    const body = (await get('/v3/videos/v2000001')).json();
    expect(body).toMatchObject({ id: 'v2000001', title: 'Harbour at dawn', asset_family: 'creative', collection_code: 'STK', license_model: 'royaltyfree' });
    expect(body).toHaveProperty('display_sizes');
    expect(body).not.toHaveProperty('clip_length');
  });

  it('returns video fields: clip length, aspect ratio, formats and frame sizes', async () => {
    const token = await t.issueToken();
    const body = (await get('/v3/videos/v2000001?fields=clip_length,aspect_ratio,download_sizes,era,quality_rank', { authorization: `Bearer ${token}` })).json();
    expect(body).toMatchObject({ clip_length: '00:00:21:12', aspect_ratio: '16:9', era: '2020s', quality_rank: 1 });
    expect(body.download_sizes.map((s: { format: string; frame_size: string }) => [s.format, s.frame_size])).toEqual([
      ['HD', '1920x1080'],
      ['4K', '3840x2160'],
    ]);
  });

  it('lists videos with videos_not_found, and 404 VideosNotFound for one unknown video', async () => {
    expect((await get('/v3/videos?ids=v2000001,zzz&fields=title')).json()).toEqual({
      videos: [{ id: 'v2000001', title: 'Harbour at dawn' }],
      videos_not_found: ['zzz'],
    });
    const missing = await get('/v3/videos/zzz');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ code: 'VideosNotFound', message: expect.stringContaining('zzz') });
  });

  it('answers an event with id, name and start_date by default', async () => {
    expect((await get('/v3/events/500001')).json()).toEqual({ id: 500001, name: 'Harbour Festival', start_date: '2024-06-01T00:00:00Z' });
  });

  it('returns every event field on request: counts, location, hero image', async () => {
    const body = (await get('/v3/events/500001?fields=id,child_event_count,image_count,editorial_segments,location,hero_image,type')).json();
    expect(body).toMatchObject({
      id: 500001,
      child_event_count: 1,
      image_count: 2,
      editorial_segments: ['entertainment'],
      location: { city: 'Porto', country: 'Portugal', state_province: 'Porto', venue: 'Ribeira' },
      type: null,
    });
    expect(body.hero_image.id).toBe('1001');
    expect(body.hero_image.display_sizes.map((d: { name: string }) => d.name)).toEqual(['comp', 'preview', 'thumb']);
    expect(Object.keys(body.hero_image.display_sizes[0]).sort()).toEqual(['is_watermarked', 'name', 'uri']);
  });

  it('gives an event’s keywords the id and type of the catalogue’s keyword of that text', async () => {
    const event = (await get('/v3/events/500001?fields=keywords')).json();
    expect(event.keywords).toEqual([
      { keyword_id: expect.stringMatching(/^\d+$/), text: 'harbour', type: 'Concept' },
      { keyword_id: expect.stringMatching(/^\d+$/), text: 'Porto', type: 'Location' },
    ]);
    // The same keyword an image is tagged with: one id.
    const image = (await get('/v3/images/1001?fields=keywords')).json().images[0];
    expect(event.keywords[0].keyword_id).toBe(image.keywords.find((k: { text: string }) => k.text === 'harbour').keyword_id);
  });

  it('answers 404 EventNotFound and 400 for a non-integer event id', async () => {
    const missing = await get('/v3/events/42');
    expect(missing.statusCode).toBe(404);
    expect(missing.json().code).toBe('EventNotFound');
    const bad = await get('/v3/events/abc');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'InvalidParameterValue', message: expect.stringContaining("'id'") });
  });

  it('lists several events with events_not_found', async () => {
    expect((await get('/v3/events?ids=500002,7&fields=name')).json()).toEqual({
      events: [{ id: 500002, name: 'Harbour Festival — Day One' }],
      events_not_found: [7],
    });
  });

  it('rejects an unknown event field', async () => {
    const response = await get('/v3/events/500001?fields=colour');
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toContain('colour');
  });

  it('lists collections as records', async () => {
    const body = (await get('/v3/collections')).json();
    expect(body.collections).toEqual(
      expect.arrayContaining([
        { id: 7, code: 'NWS', name: 'News Wire', asset_family: 'editorial', license_model: 'rightsmanaged', product_types: ['editorialsubscription', 'premiumaccess'] },
        expect.objectContaining({ code: 'STK', name: 'Stockroom Creative' }),
      ]),
    );
  });

  it('names countries in the language of Accept-Language', async () => {
    const english = (await get('/v3/countries')).json().countries;
    const german = (await get('/v3/countries', { 'accept-language': 'de' })).json().countries;
    const find = (list: Array<{ iso_alpha_2: string }>, code: string) => list.find((c) => c.iso_alpha_2 === code);
    expect(find(english, 'DE')).toEqual({ iso_alpha_2: 'DE', iso_alpha_3: 'DEU', name: 'Germany' });
    expect(find(german, 'DE')).toEqual({ iso_alpha_2: 'DE', iso_alpha_3: 'DEU', name: 'Deutschland' });
    expect(english.length).toBeGreaterThan(240);
  });
});
