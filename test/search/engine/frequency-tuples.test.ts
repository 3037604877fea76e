import { describe, expect, it } from 'vitest';
import { BYTE_ESCAPE, ESCAPE, FrequencyTuples, NO_ESCAPES, codeAt, codeBytes, escapedCode, setCode, withEscape } from '../../../src/search/engine/frequency-tuples.js';
import { PostingStore } from '../../../src/search/engine/posting-store.js';
import { SearchIndex } from '../../../src/search/engine/search-index.js';
import type { IndexDocument, SearchQuery } from '../../../src/search/engine/search-index.js';
import { SCHEMA, doc, filler } from './fixtures.js';

const tuple = (...frequencies: number[]) => Uint8Array.from(frequencies);

describe('frequency tuples', () => {
  it('give one code per distinct tuple, numbered in order of arrival', () => {
    const tuples = new FrequencyTuples(3);
    expect(tuples.codeOf(tuple(1, 0, 0), 0)).toBe(0);
    expect(tuples.codeOf(tuple(0, 2, 1), 0)).toBe(1);
    expect(tuples.codeOf(tuple(9, 1, 0, 0), 1)).toBe(0); // read at an offset
    expect(tuples.codeOf(tuple(1, 0, 0), 0)).toBe(0);
    expect(tuples.count).toBe(2);
    expect([...tuples.used()]).toEqual([1, 0, 0, 0, 2, 1]);
  });

  it('tell large frequencies apart (past the direct table) up to 255', () => {
    const tuples = new FrequencyTuples(4);
    const a = tuples.codeOf(tuple(255, 0, 16, 1), 0);
    const b = tuples.codeOf(tuple(255, 0, 17, 1), 0);
    const c = tuples.codeOf(tuple(15, 0, 15, 1), 0);
    expect(new Set([a, b, c]).size).toBe(3);
    expect(tuples.codeOf(tuple(255, 0, 16, 1), 0)).toBe(a);
    expect([...tuples.bytes.subarray(b * 4, b * 4 + 4)]).toEqual([255, 0, 17, 1]);
  });

  it('work for more fields than fit a packed key', () => {
    const tuples = new FrequencyTuples(6);
    expect(tuples.codeOf(tuple(1, 2, 3, 4, 5, 6), 0)).toBe(0);
    expect(tuples.codeOf(tuple(1, 2, 3, 4, 5, 7), 0)).toBe(1);
    expect(tuples.codeOf(tuple(1, 2, 3, 4, 5, 6), 0)).toBe(0);
  });

  it('keep the codes past the first 255 aside, by posting', () => {
    let escapes = NO_ESCAPES;
    for (let posting = 3; posting < 100; posting += 3) escapes = withEscape(escapes, posting, 1000 + posting);
    expect(escapes.count).toBe(33);
    expect(NO_ESCAPES.count).toBe(0);
    for (let posting = 3; posting < 100; posting += 3) expect(escapedCode(escapes, posting)).toBe(1000 + posting);
  });

  it('are read back from a snapshot with the same codes, and refuse a table listing a tuple twice', () => {
    const tuples = new FrequencyTuples(2);
    tuples.reset(tuple(0, 1, 3, 0, 1, 1));
    expect(tuples.codeOf(tuple(1, 1), 0)).toBe(2);
    expect(tuples.codeOf(tuple(0, 1), 0)).toBe(0);
    expect(() => tuples.reset(tuple(0, 1, 0, 1))).toThrow(/twice/);
    expect(() => tuples.reset(tuple(0, 1, 0))).toThrow(/cut short/);
  });
});

describe('posting codes', () => {
  it('are four bits, two a byte, writing one keeping the other', () => {
    const codes = new Uint8Array(codeBytes(5));
    expect(codes.length).toBe(3);
    [3, 14, 0, ESCAPE, 9].forEach((code, posting) => setCode(codes, posting, code));
    setCode(codes, 1, 7);
    expect([0, 1, 2, 3, 4].map((posting) => codeAt(codes, 1, withEscape(NO_ESCAPES, 3, 40), posting))).toEqual([3, 7, 0, 40, 9]);
    // a code past the first 15 is stored as ESCAPE (its own kept by the caller)
    setCode(codes, 2, 200);
    expect((codes[1]! & 15)).toBe(ESCAPE);
    expect(codes[1]! >>> 4).toBe(ESCAPE);
  });

  it('number the tuples by use at a build, those past the first 15 and 255 escaped, in the base and in the tail lists', () => {
    const store = new PostingStore(2);
    for (let i = 0; i < 255; i++) store.codeOf(tuple(i, 1), 0);
    const late = store.codeOf(tuple(7, 7), 0);
    expect(late).toBe(255);
    // 50 postings: tuple (late) 20 times, (3, 1) 10 times, then (20 + p, 1) once each: 22 tuples
    // in use, the 7 from the 16th by use on escaped; a byte code past 255 escaped in the input
    const byteTuples = [...Array.from({ length: 20 }, () => late), ...Array.from({ length: 10 }, () => 3), ...Array.from({ length: 20 }, (_, p) => 20 + p)];
    let byteEscapes = NO_ESCAPES;
    const byteCodes = Uint8Array.from(byteTuples, (code, posting) => {
      if (code < BYTE_ESCAPE) return code;
      byteEscapes = withEscape(byteEscapes, posting, code);
      return BYTE_ESCAPE;
    });
    const frequencies = byteTuples.map((code) => [...store.tuples.bytes.subarray(code * 2, code * 2 + 2)]);
    store.setBase(Uint32Array.of(0, 25, 50), Uint32Array.from({ length: 50 }, (_, i) => i % 25), byteCodes, byteEscapes);
    expect(store.baseCodes.length).toBe(25);
    const frequenciesOf = (codes: Uint8Array, escapes: typeof NO_ESCAPES, posting: number) => {
      const code = codeAt(codes, 1, escapes, posting);
      return [store.tuples.bytes[code * 2], store.tuples.bytes[code * 2 + 1]];
    };
    expect(Array.from({ length: 50 }, (_, posting) => frequenciesOf(store.baseCodes, store.baseEscapes, posting))).toEqual(frequencies);
    // the most used first: (7, 7) is code 0, (3, 1) code 1; 13 more below ESCAPE, then escapes
    expect([codeAt(store.baseCodes, 1, store.baseEscapes, 0), codeAt(store.baseCodes, 1, store.baseEscapes, 20)]).toEqual([0, 1]);
    expect(store.baseEscapes.count).toBe(22 - ESCAPE);
    store.add(0, 30, tuple(8, 8), 0);
    store.add(0, 31, tuple(0, 1), 0);
    store.add(0, 32, tuple(7, 7), 0);
    store.add(1, 30, tuple(8, 8), 0);
    expect([0, 1, 2].map((p) => frequenciesOf(store.tailCodes[0]!, store.tailEscapes[0]!, p))).toEqual([[8, 8], [0, 1], [7, 7]]);
    expect(frequenciesOf(store.tailCodes[1]!, store.tailEscapes[1]!, 0)).toEqual([8, 8]);
    // (8, 8) is new, (0, 1) unused at the build: both past the first 15
    expect(store.tailEscapes[0]!.count).toBe(2);
  });

  it('are a byte for a dense list, numbered apart, read back after a restore', () => {
    // keys 0 and 2 in every other one of 2,048 documents (dense), key 1 in three: 20 tuples, so
    // the dense postings of the 16th to the 20th are bytes, not escapes
    const store = new PostingStore(2);
    const tuples = Array.from({ length: 20 }, (_, t) => store.codeOf(tuple(t + 1, 0), 0));
    const lists = [Array.from({ length: 1024 }, (_, i) => 2 * i), [5, 600, 2000], Array.from({ length: 1024 }, (_, i) => 2 * i + 1)];
    const docs = Uint32Array.from(lists.flat());
    const start = Uint32Array.of(0, 1024, 1027, docs.length);
    const byteCodes = Uint8Array.from(docs, (_, posting) => tuples[posting % 20]!);
    const expected = Array.from(docs, (_, posting) => posting % 20 + 1);
    store.setBase(start, docs, byteCodes, NO_ESCAPES, 2048);
    const frequenciesOf = (stored: PostingStore) =>
      [0, 1, 2].flatMap((key) => {
        const dense = stored.denseBitmaps[key] !== null;
        const from = stored.codeStartOf(key);
        return Array.from({ length: start[key + 1]! - start[key]! }, (_, r) =>
          stored.tuples.bytes[2 * codeAt(dense ? stored.denseCodes : stored.baseCodes, dense ? 0 : 1, dense ? stored.denseEscapes : stored.baseEscapes, from + r)],
        );
      });
    expect([...store.denseKeys]).toEqual([0, 2]);
    expect(store.denseCodes.length).toBe(2048);
    expect(store.baseCodes.length).toBe(2);
    expect(store.denseEscapes.count).toBe(0);
    expect(frequenciesOf(store)).toEqual(expected);

    const restored = new PostingStore(2);
    restored.tuples.reset(store.tuples.used().slice());
    const dense = { keys: store.denseKeys.slice(), words: store.denseWords.slice(), docCount: 2048 };
    restored.restoreBase(store.baseStart, store.baseLists, store.baseCodes.slice(), store.baseEscapes, { ...dense, codes: store.denseCodes.slice(), escapes: store.denseEscapes });
    expect(frequenciesOf(restored)).toEqual(expected);
    expect(() => new PostingStore(2).restoreBase(store.baseStart, store.baseLists, store.baseCodes.slice(), store.baseEscapes, { ...dense, codes: store.denseCodes.slice(1) })).toThrow(
      /out of step/,
    );
  });

  it('refuse a base whose codes and postings differ in count, or whose escapes are out of step', () => {
    const store = new PostingStore(2);
    expect(() => store.setBase(Uint32Array.of(0, 2), Uint32Array.of(0, 1), new Uint8Array(1))).toThrow(/out of step/);
    store.codeOf(tuple(1, 0), 0);
    store.setBase(Uint32Array.of(0, 3), Uint32Array.of(0, 1, 2), new Uint8Array(3));
    const restoring = (codes: Uint8Array, escapes: typeof NO_ESCAPES) => () => new PostingStore(2).restoreBase(store.baseStart, store.baseLists, codes, escapes);
    expect(restoring(store.baseCodes.slice(), NO_ESCAPES)).not.toThrow();
    expect(restoring(new Uint8Array(3), NO_ESCAPES)).toThrow(/out of step/);
    // a posting past the list, or a code past the table
    expect(restoring(store.baseCodes.slice(), withEscape(NO_ESCAPES, 3, 0))).toThrow(/escaped/);
    expect(restoring(store.baseCodes.slice(), withEscape(NO_ESCAPES, 1, 1))).toThrow(/escaped/);
  });
});

describe('an index past 256 frequency tuples', () => {
  // Word w appears (i mod 7) times in the title, (i mod 11) in the caption and (i mod 5) in the
  // keywords of document i: 385 tuples, so many postings' codes are escaped (past the first 15)
  // and some of the build's (past the first 255).
  const word = (w: number) => `word${String.fromCharCode(97 + w)}`;
  const repeated = (text: string, times: number) => Array.from({ length: times }, () => text).join(' ');
  const documents: IndexDocument[] = Array.from({ length: 400 }, (_, i) =>
    doc(`d-${String(i).padStart(3, '0')}`, {
      title: `${repeated(word(0), i % 7)} ${repeated(word(1), (i * 3) % 7)} title`,
      caption: `${repeated(word(0), i % 11)} ${repeated(word(2), (i * 5) % 11)} caption ${repeated('filler', i % 13)}`,
      keywords: Array.from({ length: i % 5 }, () => word(0)),
      orientation: i % 3 === 0 ? 'horizontal' : 'vertical',
      popularity: i % 17,
      quality: i % 4,
    }),
  );
  const queries: SearchQuery[] = [
    { phrase: word(0), limit: 400 },
    { phrase: `${word(0)} ${word(1)}`, limit: 50 },
    { phrase: `${word(2)} ${word(0)}`, filters: [{ attribute: 'orientation', anyOf: ['horizontal'] }], limit: 30, offset: 5 },
    { phrase: `"${word(0)} ${word(1)}"`, limit: 100 },
    { phrase: word(0).slice(0, 4), limit: 100 },
  ];
  const answers = (index: SearchIndex) => queries.map((query) => index.search(query));

  it('answers the same built in bulk, one document at a time, after a snapshot and with appends after it', () => {
    const bulk = new SearchIndex(SCHEMA);
    bulk.upsertMany([...filler(50), ...documents]);
    const expected = answers(bulk);
    expect(expected[0]!.total).toBeGreaterThan(300);

    const oneByOne = new SearchIndex(SCHEMA);
    for (const item of [...filler(50), ...documents]) oneByOne.upsert(item);
    expect(answers(oneByOne)).toEqual(expected);

    expect(answers(SearchIndex.fromSnapshot(bulk.toSnapshot()))).toEqual(expected);

    // appends after a load: a base of few tuples whose tails bring the rest, escaped ones among them
    const small = new SearchIndex(SCHEMA);
    small.upsertMany([...filler(50), ...documents.slice(0, 5)]);
    const loaded = SearchIndex.fromSnapshot(small.toSnapshot());
    for (const item of documents.slice(5)) loaded.upsert(item);
    expect(answers(loaded)).toEqual(expected);
    loaded.compact();
    expect(answers(loaded)).toEqual(expected);
  });

  it('keeps its answers through deletions and replacements', () => {
    const index = new SearchIndex(SCHEMA);
    index.upsertMany(documents);
    const reference = new SearchIndex(SCHEMA);
    reference.upsertMany(documents.filter((_, i) => i % 9 !== 0));
    for (let i = 0; i < documents.length; i += 9) index.remove(documents[i]!.id);
    expect(answers(index)).toEqual(answers(reference));
    index.compact();
    expect(answers(index)).toEqual(answers(reference));
  });
});
