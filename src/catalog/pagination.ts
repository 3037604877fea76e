import { Type } from '@sinclair/typebox';

/** page and page_size, also accepted as pageSize (where cheap, both spellings are taken). */
export const PaginationQuery = {
  page: Type.Optional(Type.Integer({ minimum: 1, description: 'Page number, from 1.' })),
  page_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Results per page.' })),
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Same as page_size.' })),
};

/** One page of a list; without page_size, the whole list. */
export function paginate<T>(items: readonly T[], query: { page?: number; page_size?: number; pageSize?: number }): T[] {
  const size = query.page_size ?? query.pageSize;
  if (size === undefined) return [...items];
  const page = query.page ?? 1;
  return items.slice((page - 1) * size, page * size);
}
