/**
 * `npm run bench -- builtin-quality [--pictures <folder>]`: the built-in generation engine's
 * quality on a generated test set with known answers, beside naive and classical references
 * measured in the same run, and its speed at photograph sizes. With --pictures, writes
 * before/after pictures of every case (and the few small ones the docs show, with --docs).
 * --queued-only runs only the 50 + 50 operations queued at once; --speed-only only the speed table.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { BuiltinEngine } from '../src/generation/engines/builtin/builtin-engine.js';
import { decodeRgb, encodePng, maskRaster, type Raster } from '../src/generation/engines/builtin/raster.js';
import {
  alphaError,
  cutOutCases,
  demoCaptionCases,
  demoPicture,
  detail,
  edgeRepeat,
  extendCases,
  fringeError,
  hardCutOutCases,
  holeCases,
  intersectionOverUnion,
  largeHoleCases,
  marginMask,
  meanAbsoluteError,
  meanColourFill,
  patternExtendCases,
  patternHoleCases,
  seamRatio,
  teleaFill,
  transparentHoleCases,
  type HoleCase,
} from './fixtures/builtin-quality-set.js';
import type { EngineImage } from '../src/generation/engines/engine.js';
import { table } from './harness.js';
import { size, SMOKE } from './sizes.js';

const CUT_OUTS = size('BENCH_CUT_OUTS', 20, 2);
const HOLES = size('BENCH_HOLES', 10, 1);
const EXTENDS = size('BENCH_EXTENDS', 10, 1);
const CAPTIONS = size('BENCH_CAPTIONS', 5, 1);
/** Background removals and object removals queued at once on one engine (the 50 and 50). */
const QUEUED = size('BENCH_QUEUED', 50, 1);
/** The hard cases' counts: holes beyond the working size, wide extends, transparent sources, checkerboard cell sizes. */
const LARGE_HOLES = size('BENCH_LARGE_HOLES', 4, 1);
const WIDE_EXTENDS = size('BENCH_WIDE_EXTENDS', 3, 1);
const TRANSPARENT_HOLES = size('BENCH_TRANSPARENT_HOLES', 6, 1);
const PATTERN_CELLS: readonly number[] = SMOKE ? [16] : [16, 24, 32, 40];
/** The speed table's picture sizes: photograph sizes, or one small picture in a smoke run. */
const SPEED_SIZES: ReadonlyArray<readonly [number, number]> = SMOKE ? [[320, 213]] : [[1024, 683], [2048, 1365]];

const engine = new BuiltinEngine();

async function png(raster: Raster): Promise<EngineImage> {
  return { data: await encodePng(raster), mediaType: 'image/png' };
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const fixed = (value: number, digits = 2) => value.toFixed(digits);
const cellRange = () => (PATTERN_CELLS.length === 1 ? String(PATTERN_CELLS[0]) : `${PATTERN_CELLS[0]}–${PATTERN_CELLS.at(-1)}`);
const range = (values: readonly number[], digits = 2) => `${fixed(Math.min(...values), digits)}–${fixed(Math.max(...values), digits)}`;

/** Pixels of `picture` over a grey checkerboard, as image editors show transparency. */
async function overCheckerboard(cutOut: Buffer): Promise<Buffer> {
  const { width = 0, height = 0 } = await sharp(cutOut).metadata();
  const board = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) board.fill(((x >> 3) + (y >> 3)) % 2 ? 204 : 245, (y * width + x) * 3, (y * width + x) * 3 + 3);
  }
  return sharp(board, { raw: { width, height, channels: 3 } }).composite([{ input: cutOut }]).png().toBuffer();
}

/** Pictures side by side, `height` tall, as a JPEG small enough for the docs. */
async function sideBySide(pictures: readonly Buffer[], height: number): Promise<Buffer> {
  const scaled = await Promise.all(pictures.map((picture) => sharp(picture).resize({ height }).png().toBuffer({ resolveWithObject: true })));
  const gap = 6;
  const width = scaled.reduce((sum, { info }) => sum + info.width, 0) + gap * (scaled.length - 1);
  let left = 0;
  const layers = scaled.map(({ data, info }) => {
    const layer = { input: data, left, top: 0 };
    left += info.width + gap;
    return layer;
  });
  return sharp({ create: { width, height, channels: 3, background: '#ffffff' } }).composite(layers).jpeg({ quality: 80, mozjpeg: true }).toBuffer();
}

export async function builtinQualityBenchmark(): Promise<void> {
  if (process.argv.includes('--queued-only')) return queuedAtOnce();
  if (process.argv.includes('--speed-only')) {
    await speedTable(undefined);
    return engine.close();
  }
  const flag = process.argv.indexOf('--pictures');
  const pictures = flag > 0 ? path.resolve(process.argv[flag + 1] ?? fs.mkdtempSync(path.join(os.tmpdir(), 'builtin-quality-'))) : undefined;
  const docs = process.argv.includes('--docs') ? path.resolve('docs/pictures') : undefined;
  if (pictures) fs.mkdirSync(pictures, { recursive: true });
  if (docs) fs.mkdirSync(docs, { recursive: true });
  const save = async (name: string, data: Buffer) => {
    if (pictures) await fs.promises.writeFile(path.join(pictures, name), data);
  };
  const rows: string[][] = [];

  // Background removal: whole subjects, subjects cut by the frame, subjects of the background's hue.
  for (const kind of ['whole', 'cut by the frame', 'close in colour'] as const) {
    const ious: number[] = [];
    const fringes: number[] = [];
    const plainFringes: number[] = [];
    const times: number[] = [];
    for (const [n, testCase] of cutOutCases(CUT_OUTS, 320, 240, 1, kind).entries()) {
      const source = await png(testCase.picture);
      const run = await timed(() => engine.run({ operation: 'remove_background', source }));
      const result = run.value.pictures[0]!.data;
      const { data: rgba } = await sharp(result).raw().toBuffer({ resolveWithObject: true });
      const alpha = new Uint8Array(testCase.subject.length);
      for (let i = 0; i < alpha.length; i++) alpha[i] = rgba[i * 4 + 3]!;
      ious.push(intersectionOverUnion(alpha, testCase.subject, 128));
      fringes.push(fringeError(rgba, testCase));
      const sourceColours = Uint8Array.from(rgba);
      for (let i = 0; i < alpha.length; i++) sourceColours.set(testCase.picture.data.subarray(i * 3, i * 3 + 3), i * 4);
      plainFringes.push(fringeError(sourceColours, testCase));
      times.push(run.ms);
      const prefix = `cut-out-${kind.replaceAll(' ', '-')}-${n + 1}`;
      await save(`${prefix}-before.png`, source.data);
      await save(`${prefix}-after.png`, await overCheckerboard(result));
      if (docs && n === 1) {
        const name = { whole: 'remove-background.jpg', 'cut by the frame': 'remove-background-cut.jpg', 'close in colour': 'remove-background-close.jpg' }[kind];
        await fs.promises.writeFile(path.join(docs, name), await sideBySide([source.data, await overCheckerboard(result)], 200));
      }
    }
    rows.push([`background removal, ${CUT_OUTS} subjects ${kind === 'whole' ? 'whole' : kind} (320×240)`, 'IoU with the true mask', `${fixed(mean(ious), 3)} (${range(ious, 3)})`, 'target ≥ 0.90', `${fixed(mean(times), 0)} ms`]);
    rows.push(['', 'edge on grey: mean abs. error (0–255)', `${fixed(mean(fringes))} (${range(fringes)})`, `source colours kept ${fixed(mean(plainFringes))}`, '']);
  }

  // Object removal, on generated textures and on demo pictures' captions.
  const fillRows = async (label: string, cases: readonly HoleCase[], prefix: string) => {
    const errors: number[] = [];
    const naive: number[] = [];
    const telea: number[] = [];
    const details: number[] = [];
    const teleaDetails: number[] = [];
    const times: number[] = [];
    for (const [n, testCase] of cases.entries()) {
      const source = await png(testCase.picture);
      const mask = await png(maskRaster(testCase.mask, testCase.picture.width, testCase.picture.height));
      const run = await timed(() => engine.run({ operation: 'remove_object', source, mask, seed: 0, count: 1 }));
      const filled = await decodeRgb(run.value.pictures[0]!.data);
      const diffused = await teleaFill(testCase.picture, testCase.mask);
      const truthDetail = detail(testCase.truth, testCase.mask);
      errors.push(meanAbsoluteError(filled, testCase.truth, testCase.mask));
      naive.push(meanAbsoluteError(meanColourFill(testCase.picture, testCase.mask), testCase.truth, testCase.mask));
      telea.push(meanAbsoluteError(diffused, testCase.truth, testCase.mask));
      details.push(detail(filled, testCase.mask) / truthDetail);
      teleaDetails.push(detail(diffused, testCase.mask) / truthDetail);
      times.push(run.ms);
      await save(`${prefix}-${n + 1}-before.png`, source.data);
      await save(`${prefix}-${n + 1}-after.png`, run.value.pictures[0]!.data);
      if (docs && n === 0) {
        const name = prefix === 'caption' ? 'remove-object-caption.jpg' : 'remove-object.jpg';
        let before = source.data;
        let after = run.value.pictures[0]!.data;
        if (prefix === 'caption') {
          // The caption is small: show the corner it sits in, enlarged.
          const corner = { left: 0, top: testCase.picture.height - 80, width: 320, height: 80 };
          before = await sharp(before).extract(corner).png().toBuffer();
          after = await sharp(after).extract(corner).png().toBuffer();
        }
        await fs.promises.writeFile(path.join(docs, name), await sideBySide([before, after], prefix === 'caption' ? 120 : 240));
      }
    }
    rows.push([label, 'mean abs. error in the hole (0–255)', `${fixed(mean(errors), 1)} (${range(errors, 1)})`, `mean colour ${fixed(mean(naive), 1)}, Telea ${fixed(mean(telea), 1)}`, `${fixed(mean(times), 0)} ms`]);
    rows.push(['', 'detail in the hole / truth’s', `${fixed(mean(details))} (${range(details)})`, `mean colour 0.00, Telea ${fixed(mean(teleaDetails))}`, '']);
  };
  await fillRows(`object removal, ${HOLES} objects on 5 textures (256×256)`, holeCases(HOLES, 256, 256), 'object');
  await fillRows(`object removal, ${CAPTIONS} demo pictures' captions (640×427)`, await demoCaptionCases(CAPTIONS), 'caption');

  // Extend.
  const seams: number[] = [];
  const truthSeams: number[] = [];
  const repeatSeams: number[] = [];
  const textures: number[] = [];
  const extendTimes: number[] = [];
  for (const [n, testCase] of extendCases(EXTENDS, 192, 160, 32).entries()) {
    const source = await png(testCase.picture);
    const run = await timed(() => engine.run({ operation: 'extend', source, margins: testCase.margins, seed: 1, count: 1 }));
    const extended = await decodeRgb(run.value.pictures[0]!.data);
    const { width, height } = testCase.picture;
    const margins = marginMask(extended.width, extended.height, testCase.margins, width, height);
    seams.push(seamRatio(extended, testCase.margins, width, height));
    truthSeams.push(seamRatio(testCase.truth, testCase.margins, width, height));
    repeatSeams.push(detail(edgeRepeat(testCase.picture, testCase.margins), margins) / detail(testCase.truth, margins));
    textures.push(detail(extended, margins) / detail(testCase.truth, margins));
    extendTimes.push(run.ms);
    await save(`extend-${n + 1}-before.png`, source.data);
    await save(`extend-${n + 1}-after.png`, run.value.pictures[0]!.data);
  }
  rows.push([`extend, ${EXTENDS} textures (192×160, 32 px each side)`, 'seam: step across the join / step inside', `${fixed(mean(seams))} (${range(seams)})`, `the true picture ${fixed(mean(truthSeams))}`, `${fixed(mean(extendTimes), 0)} ms`]);
  rows.push(['', 'detail in the margins / truth’s', `${fixed(mean(textures))} (${range(textures)})`, `edge repeat ${fixed(mean(repeatSeams))}`, '']);

  await hardCaseRows(rows, save, docs);

  process.stdout.write(`\nBuilt-in engine quality (generated set; references measured in the same run)\n\n`);
  process.stdout.write(`${table(['set', 'measure', 'engine: mean (range)', 'reference', 'time each'], rows)}\n`);

  await speedTable(docs);
  // The queued run measures its own engine's memory: this one's thread goes first.
  await engine.close();
  if (QUEUED > 0) await queuedAtOnce();
  if (pictures) process.stdout.write(`\nBefore/after pictures of every case: ${pictures}\n`);
  if (docs) process.stdout.write(`Docs pictures: ${docs}\n`);
}

/** Speed at photograph sizes, on demo pictures, one call at a time. */
async function speedTable(docs: string | undefined): Promise<void> {
  const speedRows: string[][] = [];
  for (const [width, height] of SPEED_SIZES) {
    const picture = await demoPicture(0, width, height);
    const source = await png(picture);
    const cut = await timed(() => engine.run({ operation: 'remove_background', source }));
    const hole = new Uint8Array(width * height);
    const box = { left: Math.round(width * 0.4), top: Math.round(height * 0.35), width: Math.round(width * 0.12), height: Math.round(height * 0.18) };
    for (let y = box.top; y < box.top + box.height; y++) hole.fill(1, y * width + box.left, y * width + box.left + box.width);
    const mask: EngineImage = { data: await encodePng(maskRaster(hole, width, height)), mediaType: 'image/png' };
    const removal = await timed(() => engine.run({ operation: 'remove_object', source, mask, seed: 0, count: 1 }));
    // A hole five times the fill's working size: filled at a reduced scale and carried up to full size.
    const large = { left: Math.round(width * 0.35), top: Math.round(height * 0.3), width: Math.round(width * 0.3), height: Math.round(height * 0.37) };
    const largeHole = new Uint8Array(width * height);
    for (let y = large.top; y < large.top + large.height; y++) largeHole.fill(1, y * width + large.left, y * width + large.left + large.width);
    const largeMask: EngineImage = { data: await encodePng(maskRaster(largeHole, width, height)), mediaType: 'image/png' };
    const largeRemoval = await timed(() => engine.run({ operation: 'remove_object', source, mask: largeMask, seed: 0, count: 1 }));
    const margin = Math.round(width / 8);
    const extension = await timed(() => engine.run({ operation: 'extend', source, margins: { left: margin, right: margin, top: 0, bottom: 0 }, seed: 1, count: 1 }));
    const upscale = await timed(() => engine.run({ operation: 'upscale', source, longestSide: width * 2 }));
    speedRows.push([`${width}×${height}`, `${fixed(cut.ms, 0)} ms`, `${fixed(removal.ms, 0)} ms (${box.width}×${box.height} hole)`, `${fixed(largeRemoval.ms, 0)} ms (${large.width}×${large.height} hole)`, `${fixed(extension.ms, 0)} ms (+${margin} px left and right)`, `${fixed(upscale.ms, 0)} ms (to ${width * 2})`]);
    if (docs && width === 1024) {
      const extended = extension.value.pictures[0]!.data;
      await fs.promises.writeFile(path.join(docs, 'extend.jpg'), await sideBySide([source.data, extended], 200));
    }
  }
  process.stdout.write(`\nSpeed on a demo picture (one call at a time, this machine)\n\n`);
  process.stdout.write(`${table(['size', 'remove background', 'remove object', 'remove object (large)', 'extend', 'upscale ×2'], speedRows)}\n`);
}

/**
 * The hard cases: photo-like cut-outs (hair, a cast shadow, gravel), regular patterns with cells
 * larger than a patch, holes and margins beyond the fill's working size, transparent sources.
 */
async function hardCaseRows(rows: string[][], save: (name: string, data: Buffer) => Promise<void>, docs: string | undefined): Promise<void> {
  const alphaOf = async (data: Buffer) => {
    const { data: rgba } = await sharp(data).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    return { rgba, alpha: Uint8Array.from({ length: rgba.length / 4 }, (_, i) => rgba[i * 4 + 3]!) };
  };
  for (const kind of ['hair', 'cast shadow', 'textured ground'] as const) {
    const ious: number[] = [];
    const errors: number[] = [];
    const keptErrors: number[] = [];
    const times: number[] = [];
    for (const [n, testCase] of hardCutOutCases(Math.ceil(CUT_OUTS / 2), 320, 240, 6, [kind]).entries()) {
      const source = await png(testCase.picture);
      const run = await timed(() => engine.run({ operation: 'remove_background', source }));
      const { alpha } = await alphaOf(run.value.pictures[0]!.data);
      ious.push(intersectionOverUnion(alpha, testCase.subject, 128));
      errors.push(alphaError(alpha, testCase.coverage, testCase.hard));
      keptErrors.push(alphaError(new Uint8Array(alpha.length).fill(255), testCase.coverage, testCase.hard));
      times.push(run.ms);
      const prefix = `cut-out-${kind.replaceAll(' ', '-')}-${n + 1}`;
      await save(`${prefix}-before.png`, source.data);
      await save(`${prefix}-after.png`, await overCheckerboard(run.value.pictures[0]!.data));
      if (docs && n === 0 && kind !== 'textured ground') {
        const name = kind === 'hair' ? 'remove-background-hair.jpg' : 'remove-background-shadow.jpg';
        await fs.promises.writeFile(path.join(docs, name), await sideBySide([source.data, await overCheckerboard(run.value.pictures[0]!.data)], 200));
      }
    }
    const where = { hair: 'around the strands', 'cast shadow': 'in the shadow (background)', 'textured ground': 'at the feet, on the gravel' }[kind];
    rows.push([`background removal, ${Math.ceil(CUT_OUTS / 2)} subjects with ${kind} (320×240)`, 'IoU with the true mask', `${fixed(mean(ious), 3)} (${range(ious, 3)})`, 'target ≥ 0.90', `${fixed(mean(times), 0)} ms`]);
    rows.push(['', `alpha error ${where} (0–1)`, `${fixed(mean(errors), 3)} (${range(errors, 3)})`, `all kept ${fixed(mean(keptErrors), 3)}`, '']);
  }

  // Regular patterns with cells larger than a patch: the truth is known, so the error says whether the cells stay in step.
  const patternErrors: number[] = [];
  const patternNaive: number[] = [];
  for (const [n, testCase] of patternHoleCases(PATTERN_CELLS).entries()) {
    const { width, height } = testCase.picture;
    const source = await png(testCase.picture);
    const run = await engine.run({ operation: 'remove_object', source, mask: await png(maskRaster(testCase.mask, width, height)), seed: 0, count: 1 });
    patternErrors.push(meanAbsoluteError(await decodeRgb(run.pictures[0]!.data), testCase.truth, testCase.mask));
    patternNaive.push(meanAbsoluteError(meanColourFill(testCase.picture, testCase.mask), testCase.truth, testCase.mask));
    await save(`pattern-hole-${n + 1}-before.png`, source.data);
    await save(`pattern-hole-${n + 1}-after.png`, run.pictures[0]!.data);
  }
  rows.push([`object removal, checkerboards of ${cellRange()} px cells, 64×60 hole`, 'mean abs. error in the hole (0–255)', `${fixed(mean(patternErrors), 1)} (${range(patternErrors, 1)})`, `mean colour ${fixed(mean(patternNaive), 1)}; the grain alone 8.0`, '']);
  const extendErrors: number[] = [];
  const repeatErrors: number[] = [];
  for (const [n, testCase] of patternExtendCases(PATTERN_CELLS).entries()) {
    const { width, height } = testCase.picture;
    const source = await png(testCase.picture);
    const run = await engine.run({ operation: 'extend', source, margins: testCase.margins, seed: 3, count: 1 });
    const extended = await decodeRgb(run.pictures[0]!.data);
    const margins = marginMask(extended.width, extended.height, testCase.margins, width, height);
    extendErrors.push(meanAbsoluteError(extended, testCase.truth, margins));
    repeatErrors.push(meanAbsoluteError(edgeRepeat(testCase.picture, testCase.margins), testCase.truth, margins));
    await save(`pattern-extend-${n + 1}-before.png`, source.data);
    await save(`pattern-extend-${n + 1}-after.png`, run.pictures[0]!.data);
    if (docs && n === 2) await fs.promises.writeFile(path.join(docs, 'extend-pattern.jpg'), await sideBySide([source.data, run.pictures[0]!.data], 200));
  }
  rows.push([`extend, checkerboards of ${cellRange()} px cells (192×160, 32 px each side)`, 'mean abs. error in the margins (0–255)', `${fixed(mean(extendErrors), 1)} (${range(extendErrors, 1)})`, `edge repeat ${fixed(mean(repeatErrors), 1)}; the grain alone 8.0`, '']);

  // Beyond the working size: filled at a reduced scale and carried up to full size.
  const largeErrors: number[] = [];
  const largeNaive: number[] = [];
  const largeTelea: number[] = [];
  const largeDetails: number[] = [];
  const largeTimes: number[] = [];
  for (const [n, testCase] of largeHoleCases(LARGE_HOLES).entries()) {
    const { width, height } = testCase.picture;
    const source = await png(testCase.picture);
    const mask = await png(maskRaster(testCase.mask, width, height));
    const run = await timed(() => engine.run({ operation: 'remove_object', source, mask, seed: 0, count: 1 }));
    const filled = await decodeRgb(run.value.pictures[0]!.data);
    largeErrors.push(meanAbsoluteError(filled, testCase.truth, testCase.mask));
    largeNaive.push(meanAbsoluteError(meanColourFill(testCase.picture, testCase.mask), testCase.truth, testCase.mask));
    largeTelea.push(meanAbsoluteError(await teleaFill(testCase.picture, testCase.mask), testCase.truth, testCase.mask));
    largeDetails.push(detail(filled, testCase.mask) / detail(testCase.truth, testCase.mask));
    largeTimes.push(run.ms);
    await save(`large-hole-${n + 1}-before.png`, source.data);
    await save(`large-hole-${n + 1}-after.png`, run.value.pictures[0]!.data);
    if (docs && n === 2) await fs.promises.writeFile(path.join(docs, 'remove-object-large.jpg'), await sideBySide([source.data, run.value.pictures[0]!.data], 240));
  }
  rows.push([`object removal, ${LARGE_HOLES} holes of 97,000 px (800×600)`, 'mean abs. error in the hole (0–255)', `${fixed(mean(largeErrors), 1)} (${range(largeErrors, 1)})`, `mean colour ${fixed(mean(largeNaive), 1)}, Telea ${fixed(mean(largeTelea), 1)}`, `${fixed(mean(largeTimes), 0)} ms`]);
  rows.push(['', 'detail in the hole / truth’s', `${fixed(mean(largeDetails))} (${range(largeDetails)})`, '', '']);
  const wideDetails: number[] = [];
  const wideRepeat: number[] = [];
  const wideTimes: number[] = [];
  for (const testCase of extendCases(WIDE_EXTENDS, 480, 360, 120, 33)) {
    const source = await png(testCase.picture);
    const run = await timed(() => engine.run({ operation: 'extend', source, margins: testCase.margins, seed: 1, count: 1 }));
    const extended = await decodeRgb(run.value.pictures[0]!.data);
    const margins = marginMask(extended.width, extended.height, testCase.margins, 480, 360);
    wideDetails.push(detail(extended, margins) / detail(testCase.truth, margins));
    wideRepeat.push(detail(edgeRepeat(testCase.picture, testCase.margins), margins) / detail(testCase.truth, margins));
    wideTimes.push(run.ms);
  }
  rows.push([`extend, ${WIDE_EXTENDS} textures (480×360, 120 px each side: 259,200 new px)`, 'detail in the margins / truth’s', `${fixed(mean(wideDetails))} (${range(wideDetails)})`, `edge repeat ${fixed(mean(wideRepeat))}`, `${fixed(mean(wideTimes), 0)} ms`]);

  // Transparent sources: the hole's alpha against the truth's.
  const transparentErrors: number[] = [];
  const flattenedErrors: number[] = [];
  for (const [n, testCase] of transparentHoleCases(TRANSPARENT_HOLES).entries()) {
    const { width, height } = testCase.picture;
    const source = await png(testCase.picture);
    const run = await engine.run({ operation: 'remove_object', source, mask: await png(maskRaster(testCase.mask, width, height)), seed: 0, count: 1 });
    const { alpha } = await alphaOf(run.pictures[0]!.data);
    let error = 0;
    let flattened = 0;
    let count = 0;
    for (let i = 0; i < testCase.mask.length; i++) {
      if (!testCase.mask[i]) continue;
      error += Math.abs(alpha[i]! - testCase.truth.data[i * 4 + 3]!);
      flattened += 255 - testCase.truth.data[i * 4 + 3]!;
      count++;
    }
    transparentErrors.push(error / count);
    flattenedErrors.push(flattened / count);
    await save(`transparent-${n + 1}-before.png`, await overCheckerboard(source.data));
    await save(`transparent-${n + 1}-after.png`, await overCheckerboard(run.pictures[0]!.data));
    if (docs && n === 0) await fs.promises.writeFile(path.join(docs, 'remove-object-transparent.jpg'), await sideBySide([await overCheckerboard(source.data), await overCheckerboard(run.pictures[0]!.data)], 200));
  }
  rows.push([`object removal, ${TRANSPARENT_HOLES} transparent cut-outs, a disc across the outline (256×256)`, 'alpha error in the hole (0–255)', `${fixed(mean(transparentErrors), 1)} (${range(transparentErrors, 1)})`, `flattened (opaque) ${fixed(mean(flattenedErrors), 1)}`, '']);
}

/**
 * QUEUED background removals and QUEUED object removals (640×480) handed to one engine at once,
 * as a job queue would: throughput, turnaround from hand-over to answer, and the process's peak
 * memory (the worker thread's included). The engine called directly: the reference beside which
 * the generation module's queue is measured.
 */
async function queuedAtOnce(): Promise<void> {
  const queued = new BuiltinEngine();
  const cutOuts = cutOutCases(QUEUED, 640, 480, 21);
  const holes = holeCases(QUEUED, 640, 480, 22);
  const requests = [
    ...(await Promise.all(cutOuts.map(async (testCase) => ({ operation: 'remove_background' as const, source: await png(testCase.picture) })))),
    ...(await Promise.all(
      holes.map(async (testCase) => ({ operation: 'remove_object' as const, source: await png(testCase.picture), mask: await png(maskRaster(testCase.mask, 640, 480)), seed: 0, count: 1 })),
    )),
  ];
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  const started = performance.now();
  const turnarounds = await Promise.all(
    requests.map(async (request) => {
      await queued.run(request);
      return { operation: request.operation, ms: performance.now() - started };
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  await queued.close();
  const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!;
  const rows = (['remove_background', 'remove_object', undefined] as const).map((operation) => {
    const times = turnarounds.filter((turnaround) => operation === undefined || turnaround.operation === operation).map((turnaround) => turnaround.ms);
    return [operation ?? 'all', String(times.length), `${fixed(times.length / seconds)}/s`, `${fixed(percentile(times, 50) / 1000, 1)} s`, `${fixed(percentile(times, 95) / 1000, 1)} s`];
  });
  process.stdout.write(`\n${QUEUED} background removals and ${QUEUED} object removals (640×480) queued at once on the engine, one at a time on its worker thread: ${fixed(seconds, 1)} s; the process's peak memory ${fixed(peak / 2 ** 20, 0)} MB, ${fixed(before / 2 ** 20, 0)} MB before the run (with the ${2 * QUEUED} pictures and masks held)\n\n`);
  process.stdout.write(`${table(['operation', 'done', 'throughput (whole run)', 'p50 turnaround', 'p95 turnaround'], rows)}\n`);
}
