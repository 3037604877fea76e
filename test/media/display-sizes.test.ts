import { describe, expect, it } from 'vitest';
import {
  DISPLAY_SIZE_NAMES,
  DISPLAY_SIZES,
  isDisplaySizeName,
  renditionDimensions,
  renditionForFile,
} from '../../src/media/display-sizes.js';

describe('display sizes', () => {
  it('lists the display-size names in the documented order', () => {
    expect(DISPLAY_SIZE_NAMES).toEqual([
      'thumb',
      'preview',
      'comp',
      'mid_res_comp',
      'high_res_comp',
      'comp_webp',
      'mid_res_comp_webp',
      'high_res_comp_webp',
    ]);
    for (const name of DISPLAY_SIZE_NAMES) expect(isDisplaySizeName(name)).toBe(true);
    expect(isDisplaySizeName('toString')).toBe(false);
    expect(isDisplaySizeName('x-large')).toBe(false);
  });

  it('preview is the same rendition file as comp', () => {
    expect(DISPLAY_SIZES.preview).toBe(DISPLAY_SIZES.comp);
    expect(DISPLAY_SIZES.comp.file).toBe('comp.jpg');
    expect(renditionForFile('comp.jpg')).toBe(DISPLAY_SIZES.comp);
    expect(renditionForFile('preview.jpg')).toBeUndefined();
  });

  it('the table holds each rendition size, format and watermark', () => {
    const table = DISPLAY_SIZE_NAMES.map((name) => {
      const { file, longEdge, format, watermarked } = DISPLAY_SIZES[name];
      return [name, file, longEdge, format, watermarked];
    });
    expect(table).toEqual([
      ['thumb', 'thumb.jpg', 170, 'jpeg', false],
      ['preview', 'comp.jpg', 612, 'jpeg', true],
      ['comp', 'comp.jpg', 612, 'jpeg', true],
      ['mid_res_comp', 'mid_res_comp.jpg', 1024, 'jpeg', true],
      ['high_res_comp', 'high_res_comp.jpg', 2048, 'jpeg', true],
      ['comp_webp', 'comp.webp', 612, 'webp', true],
      ['mid_res_comp_webp', 'mid_res_comp.webp', 1024, 'webp', true],
      ['high_res_comp_webp', 'high_res_comp.webp', 2048, 'webp', true],
    ]);
  });

  it('renditionDimensions scales the long edge down and keeps the aspect ratio', () => {
    expect(renditionDimensions('comp', 4000, 3000)).toEqual({ width: 612, height: 459 });
    expect(renditionDimensions('comp', 3000, 4000)).toEqual({ width: 459, height: 612 });
    expect(renditionDimensions('thumb', 1600, 1067)).toEqual({ width: 170, height: 113 });
    expect(renditionDimensions('high_res_comp_webp', 5000, 5000)).toEqual({ width: 2048, height: 2048 });
  });

  it('renditionDimensions never upscales beyond the original', () => {
    expect(renditionDimensions('high_res_comp', 800, 600)).toEqual({ width: 800, height: 600 });
    expect(renditionDimensions('comp', 612, 300)).toEqual({ width: 612, height: 300 });
    expect(renditionDimensions('thumb', 50, 20)).toEqual({ width: 50, height: 20 });
  });

  it('renditionDimensions gives whole pixels of at least 1', () => {
    expect(renditionDimensions('thumb', 10_000, 10)).toEqual({ width: 170, height: 1 });
    expect(renditionDimensions('thumb', 3, 10_000)).toEqual({ width: 1, height: 170 });
    expect(() => renditionDimensions('thumb', 0, 10)).toThrow(RangeError);
  });
});
