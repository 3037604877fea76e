import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { invalidNumber } from './errors.js';
import { readingOf } from './parameters.js';

/*
 * Numbers in a URL are read as written, on every route. The schema's coercion would take
 * `Infinity`, `-Infinity` and `1e308` for numbers (and Ajv counts ±Infinity as an integer), `1e2`
 * for 100 and ` 7` for 7: every integer or number parameter of a route's query or path is
 * checked against its plain decimal form before the schema runs, with the spec's own codes for
 * page and page_size. A route's schema, not a list kept by hand, says which parameters these are.
 */

const WHOLE_NUMBER = /^[+-]?\d+$/;
const DECIMAL_NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;


type NumberKind = 'integer' | 'number';

/** A number parameter: its name, its kind, and the code its kind names for a bad value, if any. */
type NumberParameter = readonly [string, NumberKind, string | undefined];

interface JsonSchemaLike {
  type?: string | string[];
  properties?: Record<string, JsonSchemaLike>;
  items?: JsonSchemaLike;
  anyOf?: JsonSchemaLike[];
  oneOf?: JsonSchemaLike[];
}

/** integer or number, when every form the schema takes for the value is one (arrays: their items). */
function numberKindOf(schema: JsonSchemaLike | undefined): NumberKind | undefined {
  if (!schema) return undefined;
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.includes('array')) return numberKindOf(schema.items);
  if (types.includes('integer')) return 'integer';
  if (types.includes('number')) return 'number';
  const alternatives = schema.anyOf ?? schema.oneOf;
  const kinds = (alternatives ?? []).map(numberKindOf);
  if (kinds.includes('integer')) return 'integer';
  return kinds.includes('number') ? 'number' : undefined;
}

function numberParameters(schema: unknown): NumberParameter[] {
  const properties = (schema as JsonSchemaLike | undefined)?.properties ?? {};
  return Object.entries(properties).flatMap(([name, property]) => {
    const kind = numberKindOf(property);
    const reading = readingOf(property);
    const code = reading?.codeFor === undefined || reading.codeFor.includes('type') ? reading?.code : undefined;
    return kind ? [[name, kind, code] as const] : [];
  });
}

function shown(value: string): string {
  return `'${value.length > 100 ? `${value.slice(0, 100)}…` : value}'`;
}

/** Throws 400 naming the parameter when a value is not written as its kind of number. */
export function checkNumberForm(name: string, kind: NumberKind, value: string, code?: string): void {
  const text = value.trim();
  const fine = kind === 'integer' ? WHOLE_NUMBER.test(text) : DECIMAL_NUMBER.test(text) && Number.isFinite(Number(text));
  if (fine) return;
  throw invalidNumber(name, `${shown(value)} is not ${kind === 'integer' ? 'a whole number' : 'a number'}`, code);
}

function checkerFor(query: readonly NumberParameter[], params: readonly NumberParameter[]) {
  return async (request: FastifyRequest): Promise<void> => {
    for (const [source, list] of [
      [request.query, query],
      [request.params, params],
    ] as const) {
      const values = source as Record<string, unknown>;
      for (const [name, kind, code] of list) {
        const raw = values[name];
        for (const value of Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]) {
          // Blank values are the schema's to judge; numbers already (never from a URL) are numbers.
          if (typeof value === 'string' && value.trim() !== '') checkNumberForm(name, kind, value, code);
        }
      }
    }
  };
}

/** Registers the check on every route added after it (call on the root instance, before any route). */
export function registerNumberForms(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const schema = route.schema as { querystring?: unknown; params?: unknown } | undefined;
    const query = numberParameters(schema?.querystring);
    const params = numberParameters(schema?.params);
    if (query.length === 0 && params.length === 0) return;
    const check = checkerFor(query, params);
    const existing = route.preValidation;
    route.preValidation = existing === undefined ? [check] : [check, ...(Array.isArray(existing) ? existing : [existing])];
  });
}
