import { describe, expect, it } from 'vitest';
import { SearchIndex, type IndexDocument, type SearchQuery } from '../../../src/search/engine/search-index.js';
import type { ExternalBytes, SnapshotSource } from '../../../src/search/engine/snapshot-format.js';
import { doc, indexOf } from './fixtures.js';

/*
 * An index loaded from a snapshot file reads its forward stream there instead of holding it
 * (IndexStore.forwardBase): phrase checks gather their candidates' bytes, a deletion reads its
 * document's, a compaction loads it all, a snapshot copies it, and once a snapshot is written
 * the stream is read from the new one. Here the "file" is a buffer behind a source that can keep
 * a range, counting what is kept and released, and every answer is compared with the same index
 * held wholly in memory.
 */

interface KeepingSource extends SnapshotSource {
  kept: number;
  released: number;
  reads: number;
}

function keepingSource(bytes: Uint8Array): KeepingSource {
  const source: KeepingSource = {
    length: bytes.length,
    kept: 0,
    released: 0,
    reads: 0,
    read: (position, target) => target.set(bytes.subarray(position, position + target.length)),
    keep(start, length): ExternalBytes {
      source.kept++;
      let held = true;
      return {
        length,
        read(position, target) {
          if (!held) throw new Error('read after release');
          if (position < 0 || position + target.length > length) throw new Error('read past the kept range');
          source.reads++;
          target.set(bytes.subarray(start + position, start + position + target.length));
        },
        release() {
          if (held) source.released++;
          held = false;
        },
      };
    },
  };
  return source;
}

const WORDS = ['harbour', 'light', 'old', 'boat', 'red', 'sky', 'night', 'city', 'street', 'rain', 'snow', 'field'];

/** Documents of a few common words in many orders: phrases of two and three words match some. */
function documents(count: number, prefix = 'd'): IndexDocument[] {
  let seed = 7;
  const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % WORDS.length;
  const text = (n: number) => Array.from({ length: n }, () => WORDS[next()]!).join(' ');
  return Array.from({ length: count }, (_, i) =>
    doc(`${prefix}${i}`, { title: text(3), caption: text(8), keywords: [text(2), text(1), `k${i % 50}`], collection: `c${i % 4}`, date: 1_000 + i }),
  );
}

const QUERIES: SearchQuery[] = [
  { phrase: '"harbour light"', mode: 'precise' },
  { phrase: '"old boat red"', mode: 'precise' },
  { phrase: '"sky night"', mode: 'precise', sort: 'newest' },
  { phrase: 'rain -"snow field"', mode: 'precise' },
  { phrase: '"city street" rain', mode: 'enhanced', limit: 50 },
  { phrase: '"street city" -boat', mode: 'precise', filters: [{ attribute: 'collection', anyOf: ['c1', 'c2'] }] },
  { phrase: '"light old boat"', mode: 'precise', limit: 100 },
];

const answers = (index: SearchIndex) => QUERIES.map((query) => index.search({ limit: 500, ...query }));

describe('the forward stream read from the snapshot file', () => {
  it('answers every phrase as the index held in memory, and holds less', () => {
    const inMemory = indexOf(documents(3_000));
    const snapshot = inMemory.toSnapshot();
    const source = keepingSource(snapshot);
    const onDisk = SearchIndex.fromSnapshot(source);
    expect(onDisk.forwardOnDisk).toBe(true);
    expect(source.kept).toBe(1);
    expect(SearchIndex.fromSnapshot(snapshot).forwardOnDisk).toBe(false);
    expect(onDisk.byteSize()).toBeLessThan(SearchIndex.fromSnapshot(snapshot).byteSize() - 10_000);
    const expected = answers(inMemory);
    expect(expected.some((result) => result.total > 10)).toBe(true);
    expect(answers(onDisk)).toEqual(expected);
    expect(source.reads).toBeGreaterThan(0);
  });

  it('checks a phrase over more candidates than one batch of reads holds (1 MiB), in batches', () => {
    // 6,000 documents of about 250 words: some 2 MB of stream, nearly every document a candidate
    let seed = 3;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8;
    // a token in four of the phrases' words, the rest of 3,000 others: longer codes
    const token = () => (next() % 4 === 0 ? WORDS[next() % WORDS.length]! : `v${next() % 3_000}x`);
    const long = Array.from({ length: 6_000 }, (_, i) => doc(`l${i}`, { title: 'harbour', caption: Array.from({ length: 250 }, token).join(' '), date: i }));
    const inMemory = indexOf(long);
    const source = keepingSource(inMemory.toSnapshot());
    const onDisk = SearchIndex.fromSnapshot(source);
    const queries: SearchQuery[] = [
      { phrase: '"light old boat"', mode: 'precise', limit: 6_000, sort: 'oldest' },
      { phrase: 'harbour -"sky night city"', mode: 'precise', limit: 6_000, sort: 'oldest' },
    ];
    for (const query of queries) {
      const expected = inMemory.search(query);
      expect(expected.total).toBeGreaterThan(20);
      expect(expected.total).toBeLessThan(6_000);
      expect(onDisk.search(query)).toEqual(expected);
    }
    // one read a batch of neighbours at least, far fewer than a read a document
    expect(source.reads).toBeGreaterThan(2);
    expect(source.reads).toBeLessThan(100);
  });

  it('deletes, replaces and appends beside the stream on disk, phrases reading both; a compaction loads it and lets the file go', () => {
    const inMemory = indexOf(documents(2_000));
    const source = keepingSource(inMemory.toSnapshot());
    const onDisk = SearchIndex.fromSnapshot(source);
    const changes = (index: SearchIndex) => {
      for (let i = 0; i < 300; i += 3) index.remove(`d${i}`);
      for (const item of documents(200, 'n')) index.upsert(item);
      // replacing a document deletes the old one: its terms are read from disk
      for (const item of documents(40, 'd')) index.upsert({ ...item, text: { ...item.text, title: 'harbour light harbour light' } });
    };
    changes(inMemory);
    changes(onDisk);
    expect(onDisk.forwardOnDisk).toBe(true);
    expect(answers(onDisk)).toEqual(answers(inMemory));

    onDisk.compact();
    inMemory.compact();
    expect(onDisk.forwardOnDisk).toBe(false);
    expect(source.released).toBe(1);
    expect(answers(onDisk)).toEqual(answers(inMemory));
  });

  it('writes the same snapshot from the stream on disk, unchanged or changed', () => {
    const original = indexOf(documents(1_500));
    const snapshot = original.toSnapshot();
    const unchanged = SearchIndex.fromSnapshot(keepingSource(snapshot));
    // nothing changed: the stream is copied from the file, byte for byte
    expect(Buffer.from(unchanged.toSnapshot()).equals(snapshot)).toBe(true);
    expect(unchanged.forwardOnDisk).toBe(true);

    const changed = SearchIndex.fromSnapshot(keepingSource(snapshot));
    changed.remove('d10');
    changed.upsert(doc('late', { title: 'harbour light at night' }));
    original.remove('d10');
    original.upsert(doc('late', { title: 'harbour light at night' }));
    expect(Buffer.from(changed.toSnapshot()).equals(original.toSnapshot())).toBe(true);
  });

  it('reads the stream from the snapshot just written, and only from one of its own state', () => {
    const index = indexOf(documents(2_000));
    const expected = answers(index);
    const before = index.byteSize();
    const written = keepingSource(index.toSnapshot());
    expect(index.keepForwardIn(written)).toBe(true);
    expect(index.forwardOnDisk).toBe(true);
    expect(index.byteSize()).toBeLessThan(before - 10_000);
    expect(answers(index)).toEqual(expected);

    // another snapshot of it (after changes) replaces the file read; the first is let go
    index.upsert(doc('late', { title: 'harbour light' }));
    const second = keepingSource(index.toSnapshot());
    expect(index.keepForwardIn(second)).toBe(true);
    expect(written.released).toBe(1);
    expect(index.search({ phrase: '"harbour light"', mode: 'precise', limit: 500 }).ids).toContain('late');

    // a snapshot of another state is refused, and what it lent is given back
    const other = keepingSource(indexOf(documents(2_000, 'x')).toSnapshot());
    index.remove('late');
    expect(index.keepForwardIn(other)).toBe(false);
    expect(other.kept).toBe(other.released);

    index.release();
    expect(second.released).toBe(1);
  });
});
