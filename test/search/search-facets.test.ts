import { describe, expect, it } from 'vitest';
import { facetId, facetsResponse, resolveFacets, type FacetContext } from '../../src/search/search-facets.js';
import type { FacetCount } from '../../src/search/engine/types.js';

/** The `facets` object of a response, as a search route gives it. */
async function shapeFacets(counts: Readonly<Record<string, FacetCount[]>>, requested: readonly string[], context: FacetContext) {
  return facetsResponse(await resolveFacets(counts, requested, context));
}

const noEvents = { findEvents: async () => [] };

describe('facets in the response', () => {
  const counts = {
    artist: [{ value: 'Maren Holt', count: 3 }],
    location: [
      { value: 'Berlin, Berlin, Germany', count: 2 },
      { value: 'Tokyo, Tokyo, Japan', count: 1 },
      { value: 'Atlantis', count: 1 },
    ],
    person: [{ value: 'Ava Marsh', count: 1 }],
  };

  it('gives country names in the language of Accept-Language, with ids that do not depend on it', async () => {
    const english = await shapeFacets(counts, ['locations'], { language: 'en-US', ...noEvents });
    const german = await shapeFacets(counts, ['locations'], { language: 'de', ...noEvents });
    expect(english.locations).toEqual([
      { id: facetId('Berlin, Berlin, Germany'), name: 'Berlin, Berlin, Germany' },
      { id: facetId('Tokyo, Tokyo, Japan'), name: 'Tokyo, Tokyo, Japan' },
      { id: facetId('Atlantis'), name: 'Atlantis' },
    ]);
    expect(german.locations).toEqual([
      { id: facetId('Berlin, Berlin, Germany'), name: 'Berlin, Berlin, Deutschland' },
      { id: facetId('Tokyo, Tokyo, Japan'), name: 'Tokyo, Tokyo, Japan' },
      // Not a country: left as it is.
      { id: facetId('Atlantis'), name: 'Atlantis' },
    ]);
    const french = await shapeFacets(counts, ['locations'], { language: 'fr-FR', ...noEvents });
    expect((french.locations as Array<{ name: string }>).map((l) => l.name)).toContain('Tokyo, Tokyo, Japon');
  });

  it('gives only the facets asked for, and an empty list for a facet with no values', async () => {
    const facets = await shapeFacets(counts, ['artists', 'specific_people', 'events'], { language: 'en-US', ...noEvents });
    expect(facets).toEqual({ artists: [{ name: 'Maren Holt' }], specific_people: [{ id: facetId('Ava Marsh'), name: 'Ava Marsh' }], events: [] });
  });

  it('names events from the catalogue, in the order of their counts, and drops an event that is gone', async () => {
    const facets = await shapeFacets({ event_id: [{ value: '12', count: 5 }, { value: '13', count: 2 }, { value: '11', count: 1 }] }, ['events'], {
      language: 'en-US',
      findEvents: async (ids) =>
        ids
          .filter((id) => id !== 13)
          .map((id) => ({ id, name: `Event ${id}`, start_date: '2024-01-01T00:00:00Z' }) as never),
    });
    expect(facets.events).toEqual([
      { id: 12, name: 'Event 12', date: '2024-01-01T00:00:00Z' },
      { id: 11, name: 'Event 11', date: '2024-01-01T00:00:00Z' },
    ]);
  });

  it('keeps each value\'s count and the text it filters by, for a page that shows both', async () => {
    const facets = await resolveFacets(counts, ['locations', 'specific_people'], { language: 'de', ...noEvents });
    expect(facets).toEqual({
      locations: [
        { value: 'Berlin, Berlin, Germany', label: 'Berlin, Berlin, Deutschland', count: 2 },
        { value: 'Tokyo, Tokyo, Japan', label: 'Tokyo, Tokyo, Japan', count: 1 },
        { value: 'Atlantis', label: 'Atlantis', count: 1 },
      ],
      specific_people: [{ value: 'Ava Marsh', label: 'Ava Marsh', count: 1 }],
    });
  });

  it('numbers a value the same way every time', () => {
    expect(facetId('Maren Holt')).toBe(facetId('Maren Holt'));
    expect(facetId('Maren Holt')).not.toBe(facetId('Maren  Holt'));
    expect(Number.isInteger(facetId('x')) && facetId('x') >= 0 && facetId('x') < 2 ** 31).toBe(true);
  });
});
