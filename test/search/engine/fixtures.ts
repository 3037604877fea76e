import { expect } from 'vitest';
import { SearchIndex } from '../../../src/search/engine/search-index.js';
import type { IndexDocument, IndexSchema, SearchQuery } from '../../../src/search/engine/search-index.js';

/** A stock-like schema: title weighs more than keywords, keywords more than the caption. */
export const SCHEMA: IndexSchema = {
  textFields: { title: 3, caption: 1, keywords: 2 },
  keywordAttributes: ['orientation', 'collection', 'segments'],
  numericAttributes: ['date', 'popularity', 'quality'],
};

export interface DocSpec {
  title?: string;
  caption?: string;
  keywords?: string[];
  orientation?: string;
  collection?: string;
  segments?: string[];
  date?: number | null;
  popularity?: number | null;
  quality?: number | null;
}

export function doc(id: string, spec: DocSpec = {}): IndexDocument {
  return {
    id,
    text: { title: spec.title ?? '', caption: spec.caption ?? '', keywords: spec.keywords ?? [] },
    keywords: {
      orientation: spec.orientation === undefined ? [] : [spec.orientation],
      collection: spec.collection === undefined ? [] : [spec.collection],
      segments: spec.segments ?? [],
    },
    numbers: { date: spec.date ?? null, popularity: spec.popularity ?? null, quality: spec.quality ?? null },
  };
}

export function indexOf(docs: readonly IndexDocument[], bulk = true): SearchIndex {
  const index = new SearchIndex(SCHEMA);
  if (bulk) index.upsertMany(docs);
  else for (const item of docs) index.upsert(item);
  return index;
}

/** `count` filler documents without any of the words the tests look for. */
export function filler(count: number, prefix = 'filler'): IndexDocument[] {
  return Array.from({ length: count }, (_, i) =>
    doc(`${prefix}-${String(i).padStart(4, '0')}`, {
      title: `plain item number ${i}`,
      caption: 'nothing to see here at all',
      orientation: i % 2 === 0 ? 'horizontal' : 'vertical',
      collection: `c${i % 3}`,
      date: 1_000 + i,
      popularity: i % 7,
      quality: i % 5,
    }),
  );
}

/**
 * Each page (offset, limit) of a search is its slice of `expected` (the whole ranking); with
 * `total`, every page reports that total too.
 */
export function expectPages(
  index: SearchIndex,
  query: SearchQuery,
  expected: readonly string[],
  pages: ReadonlyArray<readonly [number, number]>,
  total?: number,
): void {
  for (const [offset, limit] of pages) {
    const page = index.search({ ...query, offset, limit });
    if (total !== undefined) expect(page.total).toBe(total);
    expect(page.ids).toEqual(expected.slice(offset, offset + limit));
  }
}
