import fc from 'fast-check';

/*
 * fast-check arbitraries from the JSON Schemas of an OpenAPI 3.1 document: values a schema
 * accepts, and for the schemas that constrain their values, values it refuses in a way no
 * lenient reading can rescue (a word in no letter case of an enumeration, a number out of
 * range, text that breaks the pattern). Only the keywords the document uses are read.
 */

export type JsonSchema = Record<string, unknown>;

/** Resolves `#/components/schemas/…` references against the document. */
export type Resolve = (schema: JsonSchema) => JsonSchema;

export function resolverOf(document: { components?: { schemas?: Record<string, JsonSchema> } }): Resolve {
  const resolve: Resolve = (schema) => {
    const ref = schema.$ref;
    if (typeof ref !== 'string') return schema;
    const name = ref.replace('#/components/schemas/', '');
    const target = document.components?.schemas?.[name];
    if (!target) throw new Error(`unresolved reference ${ref}`);
    return resolve(target);
  };
  return resolve;
}

/** Known values (ids of the seeded catalogue, its artists) tried where a schema allows them, so that lookups hit. */
export interface ValuePool {
  /** Known strings the schema accepts, for a value of this name (a parameter or a property) when given. */
  strings(schema: JsonSchema, name?: string): readonly string[];
  /** Known integers the schema accepts for a value of this name (an index, a product id), tried beside random ones. */
  integers?(schema: JsonSchema, name?: string): readonly number[];
  /** Whether the schema accepts the value (a rule's alternative narrowing a field); without it, any value but null. */
  accepts?(schema: JsonSchema, value: unknown): boolean;
}

const MAX_ARRAY = 4;
const MAX_TEXT = 24;

function typesOf(schema: JsonSchema): string[] {
  const type = schema.type;
  if (Array.isArray(type)) return type as string[];
  if (typeof type === 'string') return [type];
  if (schema.properties) return ['object'];
  if (schema.items) return ['array'];
  return [];
}

/** Printable text, sometimes beyond ASCII (never lone surrogates, which no URL can carry). */
function text(minLength = 0, maxLength = MAX_TEXT): fc.Arbitrary<string> {
  const max = Math.max(minLength, Math.min(maxLength, minLength + MAX_TEXT));
  return fc.oneof(
    { weight: 3, arbitrary: fc.string({ minLength, maxLength: max }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength, maxLength: max }) },
  );
}

function stringArbitrary(schema: JsonSchema, pool: ValuePool, name: string | undefined): fc.Arbitrary<string> {
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
  let generated: fc.Arbitrary<string>;
  if (schema.format === 'date-time') {
    generated = fc.date({ min: new Date('1990-01-01T00:00:00Z'), max: new Date('2040-01-01T00:00:00Z'), noInvalidDate: true }).map((date) => date.toISOString());
  } else if (schema.format === 'date') {
    generated = fc.date({ min: new Date('1990-01-01T00:00:00Z'), max: new Date('2040-01-01T00:00:00Z'), noInvalidDate: true }).map((date) => date.toISOString().slice(0, 10));
  } else if (typeof schema.pattern === 'string') {
    generated = fc.stringMatching(new RegExp(schema.pattern, 'u')).filter((value) => value.length >= minLength && value.length <= maxLength);
  } else {
    generated = text(minLength, maxLength);
  }
  const known = pool.strings(schema, name);
  return known.length > 0 ? fc.oneof(generated, fc.constantFrom(...known)) : generated;
}

/** A value the schema accepts. */
export function validValue(schema: JsonSchema, resolve: Resolve, pool: ValuePool, name?: string): fc.Arbitrary<unknown> {
  const resolved = resolve(schema);
  if ('const' in resolved) return fc.constant(resolved.const);
  if (Array.isArray(resolved.enum)) return fc.constantFrom(...(resolved.enum as unknown[]));
  const alternatives = (resolved.anyOf ?? resolved.oneOf) as JsonSchema[] | undefined;
  if (alternatives) return fc.oneof(...alternatives.map((alternative) => validValue(alternative, resolve, pool, name)));
  const types = typesOf(resolved);
  if (types.length > 1) return fc.oneof(...types.map((type) => validValue({ ...resolved, type }, resolve, pool, name)));
  switch (types[0]) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer': {
      const generated = fc.integer({
        min: typeof resolved.minimum === 'number' ? resolved.minimum : -(2 ** 31),
        max: typeof resolved.maximum === 'number' ? resolved.maximum : 2 ** 31 - 1,
      });
      const known = pool.integers?.(resolved, name) ?? [];
      return known.length > 0 ? fc.oneof(generated, fc.constantFrom(...known)) : generated;
    }
    case 'number':
      return fc.double({
        noNaN: true,
        noDefaultInfinity: true,
        ...(typeof resolved.minimum === 'number' ? { min: resolved.minimum } : {}),
        ...(typeof resolved.maximum === 'number' ? { max: resolved.maximum } : {}),
      });
    case 'string':
      return stringArbitrary(resolved, pool, name);
    case 'array': {
      const items = validValue((resolved.items as JsonSchema | undefined) ?? {}, resolve, pool, name);
      const minLength = typeof resolved.minItems === 'number' ? resolved.minItems : 0;
      const maxLength = Math.min(typeof resolved.maxItems === 'number' ? resolved.maxItems : MAX_ARRAY, minLength + MAX_ARRAY);
      return resolved.uniqueItems
        ? fc.uniqueArray(items, { minLength, maxLength, selector: (value) => JSON.stringify(value) })
        : fc.array(items, { minLength, maxLength });
    }
    case 'object': {
      const properties = (resolved.properties ?? {}) as Record<string, JsonSchema>;
      const required = (resolved.required ?? []) as string[];
      const model = Object.fromEntries(Object.entries(properties).map(([key, property]) => [key, validValue(property, resolve, pool, key)]));
      const record = fc.record(model, { requiredKeys: required.filter((key) => key in properties) });
      const rules = fieldRulesOf(resolved, resolve);
      if (rules.length === 0) return record;
      return fc.tuple(record, fc.tuple(...rules.map((rule) => keptBy(rule, properties, resolve, pool)))).map(([value, patches]) => {
        const kept: Record<string, unknown> = { ...value };
        for (const patch of patches) {
          for (const name of patch.leftOut) delete kept[name];
          Object.assign(kept, patch.given);
        }
        return kept;
      });
    }
    default:
      // No type: anything JSON.
      return fc.oneof(fc.string(), fc.integer(), fc.boolean());
  }
}

/**
 * A rule over several fields of an object, in its `allOf`: alternatives (`oneOf`: exactly one
 * holds; `anyOf`: at least one does), each naming the fields it needs given, and what it asks of
 * their values (not null, above 0).
 */
interface FieldRule {
  readonly exactlyOne: boolean;
  readonly alternatives: ReadonlyArray<{ required: string[]; properties: Record<string, JsonSchema> }>;
}

function fieldRulesOf(schema: JsonSchema, resolve: Resolve): FieldRule[] {
  return ((schema.allOf ?? []) as JsonSchema[]).map(resolve).flatMap((part) => {
    const alternatives = (part.oneOf ?? part.anyOf) as JsonSchema[] | undefined;
    if (!alternatives) return [];
    return [
      {
        exactlyOne: Array.isArray(part.oneOf),
        alternatives: alternatives.map((alternative) => ({
          required: (alternative.required ?? []) as string[],
          properties: (alternative.properties ?? {}) as Record<string, JsonSchema>,
        })),
      },
    ];
  });
}

/** One alternative of a rule kept: its fields given, with values it takes; for exactly one, the other alternatives' fields left out. */
function keptBy(rule: FieldRule, properties: Record<string, JsonSchema>, resolve: Resolve, pool: ValuePool) {
  const accepts = (schema: JsonSchema | undefined, value: unknown) => (schema && pool.accepts ? pool.accepts(schema, value) : value !== null);
  return fc.constantFrom(...rule.alternatives.keys()).chain((chosen) => {
    const alternative = rule.alternatives[chosen]!;
    const leftOut = rule.exactlyOne ? rule.alternatives.filter((_, index) => index !== chosen).flatMap((other) => other.required) : [];
    const given = Object.fromEntries(
      alternative.required.map((name) => [name, validValue(properties[name] ?? {}, resolve, pool, name).filter((value) => accepts(alternative.properties[name], value))]),
    );
    return fc.record(given).map((values) => ({ given: values as Record<string, unknown>, leftOut }));
  });
}

/**
 * Text no field of the API may hold, whatever its schema says: a NUL (which PostgreSQL cannot
 * store), and lone UTF-16 surrogates (not characters at all). A URL or a form carries a NUL as
 * `%00` but cannot carry a lone surrogate (encoding turns it into U+FFFD); a JSON body spells
 * both as escapes. Each is a broken request: the server must answer 400, on either store.
 */
export function malformedTexts(carrier: 'url' | 'form' | 'json'): string[] {
  const withNul = ['x\0y', '\0', `${FOREIGN_WORD}\0`];
  return carrier === 'json' ? [...withNul, 'x\ud800y', '\udc00', 'a\ud83d'] : withNul;
}

/** A word in no enumeration of this API, in any letter case. */
export const FOREIGN_WORD = 'zzq-not-a-value';

/**
 * Values that break the schema's own constraint, as text (the way a query parameter carries
 * them); empty when the schema constrains nothing a value could break. Blank text is never
 * among them: the server reads a blank parameter as an absent one.
 */
export function invalidTexts(schema: JsonSchema, resolve: Resolve): string[] {
  const resolved = resolve(schema);
  const alternatives = (resolved.anyOf ?? resolved.oneOf) as JsonSchema[] | undefined;
  if (alternatives) {
    const candidates = alternatives.flatMap((alternative) => invalidTexts(alternative, resolve));
    return [...new Set(candidates)].filter((candidate) => alternatives.every((alternative) => !acceptsText(alternative, resolve, candidate)));
  }
  const types = typesOf(resolved);
  if (Array.isArray(resolved.enum)) {
    const numbers = types.includes('integer') ? ['0', '1.5', 'Infinity', '-Infinity', '1e308', '-1'] : [];
    return [FOREIGN_WORD, ...numbers.filter((candidate) => !(resolved.enum as unknown[]).map(String).includes(candidate))];
  }
  if (types.includes('integer') || types.includes('number')) {
    const out: string[] = ['abc', '1e308', 'Infinity', '-Infinity', 'NaN'];
    if (types.includes('integer')) out.push('1.5');
    if (typeof resolved.minimum === 'number') out.push(String(resolved.minimum - 1));
    if (typeof resolved.maximum === 'number') out.push(String(resolved.maximum + 1));
    return out;
  }
  if (types.includes('string')) {
    const out: string[] = [];
    if (typeof resolved.pattern === 'string') {
      const pattern = new RegExp(resolved.pattern, 'u');
      out.push(...['!!', 'zz q~', '%', '-1', 'x'].filter((candidate) => !pattern.test(candidate)));
    }
    if (typeof resolved.maxLength === 'number') out.push('x'.repeat(resolved.maxLength + 1));
    return out;
  }
  return [];
}

/** Whether a schema accepts a parameter's text, read the way the server reads it. */
function acceptsText(schema: JsonSchema, resolve: Resolve, candidate: string): boolean {
  const resolved = resolve(schema);
  if (Array.isArray(resolved.enum)) return resolved.enum.map(String).includes(candidate);
  const types = typesOf(resolved);
  if (types.includes('string')) {
    if (typeof resolved.pattern === 'string' && !new RegExp(resolved.pattern, 'u').test(candidate)) return false;
    if (typeof resolved.maxLength === 'number' && candidate.length > resolved.maxLength) return false;
    return true;
  }
  if (types.includes('integer')) {
    if (!/^-?\d+$/.test(candidate)) return false;
    const value = Number(candidate);
    return !(typeof resolved.minimum === 'number' && value < resolved.minimum) && !(typeof resolved.maximum === 'number' && value > resolved.maximum);
  }
  if (types.includes('boolean')) return candidate === 'true' || candidate === 'false';
  return true;
}
