/*
 * Where the search index's bytes are, on the search benchmark's catalogue (the asset schema,
 * keyword ids and all, which bench/search/engine-speed.ts's documents do not have); not one
 * of the named benchmarks (no reference, no target).
 *
 *   node --expose-gc bin/run-ts.js bench/search/index-memory.ts [assets=250000] [seed=1]
 *
 * Builds the index in process from the same records as `npm run bench -- search` (through
 * assetDocument, a page of 2,000 at a time), then prints the typed arrays by structure (the
 * largest keyword columns on their own), the JavaScript heap after a full collection, RSS,
 * and p50/p99 of the search benchmark's query classes run on the index directly, plus two
 * keyword-id filters (the column's own readers).
 */
import type { AssetRecord } from '../../src/catalog/catalog.records.js';
import { IndexSearcher } from '../../src/search/engine/index-searcher.js';
import { IndexStore } from '../../src/search/engine/index-store.js';
import type { SearchQuery } from '../../src/search/engine/types.js';
import { ASSET_INDEX_SCHEMA, assetDocument } from '../../src/search/search-documents.js';
import { KEYWORD_IDS, SyntheticCatalogue } from '../fixtures/synthetic-catalogue.js';
import { recordOf } from '../fixtures/store-loader.js';
import { indexQueryOf, queryClasses } from './queries.js';

const assets = Number(process.argv[2] ?? 250_000);
const seed = Number(process.argv[3] ?? 1);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc');

const perMillion = (bytes: number): string => `${((bytes / 1024 / 1024) * (1_000_000 / assets)).toFixed(1)} MB/M`;
const megabytes = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

const catalogue = new SyntheticCatalogue(assets, seed);
gc();
const heapBefore = process.memoryUsage().heapUsed;
const store = new IndexStore(ASSET_INDEX_SCHEMA);
const buildStart = performance.now();
let page: AssetRecord[] = [];
for (const input of catalogue.assets()) {
  page.push(recordOf(input));
  if (page.length === 2000) {
    store.upsertMany(page.map(assetDocument));
    page = [];
  }
}
store.upsertMany(page.map(assetDocument));
page = [];
store.compact();
console.log(`${assets.toLocaleString('en')} assets, seed ${seed}: built in ${((performance.now() - buildStart) / 1000).toFixed(1)} s`);

const columnBytes = store.columns.map((column) => ({ name: column.name, bytes: column.byteSize() }));
const columnsTotal = columnBytes.reduce((sum, column) => sum + column.bytes, 0);
const numbersTotal = store.numbers.reduce((sum, column) => sum + column.byteLength, 0);
console.log(`typed arrays: ${megabytes(store.byteSize())} (${perMillion(store.byteSize())})`);
const sum = (part: (column: (typeof store.columns)[number]) => number): number => store.columns.reduce((total, column) => total + part(column), 0);
console.log(
  `  keyword columns: ${perMillion(columnsTotal)} — one value per document ${perMillion(sum((c) => c.single.byteLength))}, bitmasks ${perMillion(sum((c) => c.masks.byteLength))}, offsets and values ${perMillion(sum((c) => c.blockStart.byteLength + c.docOffset.byteLength + c.docValues.byteLength))}, lists per value ${perMillion(sum((c) => c.lists.byteSize()))}, dense values' bitmaps ${perMillion(sum((c) => c.bitmaps.reduce((bytes, bitmap) => bytes + (bitmap?.byteLength ?? 0), 0)))}`,
);
for (const column of columnBytes.sort((a, b) => b.bytes - a.bytes).slice(0, 6)) console.log(`    ${column.name.padEnd(18)} ${perMillion(column.bytes)}`);
const largest = store.columns.reduce((a, b) => (b.byteSize() > a.byteSize() ? b : a));
const bitmapBytes = largest.bitmaps.reduce((sum, bitmap) => sum + (bitmap?.byteLength ?? 0), 0);
console.log(
  `    (${largest.name}: ${largest.valueCount.toLocaleString('en')} values; per document ${perMillion(largest.single.byteLength + largest.masks.byteLength + largest.blockStart.byteLength + largest.docOffset.byteLength + largest.docValues.byteLength)}, lists ${perMillion(largest.lists.byteSize())}, bitmaps ${perMillion(bitmapBytes)})`,
);
console.log(`  numbers: ${perMillion(numbersTotal)}`);
console.log(`  forward stream: ${perMillion(store.forward.byteLength + store.forwardStart.byteLength)}`);
console.log(`  term postings: ${perMillion(store.postings.byteSize())}`);
const postings = store.postings;
const lists = postings.baseLists;
const denseRankBytes = postings.denseRanks.reduce((bytes, ranks, key) => bytes + (ranks?.byteLength ?? 0) + (postings.denseRankGroups[key]?.byteLength ?? 0), 0);
console.log(
  `    documents ${perMillion(lists.words.byteLength + lists.blocks.byteLength + lists.blockStart.byteLength + lists.blockShift.byteLength + lists.width.byteLength + lists.wordStart.byteLength)} (distances ${perMillion(lists.words.byteLength)}, blocks ${perMillion(lists.blocks.byteLength)}), frequency codes ${perMillion(postings.baseCodes.byteLength + postings.denseCodes.byteLength)} (the dense lists' ${perMillion(postings.denseCodes.byteLength)}) and escapes ${perMillion(2 * (postings.baseEscapes.at.byteLength + postings.denseEscapes.at.byteLength))}, dense bitmaps ${perMillion(postings.denseWords.byteLength)} and ranks ${perMillion(denseRankBytes)}`,
);
console.log(`  phrase pairs: ${perMillion(store.pairs.byteSize())}`);
console.log(`  ids' ordinal table: ${perMillion(store.ordinals.byteSize())}`);
// the rest of store.byteSize(): what each document holds outside the structures above
console.log(
  `  per document: ids ${perMillion(store.ids.byteSize())}, field lengths ${perMillion(store.lengths.byteLength)}, live bits ${perMillion(store.live.byteLength)}, orders ${perMillion(store.orders.byteSize())}, term frequencies ${perMillion(store.vocabulary.frequency.byteLength)}`,
);
gc();
const memory = process.memoryUsage();
// the index's own heap: its strings (ids, terms, values) and the objects around its arrays
console.log(`heap used after gc: ${megabytes(memory.heapUsed)}, the index's ${perMillion(memory.heapUsed - heapBefore)}; RSS ${megabytes(memory.rss)}`);

const searcher = new IndexSearcher(store);
const classes = queryClasses(catalogue.words, 200).map((c) => ({ name: c.name, queries: c.searches.map(indexQueryOf) }));
const keywordIds = (ranks: readonly number[]): string[] => ranks.map((rank) => String(KEYWORD_IDS.word(rank)));
classes.push(
  // phrases read on the forward stream: three common words (their pairs' lists give the
  // candidates), and a common word before a medium one (no pair list: the two words' lists)
  {
    name: 'quoted three-word phrase',
    queries: Array.from({ length: 200 }, (_, i): SearchQuery => ({ phrase: `"${catalogue.words[i % 30]} ${catalogue.words[(7 * i + 3) % 30]} ${catalogue.words[(13 * i + 5) % 30]}"` })),
  },
  { name: 'quoted common + medium word', queries: Array.from({ length: 200 }, (_, i): SearchQuery => ({ phrase: `"${catalogue.words[i % 30]} ${catalogue.words[1_000 + 5 * i]}"` })) },
  // a rare keyword alone drives the search from its list
  { name: 'keyword id (medium word) alone', queries: Array.from({ length: 200 }, (_, i): SearchQuery => ({ filters: [{ attribute: 'keyword_id', anyOf: keywordIds([1_000 + 10 * i]) }] })) },
  // beside a common word: checked per candidate
  {
    name: 'common word + keyword ids',
    queries: Array.from({ length: 200 }, (_, i): SearchQuery => ({
      phrase: catalogue.words[20 + (i % 100)]!,
      filters: [{ attribute: 'keyword_id', anyOf: keywordIds([200 + i, 400 + i]) }],
    })),
  },
);
const ROUNDS = 1_000;
const WARM_UP_MS = 1_000;
console.log(`\n${'query class (index only)'.padEnd(48)} ${'p50'.padStart(9)} ${'p99'.padStart(9)}  mean total`);
for (const { name, queries } of classes) {
  // compiled code and warm caches, then no garbage of the warm-up left to collect among the timed runs
  for (let i = 0, until = performance.now() + WARM_UP_MS; performance.now() < until; i++) searcher.search(queries[i % queries.length]!);
  gc();
  const times: number[] = [];
  let totals = 0;
  for (let i = 0; i < ROUNDS; i++) {
    const start = performance.now();
    totals += searcher.search(queries[i % queries.length]!).total;
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const at = (p: number): string => `${times[Math.min(times.length - 1, Math.floor(p * times.length))]!.toFixed(3)} ms`;
  console.log(`${name.padEnd(48)} ${at(0.5).padStart(9)} ${at(0.99).padStart(9)}  ${Math.round(totals / ROUNDS).toLocaleString('en')}`);
}
