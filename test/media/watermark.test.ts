import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { applyWatermark, lightWatermarkSvg, watermarkSvg } from '../../src/media/watermark.js';
import { DISPLAY_SIZES, GRID_RENDITION, renditionForFile } from '../../src/media/display-sizes.js';

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

  it('the light mark of a results grid is one small word in a corner: the centre untouched, far less covered than by the full mark', async () => {
    const [width, height] = [480, 320];
    const full = await applyWatermark(plain(width, height, '#4a7bb0'), width, height).png().toBuffer();
    const light = await applyWatermark(plain(width, height, '#4a7bb0'), width, height, true).png().toBuffer();
    const lightDifference = await meanDifference(sharp(light), plain(width, height, '#4a7bb0'));
    expect(lightDifference).toBeGreaterThan(0.05); // marked…
    expect(lightDifference * 5).toBeLessThan(await meanDifference(sharp(full), plain(width, height, '#4a7bb0'))); // …lightly
    const centre = { left: width / 4, top: height / 4, width: width / 2, height: height / 2 };
    expect(await meanDifference(sharp(light).extract(centre), plain(width, height, '#4a7bb0').extract(centre))).toBe(0);
    expect(lightWatermarkSvg(width, height).match(/<text/g)).toHaveLength(1);
    // The grid's file is the only lightly marked one: comp and preview keep the full mark.
    expect(renditionForFile('grid.jpg')).toBe(GRID_RENDITION);
    expect(GRID_RENDITION.lightMark).toBe(true);
    expect(Object.values(DISPLAY_SIZES).some((rendition) => rendition.lightMark)).toBe(false);
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
