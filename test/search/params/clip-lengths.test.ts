import { describe, expect, it } from 'vitest';
import { apiError, endpointsWith, filters, search } from './helpers.js';

const VIDEO_SEARCHES = ['videos', 'videos_creative', 'videos_editorial', 'videos_creative_by_image'] as const;

describe('clip lengths: whole seconds from 0, 0 is no limit, min at most max', () => {
  it('applies to every video search (spec: all video search endpoints)', () => {
    expect(endpointsWith('min_clip_length').sort()).toEqual([...VIDEO_SEARCHES].sort());
    expect(endpointsWith('max_clip_length').sort()).toEqual([...VIDEO_SEARCHES].sort());
  });

  it.each(VIDEO_SEARCHES)('%s', (endpoint) => {
    expect(filters(endpoint, { min_clip_length: '5', max_clip_length: '30' })).toMatchObject({ min_clip_length: 5, max_clip_length: 30 });
    expect(filters(endpoint, { min_clip_length: 5, max_clip_length: 5 })).toMatchObject({ min_clip_length: 5, max_clip_length: 5 });
    // 0, the default, is no limit at all.
    const unlimited = filters(endpoint, { min_clip_length: '0', max_clip_length: '0' });
    expect(unlimited).not.toHaveProperty('min_clip_length');
    expect(unlimited).not.toHaveProperty('max_clip_length');
    expect(filters(endpoint, { min_clip_length: '60', max_clip_length: '0' })).toMatchObject({ min_clip_length: 60 });
    for (const name of ['min_clip_length', 'max_clip_length']) {
      for (const bad of ['-1', '1.5', 'ten', '2147483648']) {
        const error = apiError(() => search(endpoint, { [name]: bad }));
        expect(error.code, `${name}=${bad}`).toBe('InvalidParameterValue');
        expect(error.message).toMatch(new RegExp(`^Invalid value for parameter '${name}': '${bad.replace('.', '\\.')}'`));
      }
    }
    const error = apiError(() => search(endpoint, { min_clip_length: '31', max_clip_length: '30' }));
    expect(error.message).toBe("Invalid value for parameter 'max_clip_length': 30 is less than min_clip_length 31");
  });
});
