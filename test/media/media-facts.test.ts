import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import {
  colourCell,
  colourCellsNear,
  computeColourFacts,
  computeMediaFacts,
  dominantColourCells,
  MEDIA_FACTS_VERSION,
  nudityScore,
} from '../../src/media/media-facts.js';
import { NudityClassifier, NudityClassifierError } from '../../src/media/nudity-classifier.js';
import { ConfigError, mediaFactsConfig } from '../../src/config/config.js';

/** A picture of vertical bands, each of a colour and a width in pixels. */
async function bands(parts: ReadonlyArray<readonly [colour: string, width: number]>, height = 120): Promise<Buffer> {
  const width = parts.reduce((sum, [, w]) => sum + w, 0);
  let left = 0;
  const composites = [];
  for (const [colour, w] of parts) {
    composites.push({ input: { create: { width: w, height, channels: 3 as const, background: colour } }, left, top: 0 });
    left += w;
  }
  return sharp({ create: { width, height, channels: 3, background: '#000000' } }).composite(composites).jpeg({ quality: 95 }).toBuffer();
}

describe('colour facts', () => {
  it('finds the dominant colours with their shares, largest first, and leaves out a colour under 5 %', async () => {
    const facts = await computeColourFacts(await bands([['#d01010', 600], ['#1030c0', 360], ['#10a010', 40]]));
    expect(facts.color_type).toBe('color');
    expect(facts.colors.map((c) => c.hex)).toHaveLength(2);
    const [first, second] = facts.colors;
    expect(first!.share).toBeCloseTo(0.6, 1);
    expect(second!.share).toBeCloseTo(0.36, 1);
    // JPEG moves a colour by a few levels, never out of its cell of the grid.
    expect(colourCell(...rgb(first!.hex))).toBe(colourCell(0xd0, 0x10, 0x10));
    expect(colourCell(...rgb(second!.hex))).toBe(colourCell(0x10, 0x30, 0xc0));
  });

  it('detects black and white: greys alone are black_and_white, a little colour makes it color', async () => {
    const grey = await computeColourFacts(await bands([['#202020', 300], ['#909090', 300], ['#f0f0f0', 300]]));
    expect(grey.color_type).toBe('black_and_white');
    const greyscalePhoto = await sharp(await bands([['#d01010', 300], ['#1030c0', 300]])).grayscale().jpeg().toBuffer();
    expect((await computeColourFacts(greyscalePhoto)).color_type).toBe('black_and_white');
    const touchOfRed = await computeColourFacts(await bands([['#808080', 880], ['#e01010', 120]]));
    expect(touchOfRed.color_type).toBe('color');
  });

  it('matches a colour asked for with the cells near it: navy finds navy, not black, royal blue or red', () => {
    const near = new Set(colourCellsNear('#002244'));
    expect(near.has(colourCell(0x00, 0x22, 0x44))).toBe(true);
    expect(near.has(colourCell(0x00, 0x33, 0x66))).toBe(true);
    expect(near.has(colourCell(0x00, 0x00, 0x00))).toBe(false);
    expect(near.has(colourCell(0x41, 0x69, 0xe1))).toBe(false);
    expect(near.has(colourCell(0xff, 0x00, 0x00))).toBe(false);
    expect(colourCellsNear('not a colour')).toEqual([]);
    expect(dominantColourCells([{ hex: '#002244', share: 1 }])).toEqual([colourCell(0x00, 0x22, 0x44)]);
  });
});

describe('nudity classifier (nsfwjs MobileNetV2 on the wasm backend, in a worker thread)', () => {
  const classifier = new NudityClassifier();
  afterAll(() => classifier.close());

  it('scores a neutral picture: five probabilities that sum to 1, the same each time, far below the default threshold', async () => {
    const picture = await bands([['#3a6ea5', 400], ['#c8b27a', 240]]);
    const scores = await classifier.classify(picture);
    expect(Object.keys(scores).sort()).toEqual(['drawing', 'hentai', 'neutral', 'porn', 'sexy']);
    for (const value of Object.values(scores)) expect(value).toBeGreaterThanOrEqual(0);
    expect(Object.values(scores).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 3);
    expect(nudityScore(scores)).toBeLessThan(0.2);
    expect(await classifier.classify(picture)).toEqual(scores);
  }, 60_000);

  it('refuses bytes that are no picture with NudityClassifierError, and goes on with the next picture', async () => {
    await expect(classifier.classify(Buffer.from('no picture here'))).rejects.toBeInstanceOf(NudityClassifierError);
    const facts = await computeMediaFacts(await bands([['#ffffff', 200]]), classifier);
    expect(facts.version).toBe(MEDIA_FACTS_VERSION);
    expect(facts.nudity).not.toBeNull();
  }, 60_000);

  it('runs pictures given at once one after another, each answered with its own scores', async () => {
    const pictures = await Promise.all(['#ff0000', '#00ff00', '#0000ff'].map((colour) => bands([[colour, 224]])));
    const together = await Promise.all(pictures.map((picture) => classifier.classify(picture)));
    const oneByOne = [];
    for (const picture of pictures) oneByOne.push(await classifier.classify(picture));
    expect(together).toEqual(oneByOne);
  }, 60_000);
});

describe('media fact settings', () => {
  it('classify by default with the threshold 0.5, and take a threshold from 0 to 1', () => {
    expect(mediaFactsConfig({})).toEqual({ classifyNudity: true, nudityThreshold: 0.5 });
    expect(mediaFactsConfig({ STOCKROOM_NUDITY_CLASSIFIER: 'off', STOCKROOM_NUDITY_THRESHOLD: '0.85' })).toEqual({ classifyNudity: false, nudityThreshold: 0.85 });
    expect(mediaFactsConfig({ STOCKROOM_NUDITY_THRESHOLD: '1' }).nudityThreshold).toBe(1);
    expect(mediaFactsConfig({ STOCKROOM_NUDITY_THRESHOLD: '.2' }).nudityThreshold).toBe(0.2);
  });

  it.each(['1.5', '-0.1', 'half', '1e-3', 'Infinity'])('refuse the threshold %s, naming the setting', (value) => {
    expect(() => mediaFactsConfig({ STOCKROOM_NUDITY_THRESHOLD: value })).toThrow(ConfigError);
    expect(() => mediaFactsConfig({ STOCKROOM_NUDITY_THRESHOLD: value })).toThrow(/STOCKROOM_NUDITY_THRESHOLD must be a number from 0 to 1/);
  });
});

function rgb(hex: string): [number, number, number] {
  const value = Number.parseInt(hex.slice(1), 16);
  return [(value >> 16) & 255, (value >> 8) & 255, value & 255];
}
