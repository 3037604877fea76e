import { invalidField } from './back-office.errors.js';

/*
 * Reading a back-office form or query: each value is text, given at most once (the form body
 * refuses a repeated field); a value that does not fit is a 400 naming the field, never a 500.
 */

export type Fields = Readonly<Record<string, unknown>>;

/** A query string as the route got it: each parameter a string (a repeated one is refused). */
export function queryFields(query: unknown): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries((query ?? {}) as Record<string, unknown>)) {
    if (Array.isArray(value)) throw invalidField(`Give ${name} once`);
    if (typeof value === 'string') fields[name] = value;
  }
  return fields;
}

/** A field's text, trimmed; undefined when absent or blank. At most `max` characters. */
export function optionalText(fields: Fields, name: string, label: string, max = 200): string | undefined {
  const value = fields[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalidField(`${label}: give it once, as text`);
  const text = value.trim();
  if (text === '') return undefined;
  if (text.length > max) throw invalidField(`${label}: at most ${max} characters`);
  return text;
}

export function requiredText(fields: Fields, name: string, label: string, max = 200): string {
  const text = optionalText(fields, name, label, max);
  if (text === undefined) throw invalidField(`${label}: this is needed`);
  return text;
}

/** A whole number of at least `min`; undefined when blank. */
export function optionalWhole(fields: Fields, name: string, label: string, min = 0): number | undefined {
  const text = optionalText(fields, name, label, 16);
  if (text === undefined) return undefined;
  if (!/^[0-9]{1,15}$/.test(text) || Number(text) < min) throw invalidField(`${label}: a whole number of at least ${min}`);
  return Number(text);
}

/** A checkbox: present (any value) is yes. */
export function checked(fields: Fields, name: string): boolean {
  return typeof fields[name] === 'string';
}

/** A page number (1 when absent). */
export function pageNumber(fields: Fields): number {
  return optionalWhole(fields, 'page', 'Page', 1) ?? 1;
}

/** A day of the calendar, YYYY-MM-DD; undefined when blank. */
export function optionalDay(fields: Fields, name: string, label: string): string | undefined {
  const text = optionalText(fields, name, label, 10);
  if (text === undefined) return undefined;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text) || Number.isNaN(Date.parse(`${text}T00:00:00Z`)) || new Date(`${text}T00:00:00Z`).toISOString().slice(0, 10) !== text) {
    throw invalidField(`${label}: a day written YYYY-MM-DD`);
  }
  return text;
}

/** One of the choices; undefined when blank. */
export function optionalChoice<T extends string>(fields: Fields, name: string, label: string, choices: readonly T[]): T | undefined {
  const text = optionalText(fields, name, label, 100);
  if (text === undefined) return undefined;
  if (!(choices as readonly string[]).includes(text)) throw invalidField(`${label}: one of ${choices.join(', ')}`);
  return text as T;
}

/** A numeric id from a route's path. */
export function idOf(params: unknown, name = 'id'): number | undefined {
  const value = (params as Record<string, string | undefined>)[name];
  return value !== undefined && /^[1-9][0-9]{0,14}$/.test(value) ? Number(value) : undefined;
}

/** Lines of a text area, trimmed, blank ones left out. */
export function lines(fields: Fields, name: string, label: string, max = 4000): string[] {
  const text = optionalText(fields, name, label, max);
  return text === undefined ? [] : text.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== '');
}
