import { Type, type TSchema, type Static } from '@sinclair/typebox';

/**
 * A value that may be null. Primitive types become `type: [t, 'null']`, which the
 * response serializer handles without trying alternatives one by one (anyOf is slow there).
 */
export function Nullable<T extends TSchema>(schema: T) {
  const type = (schema as { type?: unknown }).type;
  if (typeof type === 'string' && type !== 'object' && type !== 'array') {
    return Type.Unsafe<Static<T> | null>({ ...schema, type: [type, 'null'] });
  }
  return Type.Union([schema, Type.Null()]);
}

/** The error body every endpoint answers with. */
export const ErrorBody = Type.Object(
  { message: Type.String(), code: Type.String() },
  { $id: 'Error', description: 'Every error: a message for people and a named code for programs.' },
);

/** Splits comma-separated values (a list, or one text) into trimmed, non-empty items. */
export function splitCsv(values: readonly string[] | string | undefined): string[] {
  if (values === undefined) return [];
  const list = typeof values === 'string' ? [values] : values;
  const items: string[] = [];
  for (const value of list) {
    for (const item of value.split(',')) {
      const trimmed = item.trim();
      if (trimmed) items.push(trimmed);
    }
  }
  return items;
}
