import { describe, expect, it } from 'vitest';
import { normalizeIsoDate, parseManifestLine } from '../../src/catalog/ingest/ingest.schemas.js';

function reason(value: unknown): string {
  const result = parseManifestLine(value);
  if (result.ok) throw new Error(`expected a refusal, got ${JSON.stringify(result.record)}`);
  return result.reason;
}

describe('manifest line schema', () => {
  it('suggests the known field meant by a misspelt one, at any depth, and none when none is close', () => {
    expect(reason({ asset_type: 'image', id: 'a', titel: 'x' })).toBe("unknown field 'titel' (did you mean 'title'?)");
    expect(reason({ asset_type: 'image', id: 'a', Caption: 'x' })).toBe("unknown field 'Caption' (did you mean 'caption'?)");
    expect(reason({ asset_type: 'image', id: 'a', keyword: ['x'] })).toBe("unknown field 'keyword' (did you mean 'keywords'?)");
    expect(reason({ asset_type: 'video', id: 'a', clip_lenght: '00:00:01:00' })).toBe("unknown field 'clip_lenght' (did you mean 'clip_length'?)");
    expect(reason({ asset_type: 'image', id: 'a', allowed_use: { release_inf: 'x' } })).toBe(
      "unknown field 'allowed_use/release_inf' (did you mean 'release_info'?)",
    );
    expect(reason({ asset_type: 'event', id: 1, nme: 'x', name: 'y' })).toBe("unknown field 'nme' (did you mean 'name'?)");
    expect(reason({ asset_type: 'image', id: 'a', ab: 1 })).toBe("unknown field 'ab'");
    expect(reason({ asset_type: 'image', id: 'a', popularity: 1 })).toBe("unknown field 'popularity'");
  });

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

  it('normalises each line’s dates as its own check read them, not as an earlier line’s were', () => {
    // The check keeps the dates it normalised for the line's normalising; each line starts afresh.
    const dates = (value: Record<string, unknown>) => {
      const result = parseManifestLine({ asset_type: 'image', id: 'a', ...value });
      if (!result.ok) return result.reason;
      const record = result.record as { date_created?: string; date_submitted?: string };
      return [record.date_created, record.date_submitted];
    };
    expect(dates({ date_created: '2024-02-29T10:00:00+02:00', date_submitted: '2024-02-29T10:00:00+02:00' })).toEqual(['2024-02-29T08:00:00Z', '2024-02-29T08:00:00Z']);
    expect(dates({ date_created: '2024-02-29T10:00:00-03:00' })).toEqual(['2024-02-29T13:00:00Z', undefined]);
    expect(dates({ date_created: '2023-02-29' })).toMatch(/^date_created must be an ISO 8601 date/);
    expect(dates({ date_submitted: '2023-03-01 23:30:00+01:00' })).toEqual([undefined, '2023-03-01T22:30:00Z']);
    const event = parseManifestLine({ asset_type: 'event', id: 9, name: 'Final', start_date: '2024-02-29T10:00:00+02:00' });
    expect(event.ok && event.record).toMatchObject({ start_date: '2024-02-29T08:00:00Z' });
  });

  it('uses the video spellings and ranges for video lines', () => {
    expect(reason({ asset_type: 'video', id: 'v', orientation: 'Horizontal' })).toMatch(/^orientation must be one of horizontal, vertical/);
    expect(reason({ asset_type: 'video', id: 'v', quality_rank: 5 })).toBe('quality_rank must be ≤ 4 (got 5)');
    expect(reason({ asset_type: 'video', id: 'v', clip_length: '00:61:00:00' })).toMatch(/^clip_length must be a clip length/);
    expect(reason({ asset_type: 'video', id: 'v', prestige: true })).toBe("unknown field 'prestige'");
    expect(parseManifestLine({ asset_type: 'video', id: 'v', clip_length: '01:02:03:29' }).ok).toBe(true);
  });

  it('takes the video facts the search filters read, in the filters’ own values', () => {
    const facts = {
      editorial_video_type: 'raw',
      fully_released: true,
      image_techniques: ['animation', 'selective_focus'],
      viewpoints: ['aerial_view', 'tracking_shot'],
    };
    expect(parseManifestLine({ asset_type: 'video', id: 'v', ...facts })).toEqual({ ok: true, record: { asset_type: 'video', id: 'v', ...facts } });
    expect(reason({ asset_type: 'video', id: 'v', editorial_video_type: 'edited' })).toBe('editorial_video_type must be one of raw, produced (got "edited")');
    expect(reason({ asset_type: 'video', id: 'v', fully_released: 'yes' })).toBe('fully_released must be true or false (got "yes")');
    expect(reason({ asset_type: 'video', id: 'v', image_techniques: ['Time Lapse'] })).toMatch(/^image_techniques\/0 must be one of realtime, time_lapse/);
    expect(reason({ asset_type: 'video', id: 'v', viewpoints: ['drone'] })).toMatch(/^viewpoints\/0 must be one of lockdown, panning/);
    // Only video search filters on them.
    expect(reason({ asset_type: 'image', id: 'a', viewpoints: ['aerial_view'] })).toBe("unknown field 'viewpoints'");
  });
});

describe('manifest line rules', () => {
  it('rule: every integer is bounded to its column range (0..2147483647, bytes to a safe integer)', () => {
    const INT4_MAX = 2_147_483_647;
    const over = INT4_MAX + 1;
    const image = (fields: Record<string, unknown>) => ({ asset_type: 'image', id: 'a', ...fields });
    const video = (fields: Record<string, unknown>) => ({ asset_type: 'video', id: 'v', ...fields });
    const imageSize = (fields: Record<string, unknown>) => image({ download_sizes: [{ width: 10, height: 10, ...fields }] });
    const cases: Array<[unknown, string]> = [
      [image({ quality_rank: over }), `quality_rank must be ≤ ${INT4_MAX} (got ${over})`],
      [image({ max_dimensions: { width: over, height: 10 } }), `max_dimensions/width must be ≤ ${INT4_MAX} (got ${over})`],
      [image({ max_dimensions: { width: 10, height: over } }), `max_dimensions/height must be ≤ ${INT4_MAX} (got ${over})`],
      [imageSize({ width: over }), `download_sizes/0/width must be ≤ ${INT4_MAX} (got ${over})`],
      [imageSize({ height: over }), `download_sizes/0/height must be ≤ ${INT4_MAX} (got ${over})`],
      [imageSize({ dpi: over }), `download_sizes/0/dpi must be ≤ ${INT4_MAX} (got ${over})`],
      [imageSize({ bytes: 2 ** 53 }), `download_sizes/0/bytes must be ≤ ${Number.MAX_SAFE_INTEGER} (got ${2 ** 53})`],
      [
        video({ download_sizes: [{ width: over, height: 10 }] }),
        `download_sizes/0/width must be ≤ ${INT4_MAX} (got ${over})`,
      ],
      [
        video({ download_sizes: [{ width: 10, height: 10, bytes: 1e20 }] }),
        `download_sizes/0/bytes must be ≤ ${Number.MAX_SAFE_INTEGER} (got 100000000000000000000)`,
      ],
      [video({ quality_rank: 5 }), 'quality_rank must be ≤ 4 (got 5)'],
      [image({ collection_id: over }), `collection_id must be ≤ ${INT4_MAX} (got ${over})`],
      [image({ event_ids: [1, over] }), `event_ids/1 must be ≤ ${INT4_MAX} (got ${over})`],
      [image({ editorial_source: { id: over } }), `editorial_source/id must be ≤ ${INT4_MAX} (got ${over})`],
      [
        image({ partner_licenses: [{ license_type: 'Standard', credits: over }] }),
        `partner_licenses/0/credits must be ≤ ${INT4_MAX} (got ${over})`,
      ],
      [image({ keywords: [{ text: 'k', keyword_id: over }] }), `keywords/0/keyword_id must be ≤ ${INT4_MAX} (got ${over})`],
      [
        image({ keywords: [{ text: 'k', keyword_id: String(over) }] }),
        `keywords/0/keyword_id must be digits of a whole number 0-${INT4_MAX} (got "${over}")`,
      ],
      [image({ keywords: [{ text: 'k', relevance: 6 }] }), 'keywords/0/relevance must be ≤ 5 (got 6)'],
      [{ asset_type: 'event', id: over, name: 'E' }, `id must be ≤ ${INT4_MAX} (got ${over})`],
      [{ asset_type: 'event', id: 1, name: 'E', parent_id: over }, `parent_id must be ≤ ${INT4_MAX} (got ${over})`],
      [
        { asset_type: 'event', id: 1, name: 'E', keywords: [{ text: 'k', keyword_id: over }] },
        `keywords/0/keyword_id must be ≤ ${INT4_MAX} (got ${over})`,
      ],
    ];
    for (const [line, expected] of cases) expect([line, reason(line)]).toEqual([line, expected]);

    const atTheBounds = [
      image({
        quality_rank: INT4_MAX,
        max_dimensions: { width: INT4_MAX, height: INT4_MAX },
        download_sizes: [{ width: INT4_MAX, height: INT4_MAX, dpi: INT4_MAX, bytes: Number.MAX_SAFE_INTEGER }],
        collection_id: INT4_MAX,
        event_ids: [INT4_MAX],
        editorial_source: { id: INT4_MAX },
        partner_licenses: [{ license_type: 'Standard', credits: INT4_MAX }],
        keywords: [
          { text: 'a', keyword_id: INT4_MAX },
          { text: 'b', keyword_id: String(INT4_MAX) },
        ],
      }),
      video({ quality_rank: 4, download_sizes: [{ width: INT4_MAX, height: INT4_MAX, bytes: Number.MAX_SAFE_INTEGER }] }),
      { asset_type: 'event', id: INT4_MAX, name: 'E', parent_id: INT4_MAX - 1, keywords: [{ text: 'k', keyword_id: INT4_MAX }] },
    ];
    for (const line of atTheBounds) expect(parseManifestLine(line)).toMatchObject({ ok: true });
  });

  it('rule: a __proto__ key is reported as an unknown field, never dropped', () => {
    // JSON.parse, as for a manifest line, makes __proto__ an ordinary own key.
    const line = (text: string) => JSON.parse(text) as unknown;
    expect(reason(line('{"asset_type":"image","id":"a","__proto__":{"title":"x"}}'))).toBe("unknown field '__proto__'");
    expect(reason(line('{"asset_type":"image","id":"a","__proto__":null}'))).toBe("unknown field '__proto__'");
    expect(reason(line('{"asset_type":"image","id":"a","allowed_use":{"__proto__":{}}}'))).toBe(
      "unknown field 'allowed_use/__proto__'",
    );
    expect(reason(line('{"asset_type":"image","id":"a","entity_details":[{"__proto__":{"polluted":true}}]}'))).toBe(
      "unknown field 'entity_details/0/__proto__'",
    );
    expect(reason(line('{"asset_type":"image","id":"a","alternative_ids":{"__proto__":"x"}}'))).toBe(
      "unknown field 'alternative_ids/__proto__'",
    );
    // asset_type is looked up among the line kinds' own names only.
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expect(reason({ asset_type: name, id: 'a' })).toBe(`asset_type must be one of image, video, event; got "${name}"`);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('rule: alternative_ids keys are never empty, in the map or the {Key, Value} form', () => {
    expect(reason({ asset_type: 'image', id: 'a', alternative_ids: { '': 'x' } })).toBe(
      'alternative_ids: key "" is not allowed; keys must be non-empty',
    );
    expect(reason({ asset_type: 'image', id: 'a', alternative_ids: { legacy: 'L1', '': 'x' } })).toBe(
      'alternative_ids: key "" is not allowed; keys must be non-empty',
    );
    expect(reason({ asset_type: 'image', id: 'a', alternative_ids: [{ Key: '', Value: 'x' }] })).toBe(
      'alternative_ids/0/Key must not be empty',
    );
    expect(parseManifestLine({ asset_type: 'image', id: 'a', alternative_ids: { legacy: '' } })).toMatchObject({
      ok: true,
      record: { alternative_ids: [{ Key: 'legacy', Value: '' }] },
    });
  });
});

describe('normalizeIsoDate', () => {
  /** The instant's UTC text made through a Date, as every date was normalised before UTC ones took a shorter way. */
  function throughDate(year: number, month: number, day: number, hour: number, minute: number, second: number, offsetMinutes: number): string {
    const instant = new Date(0);
    instant.setUTCFullYear(year, month - 1, day);
    instant.setUTCHours(hour, minute - offsetMinutes, second, 0);
    return `${instant.toISOString().slice(0, 19)}Z`;
  }
  const two = (n: number) => String(n).padStart(2, '0');

  it('gives a date in UTC, written any of the accepted ways, the same text as the same instant made through a Date', () => {
    for (const year of [0, 1, 99, 100, 1969, 1970, 2000, 2024, 9999]) {
      for (const [month, day] of [[1, 1], [2, 28], [12, 31]] as const) {
        for (const [hour, minute, second] of [[0, 0, 0], [23, 59, 59], [7, 5, 9]] as const) {
          const date = `${String(year).padStart(4, '0')}-${two(month)}-${two(day)}`;
          const time = `${two(hour)}:${two(minute)}:${two(second)}`;
          const expected = throughDate(year, month, day, hour, minute, second, 0);
          for (const text of [`${date}T${time}Z`, `${date} ${time}`, `${date}T${time}.123Z`, `${date}T${time}+00:00`, `${date}T${time}-0000`]) {
            expect(normalizeIsoDate(text), text).toBe(expected);
          }
          expect(normalizeIsoDate(`${date}T${two(hour)}:${two(minute)}Z`)).toBe(throughDate(year, month, day, hour, minute, 0, 0));
        }
        expect(normalizeIsoDate(`${String(year).padStart(4, '0')}-${two(month)}-${two(day)}`)).toBe(throughDate(year, month, day, 0, 0, 0, 0));
      }
    }
  });

  it('still moves a date with an offset to UTC, and refuses an impossible one', () => {
    expect(normalizeIsoDate('2024-03-01T01:30:00+02:00')).toBe('2024-02-29T23:30:00Z');
    expect(normalizeIsoDate('2023-12-31T23:00:00-01:30')).toBe('2024-01-01T00:30:00Z');
    expect(normalizeIsoDate('2023-02-29T00:00:00Z')).toBeUndefined();
    expect(normalizeIsoDate('2024-02-30')).toBeUndefined();
    expect(normalizeIsoDate('2024-01-01T24:00:00Z')).toBeUndefined();
  });
});
