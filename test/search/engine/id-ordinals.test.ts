import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../src/platform/seeded-random.js';
import { IdOrdinals } from '../../../src/search/engine/id-ordinals.js';
import { PackedStrings } from '../../../src/search/engine/packed-strings.js';
import { hashString } from '../../../src/search/engine/typed-arrays.js';

/** Documents appended one after another, as a keyword column appends its values: an id and its hash per ordinal. */
class Documents {
  ids = new PackedStrings();
  idHash: Uint32Array | undefined = new Uint32Array(100_000);

  append(id: string): number {
    if (this.idHash !== undefined) this.idHash[this.ids.length] = hashString(id);
    this.ids.append(id);
    return this.ids.length - 1;
  }
}

/** Documents that keep no hashes, as the index's own ids: the table makes each from the id's bytes. */
class UnhashedDocuments extends Documents {
  override idHash = undefined;
}

describe.each([
  { kind: 'with kept hashes', Kind: Documents },
  { kind: 'hashing the ids', Kind: UnhashedDocuments },
])('id ordinals ($kind)', ({ Kind }) => {
  const Documents = Kind;
  it('answer as a Map through inserts, replacements and deletions (runs shifted back), growing as they fill', () => {
    const random = seededRandom(11);
    const documents = new Documents();
    const table = new IdOrdinals(documents);
    const model = new Map<string, number>();
    for (let step = 0; step < 60_000; step++) {
      const id = `${Math.floor(random() * 5_000)}`;
      const existing = table.get(id);
      expect(existing).toBe(model.get(id) ?? -1);
      if (random() < 0.3 && existing >= 0) {
        table.delete(existing);
        model.delete(id);
      } else {
        // a replacement: the old ordinal's id is deleted first, as the index does
        if (existing >= 0) table.delete(existing);
        const ordinal = documents.append(id);
        table.set(ordinal);
        model.set(id, ordinal);
      }
      expect(table.size).toBe(model.size);
    }
    for (let i = 0; i < 5_000; i++) expect(table.get(`${i}`)).toBe(model.get(`${i}`) ?? -1);
    expect(table.get('absent')).toBe(-1);
  });

  it('forget a deleted ordinal only while its id still maps to it', () => {
    const documents = new Documents();
    const table = new IdOrdinals(documents);
    const first = documents.append('a');
    table.set(first);
    const second = documents.append('a');
    table.set(second);
    expect(table.get('a')).toBe(second);
    table.delete(first);
    expect(table.get('a')).toBe(second);
    table.delete(second);
    expect(table.has('a')).toBe(false);
    expect(table.size).toBe(0);
  });

  it('find ids past Latin-1 (kept aside by the packed ids) and the empty id like any other', () => {
    const documents = new Documents();
    const table = new IdOrdinals(documents);
    const ids = ['日本', '', 'Ā', 'café', '😀'];
    for (const id of ids) table.set(documents.append(id));
    ids.forEach((id, ordinal) => expect(table.get(id)).toBe(ordinal));
    expect(table.get('日')).toBe(-1);
    const replaced = documents.append('日本');
    table.set(replaced);
    expect(table.get('日本')).toBe(replaced);
    expect(table.size).toBe(ids.length);
  });

  it('map exactly the first ordinals after a rebuild', () => {
    const documents = new Documents();
    const table = new IdOrdinals(documents);
    for (let i = 0; i < 1_000; i++) table.set(documents.append(`id-${i}`));
    documents.ids = PackedStrings.from(Array.from({ length: 500 }, (_, i) => `id-${500 + i}`));
    if (documents.idHash !== undefined) documents.idHash = documents.idHash.slice(500);
    table.rebuild(300);
    expect(table.size).toBe(300);
    expect(table.get('id-500')).toBe(0);
    expect(table.get('id-799')).toBe(299);
    expect(table.get('id-800')).toBe(-1);
    expect(table.get('id-0')).toBe(-1);
    expect(table.byteSize()).toBe(512 * 4);
  });
});
