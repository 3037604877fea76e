import { describe, expect, it } from 'vitest';
import { normalizeSearchParameters } from '../../../src/search/params/normalize.js';
import { apiError } from './helpers.js';

describe('event search needs phrase or editorial_segment (400 SearchPhraseOrEditorialSegmentRequired)', () => {
  it('refuses a search with neither', () => {
    for (const query of [{}, { phrase: '' }, { phrase: '   ' }, { phrase: '---' }, { phrase: '"" - !' }, { editorial_segment: '' }, { date_from: '2024-01-01', page: '2' }]) {
      const error = apiError(() => normalizeSearchParameters('events', query));
      expect(error.statusCode, JSON.stringify(query)).toBe(400);
      expect(error.code, JSON.stringify(query)).toBe('SearchPhraseOrEditorialSegmentRequired');
      expect(error.message).toBe('At least one of phrase and editorial_segment must be given');
    }
  });

  it('takes a phrase, a segment, or both', () => {
    expect(normalizeSearchParameters('events', { phrase: 'regatta' })).toMatchObject({ phrase: 'regatta', filters: {} });
    expect(normalizeSearchParameters('events', { editorial_segment: 'Sport' })).toMatchObject({ phrase: '', filters: { editorial_segment: 'sport' } });
    expect(normalizeSearchParameters('events', { phrase: 'regatta', editorial_segment: 'news', sort_order: 'oldest' })).toMatchObject({
      phrase: 'regatta',
      sort_order: 'oldest',
      filters: { editorial_segment: 'news' },
    });
  });

  it('checks the segment before the rule: a bad segment is a bad value, not a missing one', () => {
    expect(apiError(() => normalizeSearchParameters('events', { editorial_segment: 'weather' })).message).toBe(
      "Invalid value for parameter 'editorial_segment': 'weather' is not one of archival, entertainment, news, publicity, royalty, sport",
    );
  });

  it('has no such rule on the other searches', () => {
    expect(normalizeSearchParameters('images_editorial', {}).phrase).toBe('');
    expect(normalizeSearchParameters('videos_creative', {}).phrase).toBe('');
  });
});
