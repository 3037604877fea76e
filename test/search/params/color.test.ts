import { describe, expect, it } from 'vitest';
import { apiError, endpointsWith, filters, search } from './helpers.js';

describe('color is hex RGB, #RRGGBB or RRGGBB', () => {
  it('is a filter of the blended, creative and editorial image searches', () => {
    expect(endpointsWith('color').sort()).toEqual(['images', 'images_creative', 'images_editorial']);
  });

  it.each(['images', 'images_creative', 'images_editorial'] as const)('%s', (endpoint) => {
    expect(filters(endpoint, { color: '#002244' }).color).toBe('#002244');
    expect(filters(endpoint, { color: '002244' }).color).toBe('#002244');
    expect(filters(endpoint, { color: 'ABCdef' }).color).toBe('#abcdef');
    expect(filters(endpoint, { color: '' })).not.toHaveProperty('color');
    for (const bad of ['#abc', 'abc', 'red', '#0022445', '#00224G', '##002244', 'rgb(0,34,68)']) {
      const error = apiError(() => search(endpoint, { color: bad }));
      expect(error.code, bad).toBe('InvalidParameterValue');
      expect(error.message, bad).toBe(`Invalid value for parameter 'color': '${bad}' is not a hex RGB colour (#RRGGBB or RRGGBB)`);
    }
  });
});
