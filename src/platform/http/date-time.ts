/**
 * The one form every date-time of an answer takes: the spec's `YYYY-MM-DDTHH:MM:SSZ`, in UTC,
 * whole seconds (the store keeps milliseconds, and sometimes microseconds, for ordering; a
 * fraction is dropped, never rounded up into the next second).
 */
export function utcDateTime(value: string | Date): string;
export function utcDateTime(value: string | Date | null): string | null;
export function utcDateTime(value: string | Date | null): string | null {
  if (value === null) return null;
  const time = value instanceof Date ? value.getTime() : Date.parse(value);
  if (Number.isNaN(time)) throw new RangeError(`not a date-time: ${String(value).slice(0, 40)}`);
  return `${new Date(time).toISOString().slice(0, 19)}Z`;
}
