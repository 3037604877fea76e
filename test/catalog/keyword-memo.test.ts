import { describe, expect, it } from 'vitest';
import { KeywordMemo, type KeywordDetailRow } from '../../src/catalog/keyword-details.js';

const row = (id: number): KeywordDetailRow => ({ id, text: `word ${id}`, type: null, entity_uris: null, entity_types: null, translations: null });

/** Reads a page as a scan does: the ids the memo lacks are read and remembered. */
function readPage(memo: KeywordMemo, ids: readonly number[]): number[] {
  const missing = memo.missing(ids);
  for (const id of missing) memo.remember(row(id));
  for (const id of ids) expect(memo.listing(id, null, true)?.text).toBe(`word ${id}`);
  return missing;
}

describe('the keyword memo', () => {
  it('holds keywords of any id, the largest an ingest may give among them, and reads each once', () => {
    // A memo of one page's read, ids far apart: held without an array reaching the largest.
    const memo = new KeywordMemo();
    const ids = [2_147_483_647, 5, 70_000_000, 1023, 1024, 65_536];
    expect(readPage(memo, ids).sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
    expect(readPage(memo, ids)).toEqual([]);
    expect(memo.listing(6, null, true)).toBeUndefined();
    expect(memo.listing(2_147_483_646, null, true)).toBeUndefined();
  });

  it('forgets the generation before and keeps what moved on from it, whichever way an id is held', () => {
    // room for six keywords a generation
    const memo = new KeywordMemo(6);
    const known = (id: number) => memo.listing(id, null, true) !== undefined;
    readPage(memo, [1, 2, 3, 4]);
    // a second generation begins; the first is the one before
    readPage(memo, [90_000_001, 90_000_002, 90_000_003, 90_000_004]);
    // 1 is needed again: it moves on to the second generation
    expect(readPage(memo, [1, 90_000_001])).toEqual([]);
    // a third generation: of the first, what did not move on is forgotten
    expect(readPage(memo, [7, 8, 9, 10])).toEqual([7, 8, 9, 10]);
    expect([1, 2, 90_000_002].map(known)).toEqual([true, false, true]);
    // a fourth: the second (the array's 1 and the map's large ids) is forgotten
    readPage(memo, [11, 12, 13, 14]);
    expect([1, 90_000_001, 90_000_004, 7].map(known)).toEqual([false, false, false, true]);
    expect(memo.missing([2, 90_000_002]).sort((a, b) => a - b)).toEqual([2, 90_000_002]);
    // ids the array reaches later, first held beyond it, are found and forgotten alike
    const growing = new KeywordMemo(10_000);
    const spread = Array.from({ length: 3000 }, (_, n) => n * 7 + 5000);
    expect(readPage(growing, spread)).toHaveLength(3000);
    expect(readPage(growing, spread)).toEqual([]);
  });
});
