import { describe, expect, it } from 'vitest';
import { utcDateTime } from '../../src/platform/http/date-time.js';

describe('utcDateTime: the one form of a date-time in an answer', () => {
  it('writes YYYY-MM-DDTHH:MM:SSZ in UTC, dropping a fraction rather than rounding it into the next second', () => {
    expect(utcDateTime('2026-03-09T10:00:59.999Z')).toBe('2026-03-09T10:00:59Z');
    expect(utcDateTime('2026-11-24T20:52:10.000002Z')).toBe('2026-11-24T20:52:10Z');
    expect(utcDateTime('2026-03-09T12:00:00+02:00')).toBe('2026-03-09T10:00:00Z');
    expect(utcDateTime(new Date(Date.UTC(2026, 0, 1, 23, 59, 59, 500)))).toBe('2026-01-01T23:59:59Z');
    expect(utcDateTime(null)).toBeNull();
  });

  it('refuses text that is no date-time, rather than writing "Invalid Date"', () => {
    expect(() => utcDateTime('not a date')).toThrow(RangeError);
  });
});
