import { AjvCompiler, type ValidatorFactory } from '@fastify/ajv-compiler';

/** What Fastify hands a validator compiler: the schema of one part of a route's request. */
interface RouteSchemaPart {
  httpPart?: string;
}
type CompileValidator = (route: RouteSchemaPart) => unknown;
type BuildFromPool = (externalSchemas: unknown, options?: { customOptions?: object }) => CompileValidator;

/**
 * Fastify's validators, one kind per part of a request. A query string or a path is text, which
 * its schema's types are read from (`?page=2` is the number 2; a single value is a one-item list).
 * A JSON body already carries its types: `{"prompt": 5}` or `{"end_client": 12345}` is a number
 * where a string is wanted, and is refused (400 naming the field) rather than taken as "5".
 */
export function validatorsByPart(): ValidatorFactory {
  // The package's declared types describe the compiler's JTD form too; its validator form is used here.
  const forText = AjvCompiler() as unknown as BuildFromPool;
  const forBodies = AjvCompiler() as unknown as BuildFromPool;
  const build: BuildFromPool = (externalSchemas, options) => {
    const textValidator = forText(externalSchemas, options);
    const bodyValidator = forBodies(externalSchemas, { ...options, customOptions: { ...options?.customOptions, coerceTypes: false } });
    return (route) => (route.httpPart === 'body' ? bodyValidator(route) : textValidator(route));
  };
  return build as unknown as ValidatorFactory;
}
