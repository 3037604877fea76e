import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ErrorBody } from '../platform/http/schema-types.js';
import type { EmbedService } from './embed.service.js';
import { embedPageHeaders, frameCacheSeconds, imageSource, renderFramePage, renderTermsPage, renderUnavailablePage } from './embed-page.js';
import { AssetIdParams, OEmbedErrors, OEmbedQuery, OEmbedResponseSchema } from './embed.schemas.js';
import { hostOf, type SiteRoutes } from './site-url.js';

export interface EmbedRoutesOptions {
  embeds: EmbedService;
  /** Where `{embed_url}`'s routes are served: `/oembed`, `/frame/{id}` and `/terms` under its prefix. */
  embedSite: SiteRoutes;
  /** Where `{short_url}`'s routes are served: `/{id}` under its prefix. */
  shortSite: SiteRoutes;
  publicUrl: string;
}

/** The terms page changes only with a release. */
const TERMS_CACHE_SECONDS = 24 * 3600;
/** An answer for an asset that is not (or no longer) embeddable is kept briefly: it may become so. */
const UNAVAILABLE_CACHE_SECONDS = 60;

/**
 * The embed host (oEmbed, the embed page, its terms) and the short links. Registered at the root:
 * oEmbed consumers and the sites that frame the page send no Api-Key, and the page must not carry
 * the API's CORS or cookies. Each route answers only on its site's host when that is a host of its
 * own; the API's routes stay out of the OpenAPI document's reach (`hide`): they are not under /v3.
 */
export async function embedRoutes(app: FastifyInstance, options: EmbedRoutesOptions): Promise<void> {
  const { embeds, embedSite, shortSite, publicUrl } = options;
  const onEmbedHost = onlyOnHost(embedSite);
  const onShortHost = onlyOnHost(shortSite);

  app.get<{ Querystring: { url: string; caller?: string; format?: string; maxwidth?: number; maxheight?: number; dnt?: string } }>(
    `${embedSite.prefix}/oembed`,
    {
      onRequest: [onEmbedHost, readableFromAnyOrigin],
      schema: { hide: true, querystring: OEmbedQuery, response: { 200: OEmbedResponseSchema, ...OEmbedErrors } },
    },
    async (request, reply) => {
      const answer = await embeds.oembed(request.query);
      void reply.header('cache-control', `public, max-age=${Math.min(3600, answer.cache_age)}`);
      return answer;
    },
  );

  app.get<{ Params: { id: string } }>(
    `${embedSite.prefix}/frame/:id`,
    { onRequest: onEmbedHost, schema: { hide: true, params: AssetIdParams } },
    async (request, reply) => {
      const frame = await embeds.frame(request.params.id);
      if (frame === undefined) {
        return reply.code(404).headers(embedPageHeaders(undefined, UNAVAILABLE_CACHE_SECONDS)).send(renderUnavailablePage());
      }
      return reply.headers(embedPageHeaders(imageSource(frame.comp.uri), frameCacheSeconds(frame))).send(renderFramePage(frame));
    },
  );

  app.get(`${embedSite.prefix}/terms`, { onRequest: onEmbedHost, schema: { hide: true } }, async (_request, reply) =>
    reply.headers(embedPageHeaders(undefined, TERMS_CACHE_SECONDS)).send(renderTermsPage(publicUrl)),
  );

  // The oEmbed endpoint takes a short link written with a trailing slash as the same link, so the
  // link itself leads to the asset written either way.
  for (const path of [`${shortSite.prefix}/:id`, `${shortSite.prefix}/:id/`]) {
    app.get<{ Params: { id: string } }>(
      path,
      { onRequest: onShortHost, schema: { hide: true, params: AssetIdParams, response: { 404: ErrorBody } } },
      async (request, reply) => reply.redirect(await embeds.shortLinkTarget(request.params.id), 302),
    );
  }
}

/**
 * Consumers read oEmbed from pages of any origin and the answer holds nothing private. Set before
 * the handler runs, so a 404 or 501 is readable too: a page's script can tell "not embeddable"
 * from a network failure.
 */
async function readableFromAnyOrigin(_request: FastifyRequest, reply: FastifyReply): Promise<void> {
  void reply.header('access-control-allow-origin', '*');
}

/**
 * A hook that lets a request through only on the site's own host (when it has one); on any other
 * host the path is answered as no route at all, as the API answers a path it does not have.
 */
function onlyOnHost(site: SiteRoutes) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (site.host === undefined || hostOf(request.protocol, request.host) === site.host) return;
    const path = request.url.split('?')[0]!;
    return reply.code(404).send({ message: `No route for ${request.method} ${path}`, code: 'NotFound' });
  };
}
