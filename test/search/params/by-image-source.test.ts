import { describe, expect, it } from 'vitest';
import { normalizeSearchParameters } from '../../../src/search/params/normalize.js';
import { apiError } from './helpers.js';

const BY_IMAGE = ['images_creative_by_image', 'videos_creative_by_image'] as const;

describe('search by image takes exactly one of asset_id and image_url', () => {
  it.each(BY_IMAGE)('%s', (endpoint) => {
    expect(normalizeSearchParameters(endpoint, { asset_id: ' 1000001 ' }).source).toEqual({ asset_id: '1000001' });
    const url = 'http://stockroom.test/v3/search/by-image/uploads/dawn.jpg';
    expect(normalizeSearchParameters(endpoint, { image_url: url }).source).toEqual({ image_url: url });

    const neither = apiError(() => normalizeSearchParameters(endpoint, {}));
    expect(neither.statusCode).toBe(400);
    expect(neither.code).toBe('InvalidParameterValue');
    expect(neither.message).toBe("Exactly one of the parameters 'asset_id' and 'image_url' is required; neither was given");
    expect(apiError(() => normalizeSearchParameters(endpoint, { asset_id: '', image_url: ' ' })).message).toContain('neither');

    const both = apiError(() => normalizeSearchParameters(endpoint, { asset_id: '1000001', image_url: url }));
    expect(both.code).toBe('InvalidParameterValue');
    expect(both.message).toBe("Exactly one of the parameters 'asset_id' and 'image_url' is required; both were given");
  });

  it.each(BY_IMAGE)('refuses an image_url that is not an absolute http(s) URL on %s', (endpoint) => {
    for (const bad of ['dawn.jpg', '/v3/search/by-image/uploads/dawn.jpg', 'ftp://host/dawn.jpg', 'javascript:alert(1)']) {
      const error = apiError(() => normalizeSearchParameters(endpoint, { image_url: bad }));
      expect(error.code, bad).toBe('InvalidParameterValue');
      expect(error.message, bad).toBe(`Invalid value for parameter 'image_url': '${bad}' is not an absolute http or https URL`);
    }
  });
});
