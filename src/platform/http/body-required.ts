import type { FastifyRequest } from 'fastify';
import { bodyRequired } from './errors.js';

/**
 * A route whose body may be JSON null but not absent. Fastify hands a route's body validator
 * null for a request without a body, so a schema that takes null cannot tell the two apart:
 * this preValidation hook does (400 InvalidParameterValue, as for a missing body elsewhere).
 */
export async function requireBody(request: FastifyRequest): Promise<void> {
  if (request.body === undefined) throw bodyRequired();
}
