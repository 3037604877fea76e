import { describe, expect, it } from 'vitest';
import { PAGE_SIZES, type SearchEndpoint } from '../../../src/search/params/search-values.js';
import { apiError, endpointsWith, search } from './helpers.js';

const PAGED = endpointsWith('page');

function pageOf(endpoint: SearchEndpoint, query: Record<string, unknown>) {
  const result = search(endpoint, query);
  if (!('page' in result)) throw new Error(`${endpoint} is not paged`);
  return { page: result.page, page_size: result.page_size };
}

describe('page: from 1, default 1; at most 50 on event search; otherwise 400 InvalidPage', () => {
  it('pages every search but the affiliate ones', () => {
    expect(PAGED).toHaveLength(15);
    expect(PAGED).not.toContain('affiliates_images');
    expect(PAGED).not.toContain('affiliates_videos');
  });

  it.each(PAGED)('%s', (endpoint) => {
    expect(pageOf(endpoint, {}).page).toBe(1);
    expect(pageOf(endpoint, { page: '7' }).page).toBe(7);
    expect(pageOf(endpoint, { page: 7 }).page).toBe(7);
    for (const bad of ['0', '-1', 'abc', '1.5', '', 0]) {
      const error = apiError(() => search(endpoint, { page: bad }));
      expect(error.statusCode, String(bad)).toBe(400);
      expect(error.code, String(bad)).toBe('InvalidPage');
      expect(error.message).toMatch(/^Invalid value for parameter 'page': /);
    }
    expect(apiError(() => search(endpoint, { page: ['1', '2'] })).code).toBe('InvalidPage');
  });

  it('stops event search at page 50', () => {
    expect(pageOf('events', { page: '50' }).page).toBe(50);
    const error = apiError(() => search('events', { page: '51' }));
    expect(error.code).toBe('InvalidPage');
    expect(error.message).toBe("Invalid value for parameter 'page': '51': at most 50 pages can be requested");
    expect(pageOf('images', { page: '51' }).page).toBe(51);
  });
});

describe("page_size: only the spec's sizes, default 30 (10 on the artists endpoints); otherwise 400 InvalidPageSize", () => {
  it.each(PAGED)('%s', (endpoint) => {
    const expectedDefault = endpoint.startsWith('artists_') ? 10 : 30;
    expect(pageOf(endpoint, {}).page_size).toBe(expectedDefault);
    for (const size of PAGE_SIZES) {
      expect(pageOf(endpoint, { page_size: String(size) }).page_size).toBe(size);
      expect(pageOf(endpoint, { page_size: size }).page_size).toBe(size);
    }
    for (const bad of ['7', '0', '101', '200', '-5', 'ten', '30.0', '']) {
      const error = apiError(() => search(endpoint, { page_size: bad }));
      expect(error.statusCode, bad).toBe(400);
      expect(error.code, bad).toBe('InvalidPageSize');
    }
  });

  it('says which sizes are allowed', () => {
    expect(apiError(() => search('images', { page_size: '7' })).message).toBe(
      "Invalid value for parameter 'page_size': '7' is not one of 1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 25, 30, 50, 60, 75, 100",
    );
  });
});
