import { AjvCompiler, type ValidatorFactory } from '@fastify/ajv-compiler';
import type { Ajv } from 'ajv';
import { isIsoDateTime, isIsoDay } from './iso-date.js';
import { READING } from './parameters.js';

/** What Fastify hands a validator compiler: the schema of one part of a route's request. */
interface RouteSchemaPart {
  httpPart?: string;
}
type CompileValidator = (route: RouteSchemaPart) => unknown;
type BuildFromPool = (externalSchemas: unknown, options?: { customOptions?: object; onCreate?: (ajv: Ajv) => void }) => CompileValidator;

/**
 * What every validator knows beyond JSON Schema: the parameter kinds' reading annotation (an
 * annotation only: the reading hook applies it before validation), and the one date reader
 * behind the formats `date` and `date-time` (a day of the calendar; a time's seconds and zone
 * are optional, UTC without one).
 */
export function addParameterVocabulary(ajv: Ajv): void {
  ajv.addKeyword({ keyword: READING, schemaType: 'object' });
  ajv.addFormat('date', { type: 'string', validate: isIsoDay });
  ajv.addFormat('date-time', { type: 'string', validate: isIsoDateTime });
}

/**
 * Fastify's validators, one kind per part of a request. A query string or a path is text, which
 * its schema's types are read from (`?page=2` is the number 2; a single value is a one-item list).
 * A JSON body already carries its types: `{"prompt": 5}` or `{"end_client": 12345}` is a number
 * where a string is wanted, and is refused (400 naming the field) rather than taken as "5".
 * Errors carry the value and the schema at fault (`verbose`), so that the error handler can name
 * both.
 */
export function validatorsByPart(): ValidatorFactory {
  // The package's declared types describe the compiler's JTD form too; its validator form is used here.
  const forText = AjvCompiler() as unknown as BuildFromPool;
  const forBodies = AjvCompiler() as unknown as BuildFromPool;
  const build: BuildFromPool = (externalSchemas, options) => {
    const onCreate = (ajv: Ajv) => {
      addParameterVocabulary(ajv);
      options?.onCreate?.(ajv);
    };
    const textValidator = forText(externalSchemas, { ...options, customOptions: { ...options?.customOptions, verbose: true }, onCreate });
    const bodyValidator = forBodies(externalSchemas, { ...options, customOptions: { ...options?.customOptions, verbose: true, coerceTypes: false }, onCreate });
    return (route) => (route.httpPart === 'body' ? bodyValidator(route) : textValidator(route));
  };
  return build as unknown as ValidatorFactory;
}
