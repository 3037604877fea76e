import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../src/platform/seeded-random.js';
import { ValueListWriter, ValueLists } from '../../../src/search/engine/value-lists.js';

/** (value, document) postings in document order, as a column's build visits them. */
function build(postings: ReadonlyArray<readonly [number, number]>, valueCount: number): ValueLists {
  const writer = new ValueListWriter(valueCount);
  for (const [value, doc] of postings) writer.measure(value, doc);
  writer.allocate();
  for (const [value, doc] of postings) writer.write(value, doc);
  const lists = new ValueLists();
  writer.finish(lists);
  return lists;
}

const documentsOf = (lists: ValueLists, values: readonly number[]): number[] => lists.listsOf(values).flatMap(([docs, start, end]) => [...docs.subarray(start, end)]);

describe('value lists', () => {
  it('read back every list as written, for gaps of one to five bytes', () => {
    const docs = [0, 1, 2, 129, 130, 20_000, 3_000_000, 300_000_000, 4_294_967_294];
    const lists = build(
      docs.map((doc) => [1, doc] as const),
      3,
    );
    expect(documentsOf(lists, [1])).toEqual(docs);
    expect(documentsOf(lists, [0])).toEqual([]);
    expect(documentsOf(lists, [2])).toEqual([]);
    // as gaps 1 + 1 + 1 + 2 + 1 + 3 + 3 + 5 + 5 bytes (nine ordinals up to 2^32 take more as Elias-Fano)
    expect(lists.baseBytes.length).toBe(22);
    expect(lists.baseEliasFano[0]).toBe(0);
  });

  it('read back random lists of many values, in the order the values are asked for', () => {
    const random = seededRandom(27);
    const expected: number[][] = Array.from({ length: 50 }, () => []);
    const postings: Array<readonly [number, number]> = [];
    for (let doc = 0; doc < 20_000; doc++) {
      for (let value = 0; value < 50; value++) {
        // value v is in about 1 / (v + 2) of the documents
        if (random() * (value + 2) < 1) {
          postings.push([value, doc]);
          expected[value]!.push(doc);
        }
      }
    }
    const lists = build(postings, 50);
    for (let value = 0; value < 50; value++) expect(documentsOf(lists, [value])).toEqual(expected[value]);
    expect(documentsOf(lists, [7, 3])).toEqual([...expected[7]!, ...expected[3]!]);
    // a byte or two a posting, not four
    expect(lists.baseBytes.length).toBeLessThan(1.5 * postings.length);
    // the common values' lists are Elias-Fano coded, the value of 1 in 51 documents too
    expect(lists.baseEliasFano[0]! & 1).toBe(1);
    expect(lists.baseEliasFano[6]! & 1).toBe(1);
  });

  it('give a value its base list, then the documents appended since, until the next base', () => {
    const lists = build(
      [
        [0, 3],
        [1, 4],
        [0, 9],
      ],
      2,
    );
    lists.add(0, 12);
    lists.add(2, 13);
    lists.add(0, 15);
    expect(documentsOf(lists, [0])).toEqual([3, 9, 12, 15]);
    expect(documentsOf(lists, [2, 1])).toEqual([13, 4]);
    lists.setBase(new Uint32Array([0, 0, 0, 0]), new Uint8Array(0), new Uint8Array(1));
    expect(documentsOf(lists, [0, 1, 2])).toEqual([]);
  });

  it('leave the values allocate is told to skip without a list', () => {
    const postings = [
      [0, 1],
      [1, 2],
      [0, 5],
      [2, 6],
    ] as const;
    const writer = new ValueListWriter(3);
    for (const [value, doc] of postings) writer.measure(value, doc);
    writer.allocate((value) => value !== 0);
    for (const [value, doc] of postings) writer.write(value, doc);
    const lists = new ValueLists();
    writer.finish(lists);
    expect([0, 1, 2].map((value) => documentsOf(lists, [value]))).toEqual([[], [2], [6]]);
    expect(lists.baseBytes.length).toBe(2);
  });

  it('read back Elias-Fano lists of every width of low bits, ordinals past 2^31 included', () => {
    const random = seededRandom(10);
    for (const spacing of [1, 2, 3, 5, 17, 100, 1_000, 70_000, 3_000_000]) {
      const docs: number[] = [];
      for (let doc = Math.floor(random() * spacing); doc < 4_294_967_294 && docs.length < 300; doc += 1 + Math.floor(random() * 2 * spacing)) docs.push(doc);
      const lists = build(
        docs.map((doc) => [0, doc] as const),
        1,
      );
      expect(lists.baseEliasFano[0]).toBe(1);
      expect(documentsOf(lists, [0])).toEqual(docs);
    }
    const high = [2_147_483_647, 2_147_483_648, 3_000_000_000, 3_000_000_001, 3_000_000_100, 4_294_967_294];
    const lists = build(
      high.map((doc) => [0, doc] as const),
      1,
    );
    expect(documentsOf(lists, [0])).toEqual(high);
  });

  it('keep each list in the smaller coding: a single far ordinal as a varint, a run of neighbours as Elias-Fano', () => {
    const neighbours = Array.from({ length: 64 }, (_, i) => 1_000 + 2 * i);
    const lists = build([[0, 900_000] as const, ...neighbours.map((doc) => [1, doc] as const)].sort((a, b) => a[1] - b[1]), 2);
    expect(lists.baseEliasFano[0]).toBe(0b10);
    expect(documentsOf(lists, [0])).toEqual([900_000]);
    expect(documentsOf(lists, [1])).toEqual(neighbours);
    // the varint's 3 bytes; a header of 2, 64 bits of low parts, 64 + 1,126 bits of high parts: 149 bytes, where the gaps take 1 + 63
    expect(lists.baseStart[1]).toBe(3);
    expect(lists.baseStart[2]! - lists.baseStart[1]!).toBeLessThan(64);
  });

  it('refuse a base whose offsets do not end at its bytes', () => {
    expect(() => new ValueLists().setBase(new Uint32Array([0, 4]), new Uint8Array(3), new Uint8Array(1))).toThrow(/out of step/);
    expect(() => new ValueLists().setBase(new Uint32Array([0, 3]), new Uint8Array(3), new Uint8Array(0))).toThrow(/out of step/);
    // an Elias-Fano header counting more documents than its bytes can hold bits
    expect(() => new ValueLists().setBase(new Uint32Array([0, 2]), Uint8Array.of(0x80, 0x7f), Uint8Array.of(1))).toThrow(/out of step/);
  });
});
