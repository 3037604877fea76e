import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { demoImageSvg, drawDemoImage } from '../../src/media/draw-demo-image.js';

describe('drawDemoImage', () => {
  it('is deterministic: the same request gives the same bytes', async () => {
    const request = { seed: 42, width: 800, height: 533, title: 'Harbour at dusk' };
    const first = await drawDemoImage(request);
    const second = await drawDemoImage({ ...request });
    expect(first.equals(second)).toBe(true);
  });

  it('different seeds give different pictures', async () => {
    const pictures = await Promise.all(
      [1, 2, 3].map((seed) => drawDemoImage({ seed, width: 320, height: 240, title: 'Same title' })),
    );
    expect(new Set(pictures.map((picture) => picture.toString('base64'))).size).toBe(3);
  });

  it('produces a JPEG of exactly the requested size', async () => {
    for (const [width, height] of [
      [1600, 1067],
      [600, 900],
      [50, 50],
    ] as const) {
      const metadata = await sharp(await drawDemoImage({ seed: width, width, height, title: 'Sized' })).metadata();
      expect([metadata.format, metadata.width, metadata.height]).toEqual(['jpeg', width, height]);
    }
  });

  it('escapes the title so any text can be drawn', async () => {
    const title = `Fish & <chips> "quoted" 'single' \u0007 ünïcödé 🌅`;
    const svg = demoImageSvg({ seed: 7, width: 800, height: 600, title });
    expect(svg).toContain('Fish &amp; &lt;chips&gt; &quot;quoted&quot; &apos;single&apos;');
    expect(svg).not.toContain('<chips>');
    await expect(drawDemoImage({ seed: 7, width: 800, height: 600, title })).resolves.toBeInstanceOf(Buffer);
  });

  it('paints with a given palette of hex colours, and refuses anything else', async () => {
    const svg = demoImageSvg({ seed: 3, width: 400, height: 300, title: 'Palette', palette: ['#102030', '#F0E0D0'] });
    expect(svg).toContain('#102030');
    expect(svg).toContain('#f0e0d0');
    expect(() => demoImageSvg({ seed: 3, width: 400, height: 300, title: 'x', palette: ['red"/><script>'] })).toThrow(RangeError);
    expect(() => demoImageSvg({ seed: 3, width: 400, height: 300, title: 'x', palette: [] })).toThrow(RangeError);
  });

  it('refuses sizes that are not positive whole pixels', () => {
    expect(() => demoImageSvg({ seed: 1, width: 0, height: 10, title: 'x' })).toThrow(RangeError);
    expect(() => demoImageSvg({ seed: 1, width: 10.5, height: 10, title: 'x' })).toThrow(RangeError);
    expect(() => demoImageSvg({ seed: 1, width: 100_000, height: 10, title: 'x' })).toThrow(RangeError);
  });
});
