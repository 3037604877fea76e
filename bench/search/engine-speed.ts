/*
 * A quick measurement of the search engine alone, on the synthetic documents; not one of the
 * named benchmarks (no reference beside it, no target: `npm run bench -- search` measures the
 * engine at scale beside FTS5 and the server).
 *
 *   node --expose-gc bin/run-ts.js bench/search/engine-speed.ts [documents=1000000] [seed=1]
 *
 * Prints the bulk build time, RSS, snapshot write/load times and size, and p50/p99 latencies
 * of the query shapes the architecture targets. Queries run one at a time (the engine is
 * synchronous), each shape over a band of words so that no single posting list stays hot.
 */
import { SearchIndex } from '../../src/search/engine/search-index.js';
import type { SearchQuery } from '../../src/search/engine/search-index.js';
import { SYNTHETIC_SCHEMA, syntheticDocuments, syntheticVocabulary } from '../fixtures/synthetic-documents.js';

const count = Number(process.argv[2] ?? 1_000_000);
const seed = Number(process.argv[3] ?? 1);
const gc = (globalThis as { gc?: () => void }).gc;

const megabytes = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const milliseconds = (value: number): string => `${value.toFixed(value < 10 ? 2 : 0)} ms`;

function rss(): number {
  gc?.();
  return process.memoryUsage().rss;
}

function timed<T>(run: () => T): { value: T; wall: number; cpu: number } {
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  const value = run();
  const wall = performance.now() - start;
  const cpu = process.cpuUsage(cpuBefore);
  return { value, wall, cpu: (cpu.user + cpu.system) / 1000 };
}

console.log(`synthetic catalogue: ${count.toLocaleString('en')} documents, seed ${seed}; node ${process.version}`);
const rssBefore = rss();
const index = new SearchIndex(SYNTHETIC_SCHEMA);
// upsertMany only appends; compact() builds the posting lists (the first search would do it otherwise)
const build = timed(() => {
  index.upsertMany(syntheticDocuments(count, seed));
  index.compact();
});
const rssAfterBuild = rss();
console.log(`bulk build, upsertMany + compact (generation included): ${milliseconds(build.wall)} wall, ${milliseconds(build.cpu)} CPU`);
console.log(`RSS: ${megabytes(rssBefore)} before, ${megabytes(rssAfterBuild)} after build; typed arrays ${megabytes(index.byteSize())}`);

const words = syntheticVocabulary();
const band = (from: number, to: number, step: number): string[] => {
  const picked: string[] = [];
  for (let rank = from; rank < to; rank += step) picked.push(words[rank]!);
  return picked;
};
// ranks 2-15 are near stop words (in 25-60% of documents); 20-120 common (3-17%)
const top = band(2, 16, 1);
const common = band(20, 120, 1);
const medium = band(1_000, 3_000, 20);
const rare = band(20_000, 40_000, 200);

const shapes: Array<{ name: string; query: (i: number) => SearchQuery }> = [
  { name: 'common word', query: (i) => ({ phrase: common[i % common.length] }) },
  { name: 'medium word', query: (i) => ({ phrase: medium[i % medium.length] }) },
  { name: 'rare word', query: (i) => ({ phrase: rare[i % rare.length] }) },
  {
    name: 'two common words + 2 filters + 2 facets',
    query: (i) => ({
      phrase: `${common[i % common.length]} ${common[(i * 7 + 3) % common.length]}`,
      filters: [
        { attribute: 'license_model', anyOf: ['royaltyfree'] },
        { attribute: 'orientation', anyOf: ['horizontal', 'square'] },
      ],
      facets: [
        { attribute: 'collection_code', limit: 10 },
        { attribute: 'artist', limit: 10 },
      ],
    }),
  },
  {
    name: 'two top-16 words + 2 filters + 2 facets',
    query: (i) => ({
      phrase: `${top[i % top.length]} ${top[(i * 5 + 3) % top.length]}`,
      filters: [
        { attribute: 'license_model', anyOf: ['royaltyfree'] },
        { attribute: 'orientation', anyOf: ['horizontal', 'square'] },
      ],
      facets: [
        { attribute: 'collection_code', limit: 10 },
        { attribute: 'artist', limit: 10 },
      ],
    }),
  },
  { name: 'one top-16 word', query: (i) => ({ phrase: top[i % top.length] }) },
  { name: 'common word, page 20 (offset 570, 30)', query: (i) => ({ phrase: common[i % common.length], offset: 570, limit: 30 }) },
  { name: 'no phrase, newest, 1 filter, 1 facet', query: () => ({ sort: 'newest', filters: [{ attribute: 'asset_family', anyOf: ['editorial'] }], facets: [{ attribute: 'event_id', limit: 10 }] }) },
  { name: 'misspelled word (correction)', query: (i) => ({ phrase: `${medium[i % medium.length]}qx` }) },
];

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const ROUNDS = 400;
console.log(`\n${'query'.padEnd(42)} ${'p50'.padStart(9)} ${'p99'.padStart(9)} ${'max'.padStart(9)}  mean total`);
for (const shape of shapes) {
  for (let i = 0; i < 30; i++) index.search(shape.query(i)); // warm up
  const times: number[] = [];
  let totals = 0;
  for (let i = 0; i < ROUNDS; i++) {
    const query = shape.query(i);
    const start = performance.now();
    const result = index.search(query);
    times.push(performance.now() - start);
    totals += result.total;
  }
  times.sort((a, b) => a - b);
  console.log(
    `${shape.name.padEnd(42)} ${milliseconds(percentile(times, 50)).padStart(9)} ${milliseconds(percentile(times, 99)).padStart(9)} ${milliseconds(times[times.length - 1]!).padStart(9)}  ${Math.round(totals / ROUNDS).toLocaleString('en')}`,
  );
}

// Live updates: one document at a time, searchable at once.
const live = [...syntheticDocuments(2_000, seed + 1)].map((doc, i) => ({ ...doc, id: `live-${i}` }));
const upserts: number[] = [];
for (const doc of live) {
  const start = performance.now();
  index.upsert(doc);
  upserts.push(performance.now() - start);
}
upserts.sort((a, b) => a - b);
console.log(`\nupsert of one document: p50 ${milliseconds(percentile(upserts, 50))}, p99 ${milliseconds(percentile(upserts, 99))}`);

const reference: SearchQuery = { phrase: `${common[0]} ${medium[0]}`, facets: [{ attribute: 'artist', limit: 5 }], limit: 50 };
const snapshot = timed(() => index.toSnapshot());
console.log(`snapshot write (compaction included): ${milliseconds(snapshot.wall)}, ${megabytes(snapshot.value.length)}`);
const expected = JSON.stringify(index.search(reference));
const load = timed(() => SearchIndex.fromSnapshot(snapshot.value));
const same = JSON.stringify(load.value.search(reference)) === expected;
console.log(`snapshot load: ${milliseconds(load.wall)}; same answers after load: ${same}`);
console.log(`RSS with both indexes and the snapshot buffer: ${megabytes(rss())}`);
