import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MediaService, renditionBlobKey } from '../../src/media/media.service.js';
import { UrlSigner } from '../../src/media/url-signer.js';
import { makeJpeg, RecordingBlobStore, temporaryBlobStore } from './media-fixtures.js';

const ORIGINAL_KEY = 'originals/ab/landscape.jpg';
const ASSET = { id: 'landscape-1', width: 1600, height: 1067, hasOriginal: true };

describe('MediaService', () => {
  let blobs: RecordingBlobStore;
  let cleanUp: () => void;
  let media: MediaService;
  let originalLookups: number;

  beforeEach(async () => {
    const store = temporaryBlobStore();
    cleanUp = store.cleanUp;
    blobs = new RecordingBlobStore(store.blobs);
    await store.blobs.put(ORIGINAL_KEY, await makeJpeg(ASSET.width, ASSET.height));
    originalLookups = 0;
    media = new MediaService({
      blobs,
      signer: new UrlSigner('service-secret', 'https://stock.example.test', 3600, () => Date.UTC(2024, 0, 1, 9, 30)),
      findOriginal: async (assetId) => {
        originalLookups += 1;
        return assetId === ASSET.id ? { originalKey: ORIGINAL_KEY } : undefined;
      },
    });
  });

  afterEach(() => cleanUp());

  describe('displaySizes', () => {
    it('gives name, size, watermark flag and a signed /display URI for each requested name, in order', () => {
      const sizes = media.displaySizes(ASSET, ['thumb', 'high_res_comp_webp', 'mid_res_comp']);
      expect(sizes.map(({ name, width, height, is_watermarked }) => ({ name, width, height, is_watermarked }))).toEqual([
        { name: 'thumb', width: 170, height: 113, is_watermarked: false },
        { name: 'high_res_comp_webp', width: 1600, height: 1067, is_watermarked: true },
        { name: 'mid_res_comp', width: 1024, height: 683, is_watermarked: true },
      ]);
      expect(sizes.map(({ uri }) => new URL(uri).pathname)).toEqual([
        '/display/landscape-1/thumb.jpg',
        '/display/landscape-1/high_res_comp.webp',
        '/display/landscape-1/mid_res_comp.jpg',
      ]);
      for (const { uri } of sizes) expect(uri).toMatch(/^https:\/\/stock\.example\.test\/display\/.+\?expires=\d+&signature=[\w-]+$/);
    });

    it('preview and comp share one URL', () => {
      const [preview, comp] = media.displaySizes(ASSET, ['preview', 'comp']);
      expect(preview?.uri).toBe(comp?.uri);
      expect(new URL(comp?.uri ?? '').pathname).toBe('/display/landscape-1/comp.jpg');
      expect([preview?.width, preview?.height]).toEqual([comp?.width, comp?.height]);
    });

    it('is empty when the asset has no original or no known size', () => {
      expect(media.displaySizes({ ...ASSET, hasOriginal: false }, ['thumb', 'comp'])).toEqual([]);
      expect(media.displaySizes({ ...ASSET, width: null }, ['thumb'])).toEqual([]);
    });

    it('skips unknown names and repeats', () => {
      const sizes = media.displaySizes(ASSET, ['thumb', 'x-large', 'thumb', 'constructor']);
      expect(sizes.map((size) => size.name)).toEqual(['thumb']);
    });

    it('URL-encodes the asset id in the path', () => {
      const [thumb] = media.displaySizes({ ...ASSET, id: 'a b/c' }, ['thumb']);
      expect(new URL(thumb?.uri ?? '').pathname).toBe('/display/a%20b%2Fc/thumb.jpg');
    });
  });

  describe('render', () => {
    it('renders a rendition at the advertised size and type, watermarked where the table says', async () => {
      for (const name of ['thumb', 'comp', 'mid_res_comp_webp'] as const) {
        const [advertised] = media.displaySizes(ASSET, [name]);
        const file = new URL(advertised?.uri ?? '').pathname.split('/').pop() ?? '';
        const rendered = await media.render(ASSET.id, file);
        const metadata = await sharp(rendered?.body).metadata();
        expect([metadata.width, metadata.height]).toEqual([advertised?.width, advertised?.height]);
        expect(rendered?.contentType).toBe(file.endsWith('.webp') ? 'image/webp' : 'image/jpeg');
        expect(metadata.format).toBe(file.endsWith('.webp') ? 'webp' : 'jpeg');
      }
    });

    it('watermarks comps but not thumbs', async () => {
      await blobs.put(
        ORIGINAL_KEY,
        await sharp({ create: { width: 900, height: 600, channels: 3, background: '#4a7bb0' } }).jpeg().toBuffer(),
      );
      const spread = async (file: string) => {
        const rendered = await media.render(ASSET.id, file);
        const { channels } = await sharp(rendered?.body).stats();
        return Math.max(...channels.map((channel) => channel.stdev));
      };
      expect(await spread('thumb.jpg')).toBeLessThan(2); // still one flat colour
      expect(await spread('comp.jpg')).toBeGreaterThan(5);
      expect(await spread('mid_res_comp.webp')).toBeGreaterThan(5);
    });

    it('caches a rendition: the second request is served from the blob store without rendering', async () => {
      const first = await media.render(ASSET.id, 'comp.jpg');
      expect(blobs.puts).toEqual([renditionBlobKey(ORIGINAL_KEY, 'comp.jpg')]);
      const second = await media.render(ASSET.id, 'comp.jpg');
      expect(blobs.puts).toHaveLength(1);
      expect(second?.body.equals(first?.body ?? Buffer.alloc(0))).toBe(true);
      expect(await blobs.get('renditions/originals__ab__landscape.jpg/comp.jpg')).toBeDefined();
    });

    it('concurrent first requests for one rendition render it only once', async () => {
      const results = await Promise.all(Array.from({ length: 6 }, () => media.render(ASSET.id, 'high_res_comp.jpg')));
      expect(blobs.puts).toHaveLength(1);
      expect(new Set(results.map((result) => result?.body.toString('base64'))).size).toBe(1);
    });

    it('different renditions of one asset are rendered and cached separately', async () => {
      await Promise.all([media.render(ASSET.id, 'thumb.jpg'), media.render(ASSET.id, 'comp.webp')]);
      expect([...blobs.puts].sort()).toEqual([
        renditionBlobKey(ORIGINAL_KEY, 'comp.webp'),
        renditionBlobKey(ORIGINAL_KEY, 'thumb.jpg'),
      ]);
    });

    it('an unknown file name or unknown asset gives undefined', async () => {
      expect(await media.render(ASSET.id, 'preview.jpg')).toBeUndefined();
      expect(await media.render(ASSET.id, '../../etc/passwd')).toBeUndefined();
      expect(originalLookups).toBe(0); // a bad file name costs no lookup
      expect(await media.render('no-such-asset', 'comp.jpg')).toBeUndefined();
      expect(blobs.puts).toEqual([]);
    });

    it('an original missing from the blob store gives undefined', async () => {
      await blobs.delete(ORIGINAL_KEY);
      expect(await media.render(ASSET.id, 'thumb.jpg')).toBeUndefined();
    });

    it('flattens a transparent original onto white for JPEG renditions', async () => {
      await blobs.put(
        ORIGINAL_KEY,
        await sharp({ create: { width: 300, height: 200, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
          .png()
          .toBuffer(),
      );
      const thumb = await media.render(ASSET.id, 'thumb.jpg');
      const { dominant } = await sharp(thumb?.body).stats();
      expect(dominant).toMatchObject({ r: 248, g: 248, b: 248 });
    });
  });

  describe('renditionBlobKey', () => {
    it('keeps distinct original keys distinct after flattening the slashes', () => {
      expect(renditionBlobKey('originals/abc.jpg', 'comp.jpg')).toBe('renditions/originals__abc.jpg/comp.jpg');
      const keys = ['a/b', 'a_b', 'a__b', 'a/_b', 'a_/b', 'a//b'].map((key) => renditionBlobKey(key, 'thumb.jpg'));
      expect(new Set(keys).size).toBe(keys.length);
    });
  });
});
