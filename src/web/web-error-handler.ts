import type { FastifyInstance } from 'fastify';
import { ApiError } from '../platform/http/errors.js';
import { isStorageFull, STORAGE_FULL_MESSAGE } from '../platform/http/storage-full.js';
import { errorPage } from './web.pages.js';
import type { WebSite } from './web-site.js';

/**
 * Every error becomes a page: the services' own refusals (ApiError, any status) with their
 * message, Fastify's 4xx (an unreadable body, a path or query its route's schema refuses) with
 * its; anything else a 500 that says only that it failed, the error itself going to the log.
 */
export function registerWebErrorHandler(app: FastifyInstance, site: WebSite): void {
  app.setErrorHandler(async (error, request, reply) => {
    const full = isStorageFull(error);
    const known = error instanceof ApiError || full;
    const given = full ? 507 : error instanceof ApiError ? error.statusCode : (error as { statusCode?: number }).statusCode;
    const status = given !== undefined && given >= 400 && given < 600 ? given : 500;
    const explained = known || status < 500;
    if (!explained || status >= 500) request.log.error({ err: error }, 'web page failed');
    const message = full ? STORAGE_FULL_MESSAGE : explained && error instanceof Error ? error.message : 'The server could not make this page. Try again in a moment.';
    return site.send(reply, status, errorPage(site.frame('Error'), status, message));
  });
}
