/**
 * Usage dates as partners write them: ISO 8601 dates and date-times, and other forms that
 * name one day only (9 March 2024, March 9, 2024, 2024/03/09, 13/03/2024). A numeric day and
 * month that could be read either way (03/04/2024: 3 April or March 4) are refused, as are
 * two-digit years (which century?).
 */

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH_NAMES = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const WEEKDAY = String.raw`(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*,?\s+)?`;
const TIME = String.raw`(?:[T\s]+(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?\s*(Z|UTC|GMT|[+-]\d{2}:?\d{2})?)?`;

/** The latest offset from UTC any place keeps (Line Islands): a day that has begun there is not in the future. */
const LATEST_OFFSET_MS = 14 * 3_600_000;

export interface UsageDate {
  /** The calendar day of the use, YYYY-MM-DD. */
  day: string;
  /** The instant, when a time with a zone was given (a time without one counts as UTC). */
  instant?: number;
}

export type UsageDateResult = { ok: true; date: UsageDate } | { ok: false; problem: string };

interface Parts {
  year: number;
  month: number;
  day: number;
  time?: { hour: number; minute: number; second: number; zone: string | undefined };
}

/** Reads a usage date, or says why it cannot be read; `now` decides what is in the future. */
export function parseUsageDate(value: string, now: Date): UsageDateResult {
  const text = value.trim();
  if (text === '') return { ok: false, problem: 'is empty: give a date such as 2024-03-09' };
  if (text.length > 64) return { ok: false, problem: 'is too long for a date' };
  const read = readParts(text);
  if ('problem' in read) return { ok: false, problem: read.problem };
  const { year, month, day, time } = read;
  if (year < 1900 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) {
    return { ok: false, problem: `'${value}' is not a day of the calendar` };
  }
  const isoDay = `${String(year).padStart(4, '0')}-${pad(month)}-${pad(day)}`;
  const date: UsageDate = { day: isoDay };
  if (time) {
    if (time.hour > 23 || time.minute > 59 || time.second > 59) return { ok: false, problem: `'${value}' is not a time of day` };
    const offset = zoneOffsetMinutes(time.zone);
    if (offset === undefined) return { ok: false, problem: `'${value}' has a time zone offset that does not exist` };
    date.instant = Date.UTC(year, month - 1, day, time.hour, time.minute, time.second) - offset * 60_000;
  }
  const future = date.instant !== undefined ? date.instant > now.getTime() : isoDay > new Date(now.getTime() + LATEST_OFFSET_MS).toISOString().slice(0, 10);
  if (future) return { ok: false, problem: `'${value}' is in the future: report usage that has happened` };
  return { ok: true, date };
}

function readParts(text: string): Parts | { problem: string } {
  // ISO 8601: 2024-03-09, 20240309, 2024-03-09T10:00:00Z (a space for the T too); also 2024/03/09 and 2024.03.09.
  let match =
    new RegExp(String.raw`^(\d{4})-(\d{2})-(\d{2})${TIME}$`, 'i').exec(text) ??
    new RegExp(String.raw`^(\d{4})(\d{2})(\d{2})${TIME}$`, 'i').exec(text) ??
    new RegExp(String.raw`^(\d{4})/(\d{1,2})/(\d{1,2})${TIME}$`, 'i').exec(text) ??
    new RegExp(String.raw`^(\d{4})\.(\d{1,2})\.(\d{1,2})${TIME}$`, 'i').exec(text);
  if (match) return withTime({ year: Number(match[1]), month: Number(match[2]), day: Number(match[3]) }, match.slice(4));

  // A month by name: 9 March 2024, 9-Mar-2024, March 9, 2024, Sat, 09 Mar 2024 10:00:00 GMT.
  match = new RegExp(String.raw`^${WEEKDAY}(\d{1,2})(?:st|nd|rd|th)?[\s-]+([a-z]{3,9})\.?,?[\s-]+(\d{2,4})${TIME}$`, 'i').exec(text);
  if (match) return named(match[2]!, Number(match[1]), match[3]!, match.slice(4));
  match = new RegExp(String.raw`^${WEEKDAY}([a-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{2,4})${TIME}$`, 'i').exec(text);
  if (match) return named(match[1]!, Number(match[2]), match[3]!, match.slice(4));

  // Day and month as numbers, in an order the text does not say: only when the reading is the same either way round.
  match = /^(\d{1,2})([/.-])(\d{1,2})\2(\d{2,4})$/.exec(text);
  if (match) {
    const [first, second, yearText] = [Number(match[1]), Number(match[3]), match[4]!];
    if (yearText.length !== 4) return { problem: `'${text}' has a two-digit year: write the year in full, or use YYYY-MM-DD` };
    if (first !== second && first <= 12 && second <= 12) {
      return { problem: `'${text}' is ambiguous (day ${first} of month ${second}, or month ${first} day ${second}): write it as YYYY-MM-DD` };
    }
    const [day, month] = first > 12 ? [first, second] : [second, first];
    return { year: Number(yearText), month, day };
  }
  return { problem: `'${text}' is not a date: use an ISO 8601 date (YYYY-MM-DD) or date-time, or a form such as 9 March 2024` };
}

function named(monthName: string, day: number, yearText: string, time: readonly (string | undefined)[]): Parts | { problem: string } {
  const name = monthName.toLowerCase();
  const month = name === 'sept' ? 9 : (name.length === 3 ? MONTHS.indexOf(name) : MONTH_NAMES.indexOf(name)) + 1;
  if (month === 0) return { problem: `'${monthName}' is not the name of a month` };
  if (yearText.length !== 4) return { problem: `the year ${yearText} has two digits: write it in full` };
  return withTime({ year: Number(yearText), month, day }, time);
}

function withTime(parts: Parts, time: readonly (string | undefined)[]): Parts {
  const [hour, minute, second, zone] = time;
  if (hour === undefined || minute === undefined) return parts;
  return { ...parts, time: { hour: Number(hour), minute: Number(minute), second: Number(second ?? 0), zone } };
}

/** Minutes east of UTC; undefined for an offset no clock keeps. */
function zoneOffsetMinutes(zone: string | undefined): number | undefined {
  if (zone === undefined || /^(z|utc|gmt)$/i.test(zone)) return 0;
  const match = /^([+-])(\d{2}):?(\d{2})$/.exec(zone);
  if (!match) return undefined;
  const hours = Number(match[2]);
  const minutes = Number(match[3]);
  if (hours > 14 || minutes > 59) return undefined;
  return (match[1] === '-' ? -1 : 1) * (hours * 60 + minutes);
}

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}
