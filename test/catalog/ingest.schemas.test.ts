import { describe, expect, it } from 'vitest';
import { parseManifestLine } from '../../src/catalog/ingest/ingest.schemas.js';

function reason(value: unknown): string {
  const result = parseManifestLine(value);
  if (result.ok) throw new Error(`expected a refusal, got ${JSON.stringify(result.record)}`);
  return result.reason;
}

describe('manifest line schema', () => {
  it('names the field and the fault in each reason', () => {
    expect(reason({ asset_type: 'image', id: 'a', colour: 'red' })).toBe("unknown field 'colour'");
    expect(reason({ asset_type: 'image', id: 'a', allowed_use: { how: 'x' } })).toBe("unknown field 'allowed_use/how'");
    expect(reason({ asset_type: 'image', id: 'a', keywords: ['x', 'y', { text: 'z', relevance: 6 }] })).toBe(
      'keywords/2/relevance must be ≤ 5 (got 6)',
    );
    expect(reason({ asset_type: 'image', id: 'a b' })).toMatch(/^id must be 1-64 letters, digits/);
    expect(reason({ asset_type: 'image', id: 'a', orientation: 'horizontal' })).toMatch(
      /^orientation must be one of Horizontal, PanoramicHorizontal/,
    );
    expect(reason({ asset_type: 'image', id: 'a', editorial_segments: ['sports'] })).toMatch(/^editorial_segments\/0 must be one of archival/);
    expect(reason({ asset_type: 'image', id: 'a', keywords: [5] })).toMatch(/^keywords\/0 must be a string or a keyword object/);
    expect(reason({ asset_type: 'image', id: 'a', date_created: '2023-02-29' })).toMatch(/^date_created must be an ISO 8601 date/);
    expect(reason({ asset_type: 'image', id: 'a', uri_oembed: 'https://x' })).toBe("unknown field 'uri_oembed'");
    expect(reason({ asset_type: 'event', id: 1 })).toBe("missing field 'name'");
    expect(reason({ asset_type: 'clip', id: 'a' })).toMatch(/^asset_type must be one of image, video, event/);
    expect(reason([1, 2])).toBe('a manifest line must be a JSON object');
  });

  it('accepts alternative_ids as the spec’s {Key, Value} array or as a plain map', () => {
    const asArray = parseManifestLine({ asset_type: 'image', id: 'a', alternative_ids: [{ Key: 'legacy', Value: 'L1' }] });
    const asMap = parseManifestLine({ asset_type: 'image', id: 'a', alternative_ids: { legacy: 'L1' } });
    expect(asArray).toEqual(asMap);
    expect(asMap).toMatchObject({ ok: true, record: { alternative_ids: [{ Key: 'legacy', Value: 'L1' }] } });
  });

  it('normalises dates to UTC and turns plain keywords into keyword objects', () => {
    const result = parseManifestLine({
      asset_type: 'image',
      id: 'a',
      date_created: '2024-02-29T10:00:00+02:00',
      date_submitted: '2024-03-01',
      keywords: ['dawn'],
      caption: null,
    });
    expect(result).toEqual({
      ok: true,
      record: {
        asset_type: 'image',
        id: 'a',
        date_created: '2024-02-29T08:00:00Z',
        date_submitted: '2024-03-01T00:00:00Z',
        keywords: [{ text: 'dawn' }],
      },
    });
  });

  it('uses the video spellings and ranges for video lines', () => {
    expect(reason({ asset_type: 'video', id: 'v', orientation: 'Horizontal' })).toMatch(/^orientation must be one of horizontal, vertical/);
    expect(reason({ asset_type: 'video', id: 'v', quality_rank: 5 })).toBe('quality_rank must be ≤ 4 (got 5)');
    expect(reason({ asset_type: 'video', id: 'v', clip_length: '00:61:00:00' })).toMatch(/^clip_length must be a clip length/);
    expect(reason({ asset_type: 'video', id: 'v', prestige: true })).toBe("unknown field 'prestige'");
    expect(parseManifestLine({ asset_type: 'video', id: 'v', clip_length: '01:02:03:29' }).ok).toBe(true);
  });
});
