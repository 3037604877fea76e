import { Type } from '@sinclair/typebox';
import { invalidPage, invalidPageSize } from '../platform/http/errors.js';

/*
 * One rule for paging everywhere: page is a whole number from 1 (up to the endpoint's last
 * page), page_size a whole number from the endpoint's list or range, both written as plain
 * decimal digits. `Infinity`, `1e2`, `1.5` or `-0` are refused with InvalidPage or
 * InvalidPageSize, as the searches do, instead of being coerced by the schema.
 */

/** What an endpoint allows for page and page_size. */
export interface PagingRule {
  /** the last page that can be asked for */
  readonly maxPage?: number;
  /** the page sizes allowed, when a list (the searches); otherwise 1 to maxPageSize */
  readonly pageSizes?: readonly number[];
  readonly maxPageSize?: number;
}

const WHOLE_NUMBER = /^[+-]?\d+$/;

function shown(value: unknown): string {
  const text = String(value);
  return `'${text.length > 100 ? `${text.slice(0, 100)}…` : text}'`;
}

function wholeNumber(value: string | number): number | undefined {
  const number = typeof value === 'number' ? value : WHOLE_NUMBER.test(value.trim()) ? Number(value) : NaN;
  return Number.isSafeInteger(number) ? number : undefined;
}

/** A page number as sent (text or already a number); throws 400 InvalidPage naming the spelling. */
export function readPage(spelling: string, value: string | number, rule: PagingRule = {}): number {
  const fail = (detail: string) => invalidPage(spelling, detail);
  const number = wholeNumber(value);
  if (number === undefined) throw fail(`${shown(value)} is not a whole number`);
  if (number < 1) throw fail(`${shown(value)}: pages are numbered from 1`);
  if (rule.maxPage !== undefined && number > rule.maxPage) throw fail(`${shown(value)}: at most ${rule.maxPage} pages can be requested`);
  return number;
}

/** A page size as sent; throws 400 InvalidPageSize naming the spelling. */
export function readPageSize(spelling: string, value: string | number, rule: PagingRule = {}): number {
  const fail = (detail: string) => invalidPageSize(spelling, detail);
  const number = wholeNumber(value);
  if (number === undefined) throw fail(`${shown(value)} is not a whole number`);
  if (rule.pageSizes) {
    if (!rule.pageSizes.includes(number)) throw fail(`${shown(value)} is not one of ${rule.pageSizes.join(', ')}`);
  } else if (number < 1 || number > (rule.maxPageSize ?? 100)) {
    throw fail(`${shown(value)} is not a whole number from 1 to ${rule.maxPageSize ?? 100}`);
  }
  return number;
}

/** page and page_size, also accepted as pageSize (deprecated spelling). */
export const PaginationQuery = {
  page: Type.Optional(Type.Integer({ minimum: 1, description: 'Page number, from 1.' })),
  page_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Results per page, 1 to 100; without it, every result.' })),
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Same as page_size.', deprecated: true })),
};

/** One page of a list; without page_size, the whole list. */
export function paginate<T>(items: readonly T[], query: { page?: number; page_size?: number; pageSize?: number }): T[] {
  const size = query.page_size ?? query.pageSize;
  if (size === undefined) return [...items];
  const page = query.page ?? 1;
  return items.slice((page - 1) * size, page * size);
}
