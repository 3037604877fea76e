import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { createTestApp, STORES, type TestApp } from '../helpers/test-app.js';
import { FRAME_FOOTER_HEIGHT } from '../../src/embed/embed.service.js';
import { IngestService } from '../../src/catalog/ingest/ingest.service.js';
import { makeJpeg } from '../helpers/catalog-fixtures.js';
import { addEmbedCatalog, EMBEDDABLE, EMBEDDABLE_TEXT, MARKUP, NO_ORIGINAL, NOT_EMBEDDABLE, pathOf, VIDEO } from './embed-fixtures.js';

const PUBLIC = 'http://stockroom.test';
const SHORT = `${PUBLIC}/s`;

interface OEmbed {
  type: string;
  version: string;
  title: string | null;
  caption: string | null;
  photographer: string | null;
  collection: string | null;
  html: string;
  width: number;
  height: number;
  thumbnail_url: string;
  thumbnail_width: number;
  thumbnail_height: number;
  terms_of_use_url: string;
  cache_age: number;
}

const oembedPath = (url: string, extra = '') => `/embed/oembed?url=${encodeURIComponent(url)}${extra}`;

function expectError(response: LightMyRequestResponse, status: number, code: string): void {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.json()).toMatchObject({ code, message: expect.any(String) });
}

describe.each(STORES)('oEmbed, short links and the embed page, on $name', ({ url: databaseUrl }) => {
  let t: TestApp;
  const get = (path: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url: path, headers });
  const api = (path: string) => get(path, { 'api-key': t.apiKey });

  beforeAll(async () => {
    t = await createTestApp({ databaseUrl, env: { STOCKROOM_PUBLIC_URL: PUBLIC } });
    await addEmbedCatalog(t.services);
    await t.services.search.build();
  });
  afterAll(async () => {
    await t?.close();
  });

  describe('uri_oembed', () => {
    it('is the oEmbed URI of the asset short link on an embeddable image, null where the line said embeddable: false or there is no original', async () => {
      const response = await api(`/v3/images?ids=${EMBEDDABLE},${NOT_EMBEDDABLE},${NO_ORIGINAL}&fields=uri_oembed`);
      expect(response.statusCode, response.body).toBe(200);
      const byId = Object.fromEntries(response.json<{ images: Array<{ id: string; uri_oembed: string | null }> }>().images.map((image) => [image.id, image.uri_oembed]));
      expect(byId).toEqual({
        [EMBEDDABLE]: `${PUBLIC}/embed/oembed?url=${encodeURIComponent(`${SHORT}/${EMBEDDABLE}`)}`,
        [NOT_EMBEDDABLE]: null,
        [NO_ORIGINAL]: null,
      });
    });

    it('is on video detail too, and only when asked for (it is in no field set)', async () => {
      const video = await api(`/v3/videos/${VIDEO}?fields=uri_oembed`);
      expect(video.statusCode, video.body).toBe(200);
      expect(video.json()).toEqual({ id: VIDEO, uri_oembed: `${PUBLIC}/embed/oembed?url=${encodeURIComponent(`${SHORT}/${VIDEO}`)}` });
      const detail = await api(`/v3/images/${EMBEDDABLE}?fields=detail_set`);
      expect(detail.statusCode, detail.body).toBe(200);
      expect(detail.json().images[0]).not.toHaveProperty('uri_oembed');
    });

    it('is what embed_content_only=true filters on: only assets other sites may embed are found', async () => {
      const idsOf = async (query: string) => {
        const response = await api(`/v3/search/images?${query}&fields=id&page_size=100`);
        expect(response.statusCode, response.body).toBe(200);
        return response.json<{ images: Array<{ id: string }> }>().images.map((image) => image.id);
      };
      const all = await idsOf('sort_order=newest');
      expect(all).toEqual(expect.arrayContaining([EMBEDDABLE, NOT_EMBEDDABLE, NO_ORIGINAL]));
      const embeddable = await idsOf('sort_order=newest&embed_content_only=true');
      expect(embeddable).toContain(EMBEDDABLE);
      expect(embeddable).not.toContain(NOT_EMBEDDABLE);
      expect(embeddable).not.toContain(NO_ORIGINAL);
      expect(await idsOf('sort_order=newest&embed_content_only=false')).toEqual(all);
    });

    it('is in search results that name it', async () => {
      const response = await api(`/v3/search/images?phrase=harbour&fields=id,uri_oembed`);
      expect(response.statusCode, response.body).toBe(200);
      const images = response.json<{ images: Array<{ id: string; uri_oembed: string | null }> }>().images;
      expect(images.find((image) => image.id === EMBEDDABLE)?.uri_oembed).toBe(`${PUBLIC}/embed/oembed?url=${encodeURIComponent(`${SHORT}/${EMBEDDABLE}`)}`);
    });
  });

  describe('GET {embed_url}/oembed', () => {
    it('answers the spec fields for the URI uri_oembed gave, with no Api-Key, readable from any origin', async () => {
      const detail = (await api(`/v3/images/${EMBEDDABLE}?fields=uri_oembed,comp,thumb`)).json<{
        images: Array<{ uri_oembed: string; display_sizes: Array<{ name: string; width: number; height: number; uri: string }> }>;
      }>().images[0]!;
      const response = await get(pathOf(detail.uri_oembed));
      expect(response.statusCode, response.body).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.headers['access-control-allow-origin']).toBe('*');
      const comp = detail.display_sizes.find((size) => size.name === 'comp')!;
      const thumb = detail.display_sizes.find((size) => size.name === 'thumb')!;
      const body = response.json<OEmbed>();
      expect(body).toEqual({
        type: 'rich',
        version: '1.0',
        title: EMBEDDABLE_TEXT.title,
        caption: EMBEDDABLE_TEXT.caption,
        photographer: EMBEDDABLE_TEXT.artist,
        collection: EMBEDDABLE_TEXT.collection_name,
        html: expect.stringContaining(`<iframe src="${PUBLIC}/embed/frame/${EMBEDDABLE}" width="612" height="${408 + FRAME_FOOTER_HEIGHT}"`),
        width: comp.width,
        height: comp.height + FRAME_FOOTER_HEIGHT,
        thumbnail_url: thumb.uri,
        thumbnail_width: thumb.width,
        thumbnail_height: thumb.height,
        terms_of_use_url: `${PUBLIC}/embed/terms`,
        cache_age: expect.any(Number),
      });
      expect([comp.width, comp.height, thumb.width, thumb.height]).toEqual([612, 408, 170, 113]);
      // The thumbnail is kept no longer than its signed URI lasts.
      const expires = Number(new URL(thumb.uri).searchParams.get('expires'));
      expect(body.cache_age).toBeGreaterThan(0);
      expect(body.cache_age).toBeLessThanOrEqual(expires - Math.floor(Date.now() / 1000) + 1);
      // The thumbnail and the terms open as they are given.
      const thumbnail = await get(pathOf(body.thumbnail_url));
      expect(thumbnail.statusCode).toBe(200);
      expect(thumbnail.headers['content-type']).toBe('image/jpeg');
      const terms = await get(pathOf(body.terms_of_use_url));
      expect(terms.statusCode).toBe(200);
      expect(terms.headers['content-type']).toMatch(/^text\/html/);
      expect(terms.body).toContain('Embedding is not a license');
    });

    it('answers type video for a video, and takes caller and format=json in any letter case', async () => {
      const response = await get(oembedPath(`${SHORT}/${VIDEO}`, '&caller=Test%20Blog&format=JSON'));
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json<OEmbed>()).toMatchObject({ type: 'video', title: 'Yachts racing', photographer: 'Ines Calder', width: 612, height: 344 + FRAME_FOOTER_HEIGHT });
    });

    it('answers 501 for any format other than json', async () => {
      for (const format of ['xml', 'jsonp', '']) {
        expectError(await get(oembedPath(`${SHORT}/${EMBEDDABLE}`, `&format=${format}`)), 501, 'FormatNotImplemented');
      }
    });

    it('answers 404 for a url on another host, under another path, or of more than one segment', async () => {
      for (const other of [
        `http://elsewhere.test/s/${EMBEDDABLE}`,
        `http://stockroom.test:8080/s/${EMBEDDABLE}`,
        `${PUBLIC}/asset/${EMBEDDABLE}`,
        `${PUBLIC}/s`,
        `${PUBLIC}/s/`,
        `${SHORT}/${EMBEDDABLE}/more`,
        `${PUBLIC}/sx/${EMBEDDABLE}`,
      ]) {
        expectError(await get(oembedPath(other)), 404, 'UnknownProviderUri');
      }
    });

    it('takes the short link written with https, with a trailing slash or a query', async () => {
      for (const variant of [`https://stockroom.test/s/${EMBEDDABLE}`, `${SHORT}/${EMBEDDABLE}/`, `${SHORT}/${EMBEDDABLE}?utm_source=x`]) {
        const response = await get(oembedPath(variant));
        expect(response.statusCode, `${variant}: ${response.body}`).toBe(200);
      }
    });

    it('answers 404 for an unknown asset, one whose line said embeddable: false, and one with nothing to show', async () => {
      expectError(await get(oembedPath(`${SHORT}/nope`)), 404, 'AssetNotFound');
      expectError(await get(oembedPath(`${SHORT}/not%20an%20id`)), 404, 'AssetNotFound');
      expectError(await get(oembedPath(`${SHORT}/${NOT_EMBEDDABLE}`)), 404, 'AssetNotEmbeddable');
      expectError(await get(oembedPath(`${SHORT}/${NO_ORIGINAL}`)), 404, 'AssetNotEmbeddable');
    });

    it('answers 400 with a named code for a missing, malformed or unknown parameter', async () => {
      expectError(await get('/embed/oembed'), 400, 'InvalidParameterValue');
      expectError(await get('/embed/oembed?format=json'), 400, 'InvalidParameterValue');
      expectError(await get(oembedPath('not a url')), 400, 'IncorrectlyFormedUri');
      expectError(await get(oembedPath(`ftp://stockroom.test/s/${EMBEDDABLE}`)), 400, 'IncorrectlyFormedUri');
      expectError(await get(oembedPath(`${SHORT}/${EMBEDDABLE}`, '&maxwidth=wide')), 400, 'InvalidParameterValue');
      expectError(await get(oembedPath(`${SHORT}/${EMBEDDABLE}`, '&maxwidth=20')), 400, 'InvalidParameterValue');
      expectError(await get(oembedPath(`${SHORT}/${EMBEDDABLE}`, '&colour=red')), 400, 'MalformedRequest');
    });

    it('takes the request WordPress makes: maxwidth, maxheight, url, dnt=1 and format=json', async () => {
      // WordPress (4.9 and later) adds dnt=1 to every oEmbed request; refusing it would keep every WordPress site out.
      const response = await get(oembedPath(`${SHORT}/${EMBEDDABLE}`, '&maxwidth=600&maxheight=900&dnt=1&format=json'));
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json<OEmbed>()).toMatchObject({ type: 'rich', width: 600 });
    });

    it('lets a page of any origin read its errors too, so a script can tell "not embeddable" from a network failure', async () => {
      for (const [path, status] of [
        [oembedPath(`${SHORT}/nope`), 404],
        [oembedPath(`${SHORT}/${NOT_EMBEDDABLE}`), 404],
        [oembedPath(`http://elsewhere.test/s/${EMBEDDABLE}`), 404],
        [oembedPath(`${SHORT}/${EMBEDDABLE}`, '&format=xml'), 501],
        [oembedPath('not a url'), 400],
        ['/embed/oembed', 400],
      ] as const) {
        const response = await get(path, { origin: 'https://blog.example' });
        expect(response.statusCode, `${path}: ${response.body}`).toBe(status);
        expect(response.headers['access-control-allow-origin'], path).toBe('*');
      }
    });

    it('fits the frame within maxwidth and maxheight, never enlarging it', async () => {
      const narrow = (await get(oembedPath(`${SHORT}/${EMBEDDABLE}`, '&maxwidth=306'))).json<OEmbed>();
      expect([narrow.width, narrow.height]).toEqual([306, 204 + FRAME_FOOTER_HEIGHT]);
      expect(narrow.html).toContain(`width="306" height="${204 + FRAME_FOOTER_HEIGHT}"`);
      const low = (await get(oembedPath(`${SHORT}/${EMBEDDABLE}`, '&maxheight=256'))).json<OEmbed>();
      expect(low.height).toBeLessThanOrEqual(256);
      expect(low.width).toBe(Math.floor(612 * (200 / 408)));
      const roomy = (await get(oembedPath(`${SHORT}/${EMBEDDABLE}`, '&maxwidth=5000&maxheight=5000'))).json<OEmbed>();
      expect([roomy.width, roomy.height]).toEqual([612, 408 + FRAME_FOOTER_HEIGHT]);
    });
  });

  describe('the short link', () => {
    it('redirects to the asset page, for any asset (sharing is not embedding)', async () => {
      for (const id of [EMBEDDABLE, NOT_EMBEDDABLE, VIDEO]) {
        const response = await get(`/s/${id}`);
        expect(response.statusCode, response.body).toBe(302);
        expect(response.headers.location).toBe(`${PUBLIC}/asset/${id}`);
      }
    });

    it('leads to the asset written with a trailing slash too, as the oEmbed endpoint takes it', async () => {
      expect((await get(oembedPath(`${SHORT}/${EMBEDDABLE}/`))).statusCode).toBe(200);
      const response = await get(`/s/${EMBEDDABLE}/`);
      expect(response.statusCode, response.body).toBe(302);
      expect(response.headers.location).toBe(`${PUBLIC}/asset/${EMBEDDABLE}`);
      expectError(await get('/s/nope/'), 404, 'AssetNotFound');
    });

    it('answers 404 for an id no asset has', async () => {
      expectError(await get('/s/nope'), 404, 'AssetNotFound');
      expectError(await get('/s/%3Cscript%3E'), 404, 'AssetNotFound');
    });
  });

  describe('the embed page', () => {
    it('shows the watermarked comp, the title and the credit line, with links back to the asset page', async () => {
      const comp = (await api(`/v3/images/${EMBEDDABLE}?fields=comp`)).json<{ images: Array<{ display_sizes: Array<{ uri: string; is_watermarked: boolean }> }> }>().images[0]!.display_sizes[0]!;
      expect(comp.is_watermarked).toBe(true);
      const response = await get(`/embed/frame/${EMBEDDABLE}`);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      const html = response.body;
      expect(html).toContain(`<img src="${comp.uri.replaceAll('&', '&amp;')}" width="612" height="408" alt="${EMBEDDABLE_TEXT.caption}">`);
      expect(html).toContain(`>${EMBEDDABLE_TEXT.title}</a>`);
      expect(html).toContain(`<span>${EMBEDDABLE_TEXT.credit_line}</span>`);
      expect(html.match(new RegExp(`href="${PUBLIC}/asset/${EMBEDDABLE}" target="_blank" rel="noopener"`, 'g'))).toHaveLength(2);
      const image = await get(pathOf(comp.uri));
      expect(image.statusCode).toBe(200);
      expect(image.headers['content-type']).toBe('image/jpeg');
    });

    it('may be framed by any site, sets no cookie, runs no script and loads nothing but the comp from the API host', async () => {
      const response = await get(`/embed/frame/${EMBEDDABLE}`, { cookie: 'someone=else' });
      expect(response.headers['x-frame-options']).toBeUndefined();
      expect(response.headers['set-cookie']).toBeUndefined();
      const policy = String(response.headers['content-security-policy']);
      const directives = Object.fromEntries(policy.split(';').map((part) => part.trim().split(/\s+/)).map(([name, ...values]) => [name, values.join(' ')]));
      expect(directives).toEqual({
        'default-src': "'none'",
        'img-src': PUBLIC,
        'style-src': expect.stringMatching(/^'sha256-[A-Za-z0-9+/]+=*'$/),
        'base-uri': "'none'",
        'form-action': "'none'",
        'frame-ancestors': '*',
      });
      expect(response.body).not.toMatch(/<script|javascript:|\son[a-z]+=/i);
      expect(response.headers['cache-control']).toMatch(/^public, max-age=\d+$/);
    });

    it('escapes the text it shows', async () => {
      const response = await get(`/embed/frame/${MARKUP}`);
      expect(response.statusCode, response.body).toBe(200);
      // The markup shows as text: no element of it, only escaped characters.
      expect(response.body).not.toMatch(/<script|<img src=x/i);
      expect(response.body).toContain('&lt;script&gt;alert(&quot;title&quot;)&lt;/script&gt; &amp; &quot;quotes&quot;');
      const oembed = (await get(oembedPath(`${SHORT}/${MARKUP}`))).json<OEmbed>();
      expect(oembed.html).not.toMatch(/<script/i);
      expect(oembed.title).toBe('<script>alert("title")</script> & "quotes"');
    });

    it('answers 404 with a page for an unknown asset and for one that may not be embedded', async () => {
      for (const id of ['nope', NOT_EMBEDDABLE, NO_ORIGINAL]) {
        const response = await get(`/embed/frame/${id}`);
        expect(response.statusCode).toBe(404);
        expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(response.headers['content-security-policy']).toContain('frame-ancestors *');
        expect(response.body).toContain('Not available');
      }
    });
  });

  it('follows the ingest line: an asset re-ingested with embeddable: false leaves other sites at once, and comes back with true', async () => {
    const ingest = new IngestService({ catalog: t.services.catalog, blobs: t.services.blobs });
    const line = { asset_type: 'image', id: 'e5', title: 'Changing minds', product_types: ['creditpack'] };
    await ingest.ingestRecord({ ...line, file: 'e5.jpg' }, await makeJpeg(900, 600, '#556677'));
    const uriOf = async () => (await api('/v3/images/e5?fields=uri_oembed')).json<{ images: Array<{ uri_oembed: string | null }> }>().images[0]!.uri_oembed;
    expect(await uriOf()).not.toBeNull();
    expect((await get('/embed/frame/e5')).statusCode).toBe(200);

    // A line without a file keeps the stored original.
    await ingest.ingestRecord({ ...line, embeddable: false });
    expect(await uriOf()).toBeNull();
    expectError(await get(oembedPath(`${SHORT}/e5`)), 404, 'AssetNotEmbeddable');
    expect((await get('/embed/frame/e5')).statusCode).toBe(404);

    await ingest.ingestRecord({ ...line, embeddable: true });
    expect(await uriOf()).toBe(`${PUBLIC}/embed/oembed?url=${encodeURIComponent(`${SHORT}/e5`)}`);
    expect((await get(oembedPath(`${SHORT}/e5`))).statusCode).toBe(200);
  });

  it('leaves the API as it was: the oEmbed routes are not in the OpenAPI document', async () => {
    const document = (await get('/v3/openapi.json')).json<{ paths: Record<string, unknown> }>();
    expect(Object.keys(document.paths).filter((path) => /oembed|embed|^\/s\//.test(path))).toEqual([]);
  });
});

describe('oEmbed and short links on hosts of their own, answered by Host header', () => {
  let t: TestApp;
  const get = (path: string, host: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url: path, headers: { host, ...headers } });

  beforeAll(async () => {
    t = await createTestApp({
      env: {
        STOCKROOM_PUBLIC_URL: PUBLIC,
        STOCKROOM_EMBED_URL: 'https://embed.test',
        STOCKROOM_SHORT_URL: 'https://sho.rt',
        STOCKROOM_TRUST_PROXY: 'loopback',
      },
    });
    await addEmbedCatalog(t.services);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('hands out uri_oembed on the embed host, naming the short host', async () => {
    const response = await t.app.inject({ method: 'GET', url: `/v3/images/${EMBEDDABLE}?fields=uri_oembed`, headers: { 'api-key': t.apiKey } });
    expect(response.json().images[0]).toEqual({ id: EMBEDDABLE, uri_oembed: `https://embed.test/oembed?url=${encodeURIComponent(`https://sho.rt/${EMBEDDABLE}`)}` });
  });

  it('answers oEmbed, the embed page and the terms on the embed host only', async () => {
    const query = `/oembed?url=${encodeURIComponent(`https://sho.rt/${EMBEDDABLE}`)}`;
    const answer = await get(query, 'embed.test');
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.json<OEmbed>()).toMatchObject({ html: expect.stringContaining('src="https://embed.test/frame/e1"'), terms_of_use_url: 'https://embed.test/terms' });
    expect((await get(`/frame/${EMBEDDABLE}`, 'embed.test')).statusCode).toBe(200);
    expect((await get('/terms', 'embed.test')).statusCode).toBe(200);
    for (const path of [query, `/frame/${EMBEDDABLE}`, '/terms']) expectError(await get(path, 'stockroom.test'), 404, 'NotFound');
    // The host as a proxy the server trusts forwards it.
    expect((await get(query, 'stockroom.test', { 'x-forwarded-host': 'embed.test' })).statusCode).toBe(200);
  });

  it('takes only short links of the short host', async () => {
    expectError(await get(`/oembed?url=${encodeURIComponent(`${PUBLIC}/s/${EMBEDDABLE}`)}`, 'embed.test'), 404, 'UnknownProviderUri');
    expectError(await get(`/oembed?url=${encodeURIComponent(`https://embed.test/${EMBEDDABLE}`)}`, 'embed.test'), 404, 'UnknownProviderUri');
  });

  it('redirects a short link at the root of the short host, and leaves the same path alone on the API host', async () => {
    const response = await get(`/${EMBEDDABLE}`, 'sho.rt');
    expect(response.statusCode, response.body).toBe(302);
    expect(response.headers.location).toBe(`${PUBLIC}/asset/${EMBEDDABLE}`);
    expect((await get(`/${EMBEDDABLE}/`, 'sho.rt')).headers.location).toBe(`${PUBLIC}/asset/${EMBEDDABLE}`);
    expectError(await get(`/${EMBEDDABLE}/`, 'stockroom.test'), 404, 'NotFound');
    expectError(await get(`/${EMBEDDABLE}`, 'stockroom.test'), 404, 'NotFound');
    expectError(await get('/nope', 'sho.rt'), 404, 'AssetNotFound');
    // The API host's own paths are untouched.
    expect((await get('/v3', 'stockroom.test')).statusCode).toBe(200);
  });
});

describe('the embed routes under a public URL with a path', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { STOCKROOM_PUBLIC_URL: `${PUBLIC}/media` } });
    await addEmbedCatalog(t.services);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('serves {public URL}/embed and /s at their paths below it, as a proxy in front passes them on', async () => {
    const uri = (await t.app.inject({ method: 'GET', url: `/v3/images/${EMBEDDABLE}?fields=uri_oembed`, headers: { 'api-key': t.apiKey } })).json<{ images: Array<{ uri_oembed: string }> }>().images[0]!.uri_oembed;
    expect(uri).toBe(`${PUBLIC}/media/embed/oembed?url=${encodeURIComponent(`${PUBLIC}/media/s/${EMBEDDABLE}`)}`);
    const answer = await t.app.inject({ method: 'GET', url: pathOf(uri).replace('/media', '') });
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.json<OEmbed>().html).toContain(`src="${PUBLIC}/media/embed/frame/${EMBEDDABLE}"`);
    const redirect = await t.app.inject({ method: 'GET', url: `/s/${EMBEDDABLE}` });
    expect(redirect.headers.location).toBe(`${PUBLIC}/media/asset/${EMBEDDABLE}`);
  });
});
