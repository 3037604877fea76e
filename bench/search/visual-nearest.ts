/**
 * Timing of VisualIndex.nearest(); not one of the named benchmarks (no reference beside it, no
 * target). Run:
 *
 *   node bin/run-ts.js bench/search/visual-nearest.ts [size…]   (default 100000 1000000)
 *
 * Two kinds of signatures, neither of which needs a million images:
 *
 * - random: every part random but of the right shape and scale (soft signs, a normalised
 *   edge grid, a sparse colour histogram). Unrelated to one another, so nothing clusters
 *   and the pruning in nearest() has the least to work with: the worst case.
 * - demo-like: recombined from the real signatures of 150 demo-catalogue pictures (colour
 *   of two mixed, the layout of a third with some signs flipped, the edges of a fourth,
 *   jittered), so values are distributed as real ones are.
 */
import { drawDemoImage } from '../../src/media/draw-demo-image.js';
import { seededRandom } from '../../src/platform/seeded-random.js';
import { VisualIndex } from '../../src/search/visual/visual-index.js';
import { SIGNATURE_LENGTH, SIGNATURE_PARTS, computeVisualSignature } from '../../src/media/visual-signature.js';
import { randomSignature } from '../../test/search/visual/visual-fixtures.js';

const random = seededRandom(20240611);
const { colour, layout, edges } = SIGNATURE_PARTS;
const unit = layout.weight / layout.length;
const clamp = (value: number) => Math.max(-1, Math.min(1, value));

async function demoLikeSignatures(): Promise<() => Float32Array> {
  const pool: Float32Array[] = [];
  for (let seed = 1; seed <= 150; seed++) {
    pool.push(await computeVisualSignature(await drawDemoImage({ seed: seed * 7919, width: 240, height: 160, title: '' })));
  }
  const pick = () => pool[Math.floor(random() * pool.length)]!;
  return () => {
    const signature = new Float32Array(SIGNATURE_LENGTH);
    const [a, b, shape, detail] = [pick(), pick(), pick(), pick()];
    const mix = random();
    for (let i = colour.offset; i < colour.offset + colour.length; i++) signature[i] = mix * a[i]! + (1 - mix) * b[i]!;
    const flips = random() * 0.3;
    for (let i = layout.offset; i < layout.offset + layout.length; i++) {
      const value = shape[i]! / unit;
      signature[i] = (random() < flips ? clamp(-value + random() - 0.5) : value) * unit;
    }
    let edgeTotal = 0;
    for (let i = edges.offset; i < edges.offset + edges.length; i++) edgeTotal += signature[i] = detail[i]! * (0.5 + random());
    const scale = Math.min(edges.weight, edgeTotal) / edgeTotal;
    for (let i = edges.offset; i < edges.offset + edges.length; i++) signature[i] = signature[i]! * scale;
    return signature;
  };
}

/** A query near a stored signature: every float nudged by up to ±5 %, as re-encoding does. */
const nearCopy = (of: Float32Array) => of.map((value) => value * (1 + (random() - 0.5) * 0.1));

/**
 * Wall time and CPU time (user + system) of a run, median and worst of `repeat`. On a
 * busy machine wall time also counts the time other processes had the core; CPU time is
 * what the search itself cost.
 */
function timed(run: () => void, repeat: number): { median: number; max: number; cpu: number } {
  const times: number[] = [];
  const cpus: number[] = [];
  for (let i = 0; i < repeat; i++) {
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    run();
    times.push(performance.now() - start);
    const cpu = process.cpuUsage(cpuStart);
    cpus.push((cpu.user + cpu.system) / 1000);
  }
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  return { median: median(times), max: Math.max(...times), cpu: median(cpus) };
}

const sizes = process.argv.length > 2 ? process.argv.slice(2).map(Number) : [100_000, 1_000_000];
const kinds: Array<[string, () => Float32Array]> = [
  ['random', () => randomSignature(random)],
  ['demo-like', await demoLikeSignatures()],
];
for (const size of sizes) {
  for (const [kind, make] of kinds) {
    const index = new VisualIndex();
    const stored: Float32Array[] = [];
    const every = Math.max(1, Math.floor(size / 50));
    const loadStart = performance.now();
    for (let n = 0; n < size; n++) {
      const signature = make();
      if (n % every === 0) stored.push(signature);
      index.upsert(`img-${n}`, signature);
    }
    const loadMs = performance.now() - loadStart;
    const queries = Array.from({ length: 15 }, make);
    let q = 0;
    const next = () => queries[q++ % queries.length]!;
    index.nearest(next(), 10); // warm up
    const exclude = new Set(['img-1', 'img-2']);
    const rows: Array<[string, ReturnType<typeof timed>]> = [
      ['k=10', timed(() => void index.nearest(next(), 10), 15)],
      ['k=100', timed(() => void index.nearest(next(), 100), 15)],
      ['k=10, query near a stored one', timed(() => void index.nearest(nearCopy(stored[q++ % stored.length]!), 10), 15)],
      ['k=10, exclude + filter (half)', timed(() => void index.nearest(next(), 10, { exclude, filter: (id) => id.charCodeAt(id.length - 1) % 2 === 0 }), 15)],
    ];
    console.log(`${size.toLocaleString('en-US')} ${kind} signatures (loaded in ${(loadMs / 1000).toFixed(1)} s)`);
    for (const [label, t] of rows) {
      console.log(
        `  nearest ${label.padEnd(32)} wall median ${t.median.toFixed(1).padStart(6)} ms, max ${t.max.toFixed(1).padStart(6)} ms; CPU median ${t.cpu.toFixed(1).padStart(6)} ms`,
      );
    }
  }
}
