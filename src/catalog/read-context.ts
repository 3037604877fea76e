import type { FastifyRequest } from 'fastify';
import type { FieldSelection } from '../platform/http/fields.js';
import { preferredLanguage } from '../platform/http/language.js';
import type { ReadContext } from './catalog.service.js';

/**
 * The language and authorization a read runs with. A token is checked only when the
 * selected fields need one: named explicitly, it is required (401 without); reached
 * through a set such as detail_set, it is used when present.
 */
export async function readContext(request: FastifyRequest, selection: FieldSelection): Promise<ReadContext> {
  const language = preferredLanguage(request.headers['accept-language']);
  if (selection.requiresToken) {
    const grant = await request.requireBearer();
    return { language, authorized: true, userId: grant.userId };
  }
  if (selection.tokenFieldsIfAuthorized.size > 0) {
    const grant = await request.optionalBearer();
    return { language, authorized: grant !== undefined, userId: grant?.userId ?? null };
  }
  return { language, authorized: false };
}
