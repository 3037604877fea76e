import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { downloadSizesFor, orientationOf, probeImage, verifyImageDecodes } from '../../src/media/image-probe.js';
import { seededRandom } from '../../src/platform/seeded-random.js';
import { makeJpeg } from './media-fixtures.js';

describe('probeImage', () => {
  it('reads size, dpi, media type and bytes of a JPEG', async () => {
    const jpeg = await makeJpeg(640, 427, { density: 300 });
    expect(await probeImage(jpeg)).toEqual({ width: 640, height: 427, dpi: 300, media_type: 'image/jpeg', bytes: jpeg.length });
  });

  it('reads a PNG, and assumes 72 dpi when the file records none', async () => {
    const png = await sharp({ create: { width: 300, height: 500, channels: 4, background: '#ff000080' } })
      .png()
      .toBuffer();
    expect(await probeImage(png)).toEqual({ width: 300, height: 500, dpi: 72, media_type: 'image/png', bytes: png.length });
  });

  it('reads WebP and TIFF originals', async () => {
    const base = () => sharp({ create: { width: 120, height: 80, channels: 3, background: '#123456' } });
    expect((await probeImage(await base().webp().toBuffer())).media_type).toBe('image/webp');
    expect((await probeImage(await base().tiff().toBuffer())).media_type).toBe('image/tiff');
  });

  it('reports the displayed size of an EXIF-rotated photo', async () => {
    const landscapePixels = await makeJpeg(400, 300);
    const taggedPortrait = await sharp(landscapePixels).withMetadata({ orientation: 6 }).jpeg().toBuffer();
    const probed = await probeImage(taggedPortrait);
    expect([probed.width, probed.height]).toEqual([300, 400]);
  });

  it('throws a clear error for an unreadable file', async () => {
    await expect(probeImage(Buffer.from('certainly not an image'))).rejects.toThrow(/Unreadable image/);
  });

  it('rule: an image whose pixels do not all decode is unreadable, though its header reads', async () => {
    // Seeded noise: it compresses badly, so a third of the file is well past the header,
    // and the same bytes every run, so the corruption below lands in the same place.
    const noisePicture = (width: number, height: number) => {
      const random = seededRandom(7);
      const pixels = Buffer.alloc(width * height * 3, 0).map(() => Math.floor(random() * 256));
      return sharp(pixels, { raw: { width, height, channels: 3 } });
    };
    const noisy = await noisePicture(800, 600).jpeg().toBuffer();
    const cut = noisy.subarray(0, Math.floor(noisy.length / 3));
    // Bytes that look like markers in the middle of the scan: corrupt, not short.
    const middle = Math.floor(noisy.length / 2);
    const corrupt = Buffer.from(noisy).fill(0xff, middle, middle + 40);
    const png = await noisePicture(400, 300).png().toBuffer();
    const cutPng = png.subarray(0, Math.floor(png.length / 3));
    for (const broken of [cut, corrupt, cutPng]) {
      expect((await sharp(broken).metadata()).width).toBeGreaterThan(0);
      await expect(probeImage(broken)).rejects.toThrow(/^Unreadable image: its pixels do not decode \(.+\)$/);
      await expect(verifyImageDecodes(broken)).rejects.toThrow(/^Unreadable image/);
    }
    await expect(verifyImageDecodes(noisy)).resolves.toBeUndefined();
    await expect(verifyImageDecodes(png)).resolves.toBeUndefined();
  });

  it('throws a clear error for an unsupported format', async () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>');
    await expect(probeImage(svg)).rejects.toThrow(/Unsupported image format 'svg'/);
    const gif = await sharp({ create: { width: 10, height: 10, channels: 3, background: '#000' } }).gif().toBuffer();
    await expect(probeImage(gif)).rejects.toThrow(/Unsupported image format 'gif'/);
  });
});

describe('orientationOf', () => {
  it('names the orientation, panoramic from a 2:1 ratio', () => {
    expect(orientationOf(1000, 1000)).toBe('Square');
    expect(orientationOf(1600, 1067)).toBe('Horizontal');
    expect(orientationOf(1999, 1000)).toBe('Horizontal');
    expect(orientationOf(2000, 1000)).toBe('PanoramicHorizontal');
    expect(orientationOf(1067, 1600)).toBe('Vertical');
    expect(orientationOf(1000, 2000)).toBe('PanoramicVertical');
    expect(() => orientationOf(0, 10)).toThrow(RangeError);
  });
});

describe('downloadSizesFor', () => {
  it('offers every standard size below a big original, then the original as x-large', () => {
    const original = { width: 6000, height: 4000, dpi: 240, bytes: 12_000_000, media_type: 'image/jpeg' };
    expect(downloadSizesFor(original)).toEqual([
      { name: 'x-small', width: 594, height: 396, dpi: 72, bytes: 117_612, media_type: 'image/jpeg' },
      { name: 'small', width: 1024, height: 683, dpi: 72, bytes: 349_696, media_type: 'image/jpeg' },
      { name: 'medium', width: 2048, height: 1365, dpi: 300, bytes: 1_397_760, media_type: 'image/jpeg' },
      { name: 'large', width: 3500, height: 2333, dpi: 300, bytes: 4_082_750, media_type: 'image/jpeg' },
      { name: 'x-large', width: 6000, height: 4000, dpi: 240, bytes: 12_000_000, media_type: 'image/jpeg' },
    ]);
  });

  it('offers only the sizes strictly smaller than the original, plus the original', () => {
    const original = { width: 1067, height: 1600, dpi: 72, bytes: 400_000, media_type: 'image/png' };
    const sizes = downloadSizesFor(original);
    expect(sizes.map((size) => size.name)).toEqual(['x-small', 'small', 'x-large']);
    expect(sizes[1]).toMatchObject({ width: 683, height: 1024, media_type: 'image/jpeg' });
    expect(sizes[2]).toEqual({ name: 'x-large', width: 1067, height: 1600, dpi: 72, bytes: 400_000, media_type: 'image/png' });

    const exactlySmall = downloadSizesFor({ width: 1024, height: 768, dpi: 72, bytes: 100_000, media_type: 'image/jpeg' });
    expect(exactlySmall.map((size) => size.name)).toEqual(['x-small', 'x-large']);
  });

  it('a small original is offered only as itself', () => {
    const original = { width: 500, height: 400, dpi: 96, bytes: 50_000, media_type: 'image/webp' };
    expect(downloadSizesFor(original)).toEqual([{ name: 'x-large', ...original }]);
  });

  it('estimates derived byte counts as whole numbers from the original bytes per pixel', () => {
    const original = { width: 3001, height: 1999, dpi: 300, bytes: 1_234_567, media_type: 'image/jpeg' };
    const bytesPerPixel = original.bytes / (original.width * original.height);
    for (const size of downloadSizesFor(original).slice(0, -1)) {
      expect(Number.isInteger(size.bytes)).toBe(true);
      expect(Math.abs(size.bytes - bytesPerPixel * size.width * size.height)).toBeLessThanOrEqual(0.5);
    }
  });
});
