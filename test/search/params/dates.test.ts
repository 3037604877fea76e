import { describe, expect, it } from 'vitest';
import { parseIsoDate } from '../../../src/search/params/normalize.js';
import { apiError, endpointsWith, filters, search } from './helpers.js';

const seconds = (iso: string) => Date.parse(iso) / 1000;

describe('dates: ISO 8601 dates or date-times as epoch seconds; impossible dates refused', () => {
  it('applies to editorial image, editorial video and event search', () => {
    expect(endpointsWith('date_from').sort()).toEqual(['events', 'images_editorial', 'videos_editorial']);
    expect(endpointsWith('date_to').sort()).toEqual(['events', 'images_editorial', 'videos_editorial']);
  });

  it.each(['events', 'images_editorial', 'videos_editorial'] as const)('%s', (endpoint) => {
    // A date alone: from its first second to its last (UTC).
    expect(filters(endpoint, { date_from: '2024-03-09', date_to: '2024-03-09' }).date_range).toEqual({
      from: seconds('2024-03-09T00:00:00Z'),
      to: seconds('2024-03-09T23:59:59Z'),
    });
    expect(filters(endpoint, { date_from: '2024-03-09T10:00:00Z' }).date_range).toEqual({ from: seconds('2024-03-09T10:00:00Z') });
    expect(filters(endpoint, { date_to: '2024-03-09T10:00:00+11:00' }).date_range).toEqual({ to: seconds('2024-03-08T23:00:00Z') });
    expect(filters(endpoint).date_range).toBeUndefined();
    const error = apiError(() => search(endpoint, { date_from: '2023-02-29' }));
    expect(error.code).toBe('InvalidParameterValue');
    expect(error.message).toMatch(/^Invalid value for parameter 'date_from': '2023-02-29' is not an ISO 8601 date/);
    expect(apiError(() => search(endpoint, { date_to: 'yesterday' })).message).toMatch(/^Invalid value for parameter 'date_to': 'yesterday'/);
  });

  it('reads the forms of ISO 8601 the API documents: UTC unless a zone is given', () => {
    expect(parseIsoDate('2024-03-09', 'from')).toBe(seconds('2024-03-09T00:00:00Z'));
    expect(parseIsoDate('2024-03-09', 'to')).toBe(seconds('2024-03-09T23:59:59Z'));
    expect(parseIsoDate('2024-03-09T10:20', 'from')).toBe(seconds('2024-03-09T10:20:00Z'));
    expect(parseIsoDate('2024-03-09T10:20:30', 'to')).toBe(seconds('2024-03-09T10:20:30Z'));
    expect(parseIsoDate('2024-03-09T10:20:30.999Z', 'from')).toBe(seconds('2024-03-09T10:20:30Z'));
    expect(parseIsoDate('2024-03-09T00:00:00-00:00', 'from')).toBe(seconds('2024-03-09T00:00:00Z'));
    expect(parseIsoDate('2024-03-09T10:00:00-0530', 'from')).toBe(seconds('2024-03-09T15:30:00Z'));
    expect(parseIsoDate('2024-03-09T10:00:00+02', 'from')).toBe(seconds('2024-03-09T08:00:00Z'));
    expect(parseIsoDate('2024-03-09t10:00:00z', 'from')).toBe(seconds('2024-03-09T10:00:00Z'));
    expect(parseIsoDate('2024-02-29', 'from')).toBe(seconds('2024-02-29T00:00:00Z'));
    expect(parseIsoDate('2000-02-29', 'from')).toBe(seconds('2000-02-29T00:00:00Z'));
  });

  it('refuses impossible and malformed dates', () => {
    for (const bad of [
      '2023-02-29', '1900-02-29', '2024-04-31', '2024-13-01', '2024-00-10', '2024-01-00', '2024-01-32',
      '2024-03-09T24:00:00Z', '2024-03-09T10:60:00Z', '2024-03-09T10:00:60Z', '2024-03-09T10:00:00+25:00',
      '2024-3-9', '09/03/2024', '20240309', '2024-03-09T', '2024-03-09 10:00', '', 'now',
    ]) {
      expect(parseIsoDate(bad, 'from'), bad).toBeUndefined();
    }
  });

  it('refuses a date_to before date_from', () => {
    expect(filters('events', { date_from: '2024-03-09', date_to: '2024-03-09' }).date_range).toBeDefined();
    const error = apiError(() => search('images_editorial', { date_from: '2024-03-10', date_to: '2024-03-09' }));
    expect(error.message).toBe("Invalid value for parameter 'date_to': is before date_from");
  });
});
