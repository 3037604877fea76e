import type { FastifyInstance } from 'fastify';
import { pageErrorOf } from '../platform/http/page-error.js';
import { errorPage } from './web.pages.js';
import type { WebSite } from './web-site.js';

/**
 * Every error becomes a page: the services' own refusals (ApiError, any status) with their
 * message, Fastify's 4xx (an unreadable body, a path or query its route's schema refuses) with
 * its; anything else a 500 that says only that it failed, the error itself going to the log.
 */
export function registerWebErrorHandler(app: FastifyInstance, site: WebSite): void {
  app.setErrorHandler(async (error, request, reply) => {
    const { status, message } = pageErrorOf(error);
    if (status >= 500) request.log.error({ err: error }, 'web page failed');
    return site.send(reply, status, errorPage(site.frame('Error'), status, message));
  });
}
