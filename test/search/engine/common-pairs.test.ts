import { describe, expect, it } from 'vitest';
import { tokenize } from '../../../src/search/engine/analyzer.js';
import { documentsOf } from '../../../src/search/engine/compressed-lists.js';
import { CommonPairs, MAX_COMMON_TERMS } from '../../../src/search/engine/common-pairs.js';
import { FIELD_END, TERM_CODE } from '../../../src/search/engine/forward-codes.js';
import { SearchIndex } from '../../../src/search/engine/search-index.js';
import { seededRandom } from '../../../src/platform/seeded-random.js';
import { doc, indexOf } from './fixtures.js';
import type { DocSpec } from './fixtures.js';

/*
 * A quoted phrase of common words starts from the pair lists of its adjacent words
 * (common-pairs.ts); a two-word phrase is answered by them without a look at the forward
 * stream. Whatever the path, a phrase must match exactly the documents where its words stand
 * next to each other within one value of one field: checked here against a plain scan, on a
 * vocabulary wider than the common terms (so some phrases take the pair lists and some do
 * not), through appends to the tail lists, re-written and deleted documents, a compaction and
 * a snapshot.
 */

// more words than get pair lists, each in far more than 1/64 of the documents
const WORDS = Array.from({ length: MAX_COMMON_TERMS + 32 }, (_, i) => `w${i.toString(36)}`);

function corpus(count: number, seed: number, prefix: string): Map<string, DocSpec> {
  const random = seededRandom(seed);
  // skewed: the first words are the commonest, the last ones the least
  const word = () => WORDS[Math.floor(WORDS.length * random() * random())]!;
  const words = (n: number) => Array.from({ length: n }, word).join(' ');
  const specs = new Map<string, DocSpec>();
  for (let i = 0; i < count; i++) {
    specs.set(`${prefix}-${i}`, {
      title: words(2 + Math.floor(random() * 4)),
      caption: words(3 + Math.floor(random() * 6)),
      keywords: Array.from({ length: Math.floor(random() * 4) }, () => words(1 + Math.floor(random() * 2))),
      date: i,
    });
  }
  return specs;
}

/** Whether the words stand next to each other, in order, within one value of one field. */
function hasPhrase(spec: DocSpec, phrase: readonly string[]): boolean {
  const values = [spec.title ?? '', spec.caption ?? '', ...(spec.keywords ?? [])];
  return values.some((value) => {
    const tokens = tokenize(value);
    for (let i = 0; i + phrase.length <= tokens.length; i++) if (phrase.every((word, j) => tokens[i + j] === word)) return true;
    return false;
  });
}

function scanned(specs: ReadonlyMap<string, DocSpec>, phrase: readonly string[]): string[] {
  return [...specs].filter(([, spec]) => hasPhrase(spec, phrase)).map(([id]) => id).sort();
}

function found(index: SearchIndex, phrase: readonly string[]): string[] {
  return index.search({ phrase: `"${phrase.join(' ')}"`, mode: 'precise', limit: 100_000 }).ids.sort();
}

function phrases(): string[][] {
  const random = seededRandom(0xbeef);
  const pick = () => WORDS[Math.floor(random() * WORDS.length)]!;
  const list: string[][] = [];
  // the commonest pairs, both orders; pairs with a word past the common ones; repeats; three words
  for (let a = 0; a < 6; a++) for (let b = 0; b < 6; b++) list.push([WORDS[a]!, WORDS[b]!]);
  for (let i = 0; i < 40; i++) list.push([pick(), pick()]);
  for (let i = 0; i < 10; i++) list.push([WORDS[WORDS.length - 1 - i]!, WORDS[i]!]);
  for (let i = 0; i < 20; i++) list.push([WORDS[i % 4]!, pick(), WORDS[(i + 1) % 4]!]);
  list.push([WORDS[0]!, WORDS[0]!, WORDS[0]!]);
  return list;
}

function expectSameAsScan(index: SearchIndex, specs: ReadonlyMap<string, DocSpec>): void {
  let matched = 0;
  for (const phrase of phrases()) {
    const expected = scanned(specs, phrase);
    expect(found(index, phrase), phrase.join(' ')).toEqual(expected);
    if (expected.length > 0) matched++;
  }
  // the comparison means something: most phrases match some documents
  expect(matched).toBeGreaterThan(40);
}

describe('phrases through the pair lists of common words', () => {
  const specs = corpus(3_000, 0x9a125, 'base');
  const index = indexOf([...specs].map(([id, spec]) => doc(id, spec)));
  index.search({ phrase: WORDS[0]! });

  it('match exactly what a scan finds, within one value of one field', () => {
    expectSameAsScan(index, specs);
  });

  it('stay exact through appends, re-written and deleted documents, a compaction and a snapshot', () => {
    const live = new Map(specs);
    // appended: new documents (tail lists) and new text for existing ones (old postings dead)
    const later = corpus(400, 0x7a11, 'tail');
    const rewritten = corpus(200, 0x3e3e, 'base');
    for (const [id, spec] of [...later, ...rewritten]) {
      index.upsert(doc(id, spec));
      live.set(id, spec);
    }
    for (let i = 0; i < 3_000; i += 7) {
      index.remove(`base-${i}`);
      live.delete(`base-${i}`);
    }
    expectSameAsScan(index, live);

    index.compact();
    expectSameAsScan(index, live);

    const restored = SearchIndex.fromSnapshot(index.toSnapshot());
    expectSameAsScan(restored, live);
  });

  it('never join words across two values of a list field or across fields', () => {
    const small = indexOf([
      doc('split', { title: 'harbour', caption: 'light', keywords: ['harbour', 'light house'] }),
      doc('joined', { title: 'old harbour light', keywords: ['harbour light'] }),
      ...Array.from({ length: 40 }, (_, i) => doc(`other-${i}`, { title: 'light harbour', caption: 'harbour harbour' })),
    ]);
    expect(found(small, ['harbour', 'light'])).toEqual(['joined']);
    expect(found(small, ['light', 'harbour'])).toEqual(Array.from({ length: 40 }, (_, i) => `other-${i}`).sort());
    expect(found(small, ['harbour', 'harbour'])).toEqual(Array.from({ length: 40 }, (_, i) => `other-${i}`).sort());
    expect(found(small, ['light', 'house'])).toEqual(['split']);
  });

  it('take every variant of each word in enhanced search', () => {
    const small = indexOf([
      doc('plural', { title: 'harbour boats at dawn' }),
      doc('singular', { title: 'a harbour boat' }),
      doc('apart', { title: 'boat in the harbour' }),
      ...Array.from({ length: 40 }, (_, i) => doc(`other-${i}`, { title: 'harbour view', caption: 'boat' })),
    ]);
    expect(small.search({ phrase: '"harbour boat"' }).ids.sort()).toEqual(['plural', 'singular']);
    expect(small.search({ phrase: '"harbour boats"', mode: 'precise' }).ids).toEqual(['plural']);
  });
});

describe('pair lists in a snapshot', () => {
  it('are read back as they were written, and refused when out of step with their starts', () => {
    const pairs = new CommonPairs();
    // two documents: "a b" and "b a", term ids 0 and 1 both common, each document given to both passes
    const documents = [Uint32Array.of(TERM_CODE, TERM_CODE + 1, FIELD_END), Uint32Array.of(TERM_CODE + 1, TERM_CODE, FIELD_END)];
    const build = pairs.beginRebuild(Uint32Array.of(0, 2, 4), 2);
    documents.forEach((codes, d) => build.count(codes, codes.length, d));
    build.allocate();
    documents.forEach((codes, d) => build.write(codes, codes.length, d));
    build.finish();
    const written = pairs.snapshot();
    const restored = new CommonPairs();
    const copied = { ...written.lists, words: written.lists.words.slice(), blocks: written.lists.blocks.slice() };
    restored.restore(written.rankOf.slice(), written.start.slice(), copied);
    const key = restored.keyOf(0, 1);
    expect(key).toBe(pairs.keyOf(0, 1));
    expect(documentsOf(restored.postings.baseRun(key))).toEqual([0]);
    expect(documentsOf(restored.postings.baseRun(restored.keyOf(1, 0)))).toEqual([1]);
    expect(() => new CommonPairs().restore(written.rankOf, written.start, { ...written.lists, blocks: written.lists.blocks.subarray(1) })).toThrow(/out of step/);
    expect(() => new CommonPairs().restore(written.rankOf, written.start.subarray(1), written.lists)).toThrow(/out of step/);
  });
});
