import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { applyWatermark, watermarkSvg } from '../../src/media/watermark.js';

/** Mean absolute per-channel difference between two same-sized RGB images. */
async function meanDifference(a: sharp.Sharp, b: sharp.Sharp): Promise<number> {
  const [left, right] = await Promise.all([a.removeAlpha().raw().toBuffer(), b.removeAlpha().raw().toBuffer()]);
  let total = 0;
  for (let index = 0; index < left.length; index += 1) total += Math.abs((left[index] ?? 0) - (right[index] ?? 0));
  return total / left.length;
}

function plain(width: number, height: number, colour: string): sharp.Sharp {
  return sharp({ create: { width, height, channels: 3, background: colour } });
}

describe('watermark', () => {
  it('visibly marks a rendition without hiding it', async () => {
    const width = 612;
    const height = 408;
    const marked = await applyWatermark(plain(width, height, '#4a7bb0'), width, height).png().toBuffer();
    const difference = await meanDifference(sharp(marked), plain(width, height, '#4a7bb0'));
    expect(difference).toBeGreaterThan(2); // visible…
    expect(difference).toBeLessThan(40); // …but the picture still shows through
  });

  it('shows on light pictures too, thanks to the dark outline', async () => {
    const marked = await applyWatermark(plain(400, 300, '#ffffff'), 400, 300).png().toBuffer();
    expect(await meanDifference(sharp(marked), plain(400, 300, '#ffffff'))).toBeGreaterThan(1);
  });

  it('works for any size down to 50px', async () => {
    for (const [width, height] of [
      [50, 50],
      [50, 20],
      [20, 50],
      [170, 113],
      [1024, 683],
    ] as const) {
      const marked = await applyWatermark(plain(width, height, '#4a7bb0'), width, height).jpeg().toBuffer();
      const metadata = await sharp(marked).metadata();
      expect([metadata.width, metadata.height]).toEqual([width, height]);
      expect(await meanDifference(sharp(marked), plain(width, height, '#4a7bb0'))).toBeGreaterThan(1);
    }
  });

  it('is a tiled, diagonal text mark of the exact size', () => {
    const svg = watermarkSvg(612, 408);
    expect(svg).toContain('width="612" height="408"');
    expect(svg).toContain('rotate(-30)');
    expect(svg.match(/>STOCKROOM</g)?.length ?? 0).toBeGreaterThan(4);
    expect(() => watermarkSvg(0, 10)).toThrow(RangeError);
  });
});
