import { describe, expect, it } from 'vitest';
import { doc, filler, indexOf } from './fixtures.js';

/* Completions of a prefix from the index's vocabulary: what the catalogue browser suggests as a person types. */
describe('completions', () => {
  const index = indexOf([
    doc('a', { title: 'marathon runners at the finish' }),
    doc('b', { title: 'marathon crowd' }),
    doc('c', { title: 'a marsh at dawn' }),
    doc('d', { title: 'market stalls' }),
    ...filler(10),
  ]);

  it('gives the terms that begin with the prefix, the most documents first, then in string order', () => {
    expect(index.completions('mar', 10)).toEqual(['marathon', 'market', 'marsh']);
    expect(index.completions('MARA', 10)).toEqual(['marathon']);
  });

  it('keeps to the limit, and gives nothing for an empty prefix or one no term begins with', () => {
    expect(index.completions('mar', 1)).toEqual(['marathon']);
    expect(index.completions('', 10)).toEqual([]);
    expect(index.completions('qqz', 10)).toEqual([]);
  });

  it('forgets the terms of removed documents', () => {
    const changing = indexOf([doc('x', { title: 'mariner' }), doc('y', { title: 'marina' }), ...filler(5)]);
    changing.remove('x');
    expect(changing.completions('mari', 10)).toEqual(['marina']);
  });
});
