import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest, FastifyTypeProvider, RouteOptions } from 'fastify';
import { ISO_DATE_EXPECTED, ISO_DAY_EXPECTED } from './iso-date.js';

/*
 * One parameter model. A path, query or body parameter is declared once, as a strict TypeBox
 * schema of one of the kinds below; that schema is both what the route validates and what the
 * OpenAPI document says. What a kind forgives in the way a value is written (spaces around it,
 * a blank value, other letter cases, a comma-separated list) is declared on the schema as its
 * `x-reading` annotation and applied by one hook before validation (`registerParameterReading`),
 * so that `enum`, `format` and `pattern` are the single rule of what a value may be.
 */

/** The annotation key: how a value is read before the schema judges it. */
export const READING = 'x-reading';

/** How a parameter's value is read before validation. Every annotated value is trimmed, and a blank one is absent. */
export interface Reading {
  /** A comma-separated list (also taken as a repeated parameter): split into items, blank items dropped. */
  readonly list?: boolean;
  /** Matched against the schema's `enum` (a list's items' `enum`) in any letter case, and given its canonical spelling. */
  readonly anyCase?: boolean;
  /** Other spellings of values, by their lower-case form, and the value each stands for. */
  readonly aliases?: Readonly<Record<string, string>>;
  /** What a value must be, for the error message: "'x' is not <expected>". */
  readonly expected?: string;
  /** The spec's own error code for a bad value of this parameter, where it has one. */
  readonly code?: string;
  /** The schema keywords whose failure answers `code` (all of them when absent). */
  readonly codeFor?: readonly string[];
  /** Read in lower case (a pattern that is written in lower case). */
  readonly lowerCase?: boolean;
  /** The parameter's name in messages, where the contract names it otherwise than the route's key (a path's `{file-name}`). */
  readonly name?: string;
  /**
   * The whole error message for a failure of the schema's own keywords (its `codeFor` ones when
   * given), where the validator's words would tell a client nothing to act on: a body rule's.
   */
  readonly message?: string;
}

type Annotated = { [READING]?: Reading };

const annotate = (reading: Reading): Record<string, Reading> => ({ [READING]: reading });

/** The reading a schema declares, if any. */
export function readingOf(schema: unknown): Reading | undefined {
  return typeof schema === 'object' && schema !== null ? (schema as Annotated)[READING] : undefined;
}

// ---- The kinds ----------------------------------------------------------------------------

interface Common<T> {
  readonly default?: T;
  readonly deprecated?: boolean;
  readonly code?: string;
}

const common = <T>(options: Common<T>) => ({
  ...(options.default !== undefined ? { default: options.default } : {}),
  ...(options.deprecated ? { deprecated: true } : {}),
});

/** A yes/no parameter: `true` or `false` (other letter cases are taken too); blank means absent. */
export const Flag = (description: string, options: Common<boolean> = {}) =>
  Type.Boolean({ description, ...common(options), ...annotate({ anyCase: true, expected: 'true or false', code: options.code }) });

/** One word of a fixed list, matched in any letter case; blank means absent. */
export const Choice = <const T extends string>(
  values: readonly T[],
  description: string | undefined,
  options: Common<T> & { aliases?: Readonly<Record<string, T>> } = {},
) =>
  Type.Unsafe<T>({
    type: 'string',
    enum: [...values],
    ...(description !== undefined ? { description } : {}),
    ...common(options),
    ...annotate({ anyCase: true, ...(options.aliases ? { aliases: lowerKeys(options.aliases) } : {}), code: options.code }),
  });

function lowerKeys(aliases: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(aliases).map(([alias, value]) => [alias.toLowerCase(), value]));
}

/**
 * A calendar date (YYYY-MM-DD), or with `time` a date or a date-time (UTC without a zone), read
 * by the one date reader (iso-date.ts): 2026-02-30 is refused, as is any day not of the calendar.
 */
export const IsoDate = (description: string, options: Common<string> & { time?: boolean } = {}) => {
  const reading = annotate({ expected: options.time ? ISO_DATE_EXPECTED : ISO_DAY_EXPECTED, code: options.code });
  if (!options.time) return Type.Unsafe<string>({ type: 'string', format: 'date', description, ...common(options), ...reading });
  return Type.Unsafe<string>({
    anyOf: [
      { type: 'string', format: 'date' },
      { type: 'string', format: 'date-time' },
    ],
    description,
    ...common(options),
    ...reading,
  });
};

/** A page number: a whole number from 1, at most `maximum` when given; `belowOneCode` names the error of a page below 1. */
export const PageNumber = (description: string, options: Common<number> & { maximum?: number; belowOneCode?: string } = {}) =>
  Type.Integer({
    minimum: 1,
    ...(options.maximum !== undefined ? { maximum: options.maximum } : {}),
    description,
    ...common(options),
    ...(options.belowOneCode ? annotate({ code: options.belowOneCode, codeFor: ['minimum'] }) : {}),
  });

/** A page size: one of `sizes`, or a whole number from 1 to `maximum`. */
export const PageSize = (description: string, options: Common<number> & { sizes?: readonly number[]; maximum?: number } = {}) =>
  options.sizes
    ? Type.Unsafe<number>({ type: 'integer', enum: [...options.sizes], description, ...common(options) })
    : Type.Integer({ minimum: 1, maximum: options.maximum ?? 100, description, ...common(options), ...(options.code ? annotate({ code: options.code }) : {}) });

/**
 * A comma-separated list (`a,b`; repeating the parameter works too). The document describes it
 * the OpenAPI way: an array, `style: form`, `explode: false`. Its items are read by their own kind.
 */
export const CommaList = <T extends TSchema>(
  items: T,
  description: string,
  options: { minItems?: number; maxItems?: number; deprecated?: boolean; code?: string; codeFor?: readonly string[] } = {},
) =>
  Type.Array(items, {
    description,
    ...(options.minItems !== undefined ? { minItems: options.minItems } : {}),
    ...(options.maxItems !== undefined ? { maxItems: options.maxItems } : {}),
    ...(options.deprecated ? { deprecated: true } : {}),
    ...annotate({ list: true, code: options.code, ...(options.codeFor ? { codeFor: [...options.codeFor] } : {}) }),
  });

/** A product id: a whole number from 1 to 999,999,999. */
const PRODUCT_ID = '[1-9][0-9]{0,8}';

/**
 * A product type (any letter case), or with `withProduct` also one product of it:
 * `premiumaccess` or `premiumaccess:1234`.
 */
export const ProductType = (types: readonly string[], description: string | undefined, options: Common<string> & { withProduct?: boolean } = {}) => {
  if (!options.withProduct) return Choice(types, description, options);
  const expected = `a product type (${types.join(', ')}), optionally with a product id: type:productId`;
  return Type.String({
    pattern: `^(?:${types.join('|')})(?::${PRODUCT_ID})?$`,
    ...(description !== undefined ? { description } : {}),
    ...common(options),
    ...annotate({ lowerCase: true, expected, code: options.code }),
  });
};

/** Free text: trimmed, blank means absent. `required` text must have something that is not a space. */
export const Text = (description: string, options: Common<string> & { maxLength?: number; pattern?: string; expected?: string } = {}) =>
  Type.String({
    description,
    ...(options.maxLength !== undefined ? { maxLength: options.maxLength } : {}),
    ...(options.pattern !== undefined ? { pattern: options.pattern } : {}),
    ...common(options),
    ...annotate({ expected: options.expected, code: options.code }),
  });

/** A numeric id in text: a whole number from 1 up to `maximum` (the contract's int32 by default). */
export const NumericId = (description: string, options: Common<number> & { maximum?: number } = {}) =>
  Type.Integer({ minimum: 1, maximum: options.maximum ?? 2_147_483_647, description, ...common(options), ...annotate({ code: options.code }) });

/** An id of letters, digits, '_' and '-' (an asset id, a board id): `maximum` characters at most. */
export const WordId = (description: string, options: Common<string> & { maxLength?: number } = {}) =>
  Type.String({
    pattern: `^[A-Za-z0-9_-]{1,${options.maxLength ?? 64}}$`,
    description,
    ...common(options),
    ...annotate({ expected: `an id of 1 to ${options.maxLength ?? 64} letters, digits, '_' or '-'`, code: options.code }),
  });


// ---- Rules over several fields of a body --------------------------------------------------

/** A refusal in a rule's own words: its message, and its code (InvalidParameterValue when none). */
export interface Refusal {
  readonly message: string;
  readonly code?: string;
}

/** An alternative of a rule: the field is given, and (unless `schema` says more of it) not null. */
export const Given = (name: string, schema: Readonly<Record<string, unknown>> = { not: { type: 'null' } }) => ({
  required: [name],
  properties: { [name]: schema },
});

type Alternative = ReturnType<typeof Given>;

/**
 * A rule a body's fields keep together, for the body's `allOf`: exactly one of the alternatives
 * holds (`oneOf`; "exactly one reference"). It is JSON Schema, so the document states it and the
 * validator applies it; a body that breaks it is answered with the rule's own message, since the
 * validator's ("must match exactly one schema in oneOf") tells a client nothing it can act on.
 * The body's other rules (a field's type, a required field) are judged apart and named as usual.
 */
export const ExactlyOne = (alternatives: readonly Alternative[], refusal: Refusal) => bodyRule('oneOf', alternatives, refusal);

/** A rule a body's fields keep together, for the body's `allOf`: at least one of the alternatives holds (`anyOf`). */
export const AtLeastOne = (alternatives: readonly Alternative[], refusal: Refusal) => bodyRule('anyOf', alternatives, refusal);

// The rule's own `type`: Ajv runs a schema's combinators before the type check its fields defer,
// so without it no body at all (or null) would be answered as a broken rule, not a missing body.
const bodyRule = (keyword: 'oneOf' | 'anyOf', alternatives: readonly Alternative[], refusal: Refusal) => ({
  type: 'object',
  [keyword]: [...alternatives],
  ...annotate({ message: refusal.message, code: refusal.code, codeFor: [keyword] }),
});

// ---- Reading values before validation -----------------------------------------------------

type Read = (value: unknown) => unknown;

interface SchemaLike {
  type?: unknown;
  enum?: unknown[];
  items?: SchemaLike;
  properties?: Record<string, SchemaLike>;
  [READING]?: Reading;
}

/** Reads one scalar as its schema's reading says; `undefined` means absent. */
function scalarReader(schema: SchemaLike): Read | undefined {
  const reading = schema[READING];
  if (!reading) return undefined;
  const canonical = new Map<string, string>();
  if (reading.anyCase && Array.isArray(schema.enum)) {
    for (const value of schema.enum) if (typeof value === 'string') canonical.set(value.toLowerCase(), value);
  }
  for (const [alias, value] of Object.entries(reading.aliases ?? {})) canonical.set(alias, value);
  const fold = reading.anyCase === true;
  const lower = reading.lowerCase === true;
  return (value) => {
    if (typeof value !== 'string') return value;
    const text = value.trim();
    if (text === '') return undefined;
    if (lower) return text.toLowerCase();
    if (!fold) return text;
    const key = text.toLowerCase();
    return canonical.get(key) ?? (schema.type === 'boolean' ? key : text);
  };
}

/** Reads a list: comma-separated or repeated text split into items, each read by the items' kind. */
function listReader(schema: SchemaLike): Read {
  const item = (schema.items && scalarReader(schema.items)) ?? ((value: unknown) => (typeof value === 'string' ? value.trim() || undefined : value));
  return (value) => {
    const values = Array.isArray(value) ? value : [value];
    const items: unknown[] = [];
    for (const entry of values) {
      const parts = typeof entry === 'string' ? entry.split(',') : [entry];
      for (const part of parts) {
        const read = item(part);
        if (read !== undefined) items.push(read);
      }
    }
    return items.length > 0 ? items : undefined;
  };
}

function readerOf(schema: SchemaLike): Read | undefined {
  const reading = schema[READING];
  if (schema.type === 'array') {
    if (reading?.list) return listReader(schema);
    // A JSON array of annotated items (a body's list of choices): each item read, none dropped.
    const item = schema.items ? scalarReader(schema.items) : undefined;
    return item && ((value) => (Array.isArray(value) ? value.map((entry) => item(entry) ?? entry) : value));
  }
  if (!reading) return undefined;
  const scalar = scalarReader(schema);
  if (!scalar) return undefined;
  // A single value sent as a one-item list (a repeated parameter) is read as that value.
  return (value) => (Array.isArray(value) && value.length === 1 ? scalar(value[0]) : scalar(value));
}

type Readers = ReadonlyArray<readonly [string, Read]>;

function readersOf(schema: unknown): Readers {
  const properties = (schema as SchemaLike | undefined)?.properties ?? {};
  return Object.entries(properties).flatMap(([name, property]) => {
    const read = readerOf(property);
    return read ? [[name, read] as const] : [];
  });
}

function applyReaders(values: unknown, readers: Readers): void {
  if (typeof values !== 'object' || values === null || Array.isArray(values)) return;
  const record = values as Record<string, unknown>;
  for (const [name, read] of readers) {
    if (!Object.hasOwn(record, name)) continue;
    const value = read(record[name]);
    if (value === undefined) delete record[name];
    else record[name] = value;
  }
}

/**
 * Registers the reading of annotated parameters on every route added after it (call on the root
 * instance, before any route): each route's query, path and body are read by the readings their
 * schemas declare, before validation.
 */
export function registerParameterReading(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const schema = route.schema as { querystring?: unknown; params?: unknown; body?: unknown } | undefined;
    const query = readersOf(schema?.querystring);
    const params = readersOf(schema?.params);
    const body = readersOf(schema?.body);
    if (query.length === 0 && params.length === 0 && body.length === 0) return;
    const read = async (request: FastifyRequest): Promise<void> => {
      if (query.length > 0) applyReaders(request.query, query);
      if (params.length > 0) applyReaders(request.params, params);
      if (body.length > 0) applyReaders(request.body, body);
    };
    const existing = route.preValidation;
    route.preValidation = existing === undefined ? [read] : [read, ...(Array.isArray(existing) ? existing : [existing])];
  });
}

/**
 * Fastify's TypeBox type provider, over the TypeBox the schemas are written with: handlers get
 * the static type of their route's schemas (query, path, body) without casts. The provider of
 * @fastify/type-provider-typebox reads the types of the `typebox` 1.x package, whose inference
 * does not follow every schema of `@sinclair/typebox` 0.34 (Type.Unsafe comes out unknown); this
 * is the same provider for the schemas of this code base.
 */
export interface TypeBoxTypeProvider extends FastifyTypeProvider {
  validator: this['schema'] extends TSchema ? Static<this['schema']> : unknown;
  serializer: this['schema'] extends TSchema ? Static<this['schema']> : unknown;
}

/**
 * The same provider for the request only: for routes whose answers are built field by field
 * (a caller's `fields` choose them), which the response schema serialises but cannot type.
 */
export interface TypeBoxRequestTypeProvider extends FastifyTypeProvider {
  validator: this['schema'] extends TSchema ? Static<this['schema']> : unknown;
  serializer: unknown;
}
