import { describe, expect, it } from 'vitest';
import { decodeDocuments, encodeDocuments } from '../../../src/search/engine/document-batch.js';
import { IndexBuildThread } from '../../../src/search/engine/index-build-thread.js';
import { SearchIndex, type IndexDocument, type IndexSchema } from '../../../src/search/engine/search-index.js';
import { chunkBytes } from '../../../src/search/engine/snapshot-format.js';
import { SYNTHETIC_SCHEMA, syntheticDocuments } from '../../../bench/fixtures/synthetic-documents.js';
import { SCHEMA, doc } from './fixtures.js';

/*
 * A build from the store appends its documents in a worker thread (IndexBuildThread) while the
 * reading thread makes the next page: the documents cross as a batch of three flat parts, and
 * the index comes back as its snapshot. Whatever crosses, the snapshot must be the very bytes of
 * the same documents indexed in this thread.
 */

function snapshotOf(schema: IndexSchema, docs: readonly IndexDocument[]): Buffer {
  const index = new SearchIndex(schema);
  index.upsertMany(docs);
  index.compact();
  return index.toSnapshot();
}

/** Documents with every shape the index reads, and some it skips. */
function oddDocuments(): IndexDocument[] {
  const plain = doc('plain', { title: 'Harbour lights', caption: 'Boats at night', keywords: ['boat', 'night sky'], orientation: 'horizontal', date: 12, popularity: -0, quality: 2.5 });
  return [
    plain,
    // a text field as one string or a list, a list with values that are not strings, empty values
    { id: 'lists', text: { title: ['Old town', '', 'rain'], caption: 'Ünïcode café — naïve', keywords: ['a', 7 as unknown as string, null as unknown as string, 'b'] }, keywords: { orientation: ['vertical', 'vertical'], collection: [], segments: ['x', 3 as unknown as string] }, numbers: { date: Infinity, popularity: NaN, quality: 1e300 } },
    // fields and attributes left out, numbers missing
    { id: 'bare', text: {}, keywords: {}, numbers: {} },
    { id: 'nulls', text: { title: null as unknown as string }, keywords: { segments: undefined as unknown as string[] }, numbers: { date: null, popularity: 7 } },
    // an id seen before: the later document replaces it
    { ...plain, text: { ...plain.text, title: 'Harbour lights again' } },
    doc('emoji 🚤', { title: 'speed 🚤 boat', keywords: ['🚤'], segments: ['sea'] }),
  ];
}

describe('document batches', () => {
  it('index exactly as the documents they were made from', () => {
    const docs = oddDocuments();
    const batch = encodeDocuments(SCHEMA, docs);
    expect(batch.count).toBe(docs.length);
    expect(snapshotOf(SCHEMA, decodeDocuments(SCHEMA, batch)).equals(snapshotOf(SCHEMA, docs))).toBe(true);
  });

  it('hold documents with many values each', () => {
    const many = Array.from({ length: 3 }, (_, d) =>
      doc(`many-${d}`, { title: 'a long list', keywords: Array.from({ length: 200 + d }, (_, k) => `word${k}`), segments: Array.from({ length: 90 }, (_, k) => `s${k % 40}`) }),
    );
    for (const docs of [many.slice(0, 1), many]) {
      expect(snapshotOf(SCHEMA, decodeDocuments(SCHEMA, encodeDocuments(SCHEMA, docs))).equals(snapshotOf(SCHEMA, docs))).toBe(true);
    }
  });

  it('refuse a document without a string id', () => {
    expect(() => encodeDocuments(SCHEMA, [{ ...doc('x'), id: 5 as unknown as string }])).toThrow(/string id/);
  });

  it('refuse a batch made under another schema', () => {
    const batch = encodeDocuments(SCHEMA, [doc('x', { title: 'one' })]);
    expect(() => decodeDocuments({ ...SCHEMA, keywordAttributes: ['orientation'] }, batch)).toThrow(/does not match its schema/);
  });
});

describe('IndexBuildThread', () => {
  it('hands back the snapshot of the same documents indexed in this thread', async () => {
    const docs = [...syntheticDocuments(3_000, 7)];
    const thread = new IndexBuildThread(SYNTHETIC_SCHEMA);
    // pages of one to 40 documents, more of them than the batches allowed in flight
    for (let start = 0, size = 1; start < docs.length; start += size, size = (size % 40) + 1) await thread.add(docs.slice(start, start + size));
    const built = await thread.finish();
    expect(built.documents).toBe(docs.length);
    const bytes = Buffer.concat(built.chunks.map(chunkBytes));
    expect(bytes.equals(snapshotOf(SYNTHETIC_SCHEMA, docs))).toBe(true);
    // and it loads as any snapshot
    const loaded = SearchIndex.fromSnapshot(bytes);
    expect(loaded.size).toBe(docs.length);
  });

  it('builds an empty index when given nothing', async () => {
    const thread = new IndexBuildThread(SCHEMA);
    await thread.add([]);
    const built = await thread.finish();
    expect(built.documents).toBe(0);
    expect(Buffer.concat(built.chunks.map(chunkBytes)).equals(snapshotOf(SCHEMA, []))).toBe(true);
  });

  it('reports a worker that fails, and refuses more work after it', async () => {
    // the worker's index refuses this schema when it starts
    const thread = new IndexBuildThread({ ...SCHEMA, textFields: { title: -1 } });
    await expect(
      (async () => {
        for (let i = 0; i < 100; i++) await thread.add([doc(`d${i}`, { title: 'x' })]);
        await thread.finish();
      })(),
    ).rejects.toThrow(/weights must be numbers/);
    await expect(thread.add([doc('late')])).rejects.toThrow(/weights must be numbers/);
    await thread.close();
  });

  it('refuses work once closed', async () => {
    const thread = new IndexBuildThread(SCHEMA);
    await thread.add([doc('a', { title: 'one' })]);
    await thread.close();
    await expect(thread.add([doc('b')])).rejects.toThrow(/given up/);
    await expect(thread.finish()).rejects.toThrow(/given up/);
  });
});
