import type { TSchema } from '@sinclair/typebox';
import { Ajv, type ValidateFunction } from 'ajv';
import type { FastifyRequest } from 'fastify';
import { ApiError, invalidParameter } from './errors.js';

/** Without coercion: a number is not a string here. Keywords of the document (description…) are let be. */
const ajv = new Ajv({ coerceTypes: false, strict: false, allErrors: false });

/**
 * The body checked as sent, before the schema's type coercion (which would take `{"name": 5}`
 * as the name "5"): a value of the wrong type is 400 InvalidParameterValue naming the field.
 * A route uses it as its preValidation hook.
 */
export function strictBody(schema: TSchema, options: { required?: boolean } = {}) {
  const check: ValidateFunction = ajv.compile(schema);
  return async (request: FastifyRequest): Promise<void> => {
    // A body of JSON null is a value the schema may allow; an absent one is what `required` is about.
    if (request.body === undefined || (request.body === null && options.required === false)) {
      if (options.required === false) return;
      throw new ApiError(400, 'InvalidParameterValue', 'This request needs a JSON body');
    }
    if (check(request.body)) return;
    const error = check.errors?.[0];
    const path = (error?.instancePath ?? '').split('/').filter((part) => part !== '' && !/^\d+$/.test(part));
    const missing = error?.params && 'missingProperty' in error.params ? String(error.params.missingProperty) : undefined;
    const parameter = missing ?? path[path.length - 1] ?? 'body';
    throw invalidParameter(parameter, error?.message ?? 'not allowed');
  };
}
