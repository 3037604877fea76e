import type { FastifyRequest } from 'fastify';
import type { FieldSelection } from '../platform/http/fields.js';
import { preferredLanguage } from '../platform/http/language.js';
import type { ReadContext } from './catalog.service.js';

/** Fields whose value depends on who asks (download_product: the caller's own product); a token is used when present. */
const CALLER_FIELDS = ['download_product'];

/**
 * The language and authorization a read runs with. A token is checked only when the
 * selected fields need one: named explicitly, it is required (401 without); reached
 * through a set such as detail_set, or for a field that answers per caller, it is used
 * when present.
 */
export async function readContext(request: FastifyRequest, selection: FieldSelection): Promise<ReadContext> {
  const language = preferredLanguage(request.headers['accept-language']);
  if (selection.requiresToken) {
    const grant = await request.requireBearer();
    return { language, authorized: true, userId: grant.userId };
  }
  if (selection.tokenFieldsIfAuthorized.size > 0 || CALLER_FIELDS.some((name) => selection.fields.has(name))) {
    const grant = await request.optionalBearer();
    return { language, authorized: grant !== undefined, userId: grant?.userId ?? null };
  }
  return { language, authorized: false };
}
