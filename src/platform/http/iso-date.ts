/*
 * The one reader of ISO 8601 dates in requests. Every date parameter of the API is validated
 * by it (it backs the schema formats `date` and `date-time`, see validators.ts) and read by
 * it, so that a date refused in one place is refused everywhere: 2026-02-30 is not a day of
 * the calendar, on downloads history as on generation history or search.
 */

/**
 * YYYY-MM-DD, then optionally THH:MM[:SS[.fraction]] and a zone (Z or ±HH[:MM]); t and z in
 * either case. No space for the T: a URL would have to escape it.
 */
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/;

/** The first and last days a date parameter may name: four-digit years, from year 1. */
export const EARLIEST_DATE = '0001-01-01';
export const LATEST_DATE = '9999-12-31';

/** A date or date-time as read: its instant, and whether it named a whole day. */
export interface IsoInstant {
  /** Milliseconds since the epoch (UTC unless the text gave a zone); a date alone is its first millisecond. */
  readonly millis: number;
  /** Microseconds within the millisecond, from a fraction finer than milliseconds (0 to 999). */
  readonly micros: number;
  /** A date without a time: the whole day. */
  readonly dateOnly: boolean;
  /** The text gave a zone (Z or an offset). */
  readonly zoned: boolean;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Date.UTC reads the years 0 to 99 as 1900 to 1999; this does not. */
function utcMillis(year: number, month: number, day: number, hour: number, minute: number, second: number): number {
  const date = new Date(Date.UTC(2000, month - 1, day, hour, minute, second));
  date.setUTCFullYear(year);
  return date.getTime();
}

/** Reads an ISO 8601 date or date-time of the calendar; undefined for anything else (2026-02-30, 24:00, +25:00). */
export function readIsoDate(text: string): IsoInstant | undefined {
  const match = ISO_DATE.exec(text.trim());
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s, fraction, zone] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h ?? 0);
  const minute = Number(mi ?? 0);
  const second = Number(s ?? 0);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  if (h === undefined && zone !== undefined) return undefined;
  let offsetMinutes = 0;
  if (zone !== undefined && zone.toUpperCase() !== 'Z') {
    const digits = zone.slice(1).replace(':', '');
    const zoneHours = Number(digits.slice(0, 2));
    const zoneMinutes = Number(digits.slice(2) || '0');
    if (zoneHours > 23 || zoneMinutes > 59) return undefined;
    offsetMinutes = (zone.startsWith('-') ? -1 : 1) * (zoneHours * 60 + zoneMinutes);
  }
  const digits = (fraction ?? '').padEnd(6, '0');
  const millis = utcMillis(year, month, day, hour, minute, second) + Number(digits.slice(0, 3)) - offsetMinutes * 60_000;
  return { millis, micros: Number(digits.slice(3, 6)), dateOnly: h === undefined, zoned: zone !== undefined };
}

/** A date alone: YYYY-MM-DD of the calendar. */
export function isIsoDay(text: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(text) && readIsoDate(text) !== undefined;
}

/** A date-time (the date with a time); a zone is optional (UTC without one). */
export function isIsoDateTime(text: string): boolean {
  const read = readIsoDate(text);
  return read !== undefined && !read.dateOnly;
}

const DAY_MS = 86_400_000;

/**
 * A date bound of a range in epoch milliseconds: a date alone as a lower bound is its first
 * millisecond, as an upper bound its last (the whole day is in); a date-time is its instant.
 */
export function isoBound(text: string, bound: 'from' | 'to'): number | undefined {
  const read = readIsoDate(text);
  if (!read) return undefined;
  return read.dateOnly && bound === 'to' ? read.millis + DAY_MS - 1 : read.millis;
}

/** What a date parameter's error says it should be. */
export const ISO_DATE_EXPECTED = 'an ISO 8601 date (YYYY-MM-DD) or date-time (e.g. 2024-03-09T10:00:00Z) of the calendar';
export const ISO_DAY_EXPECTED = 'an ISO 8601 date (YYYY-MM-DD) of the calendar';
