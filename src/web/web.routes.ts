import cookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import type { BoardsService } from '../boards/boards.service.js';
import { csrfCheckFailed, invalidChoice, signInCancelled, signInExpired, signInIncomplete } from './web.errors.js';
import type { TypeBoxTypeProvider } from '../platform/http/parameters.js';
import { parseBrowseQuery } from './web-search.js';
import { boardLinkPageRoutes, boardListPageRoutes, boardPageRoutes, boardZipRoutes } from './web-boards.routes.js';
import { registerWebErrorHandler } from './web-error-handler.js';
import { formFields, registerFormBody, sameToken } from './web-forms.js';
import type { WebSessions } from './web-sessions.service.js';
import { WebSite, type WebPageRoutesOptions, type WebPeople } from './web-site.js';
import { siteFiles, staticRoutes } from './web-static.js';
import { assetPage, downloadsPage, searchPage } from './web.pages.js';
import { AssetPageQuery, AssetParams, MAX_SUGGESTION_INPUT, SignInCallbackQuery, SignInQuery, SuggestionsQuery } from './web.schemas.js';
import type { WebService } from './web.service.js';

export interface WebRoutesOptions {
  web: WebService;
  sessions: WebSessions;
  boards: BoardsService;
  people: WebPeople;
  /** The public base URL (no trailing slash): display and delivery URIs live there. */
  publicUrl: string;
}

/**
 * The catalogue browser's routes, at the root: the search at `/`, asset pages at `/asset/{id}`,
 * sign-in and sign-out, downloads and boards. Every answer is a whole HTML page, errors too.
 */
export async function webRoutes(app: FastifyInstance, options: WebRoutesOptions): Promise<void> {
  const { web, sessions, boards, people, publicUrl } = options;
  const files = siteFiles();
  const site = new WebSite(sessions, people, files, publicUrl);
  const pages: WebPageRoutesOptions = { site, web, sessions, boards };

  await app.register(cookie);
  registerFormBody(app);
  registerWebErrorHandler(app, site);

  await app.register(staticRoutes, { files });
  await app.register(searchRoutes, pages);
  await app.register(assetRoutes, pages);
  await app.register(signInRoutes, pages);
  await app.register(myDownloadsRoutes, pages);
  await app.register(boardListPageRoutes, pages);
  await app.register(boardLinkPageRoutes, pages);
  await app.register(boardPageRoutes, pages);
  await app.register(boardZipRoutes, pages);
}

/** The search page, and the suggestions its search field asks for. */
async function searchRoutes(app: FastifyInstance, { site, web }: WebPageRoutesOptions): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  // The browse query stays parseBrowseQuery's: it takes lists repeated or comma-separated and leaves other tabs' refinements in the URL.
  api.get('/', { schema: { hide: true } }, async (request, reply) => {
    const query = parseBrowseQuery(request.query as Record<string, unknown>);
    const context = await site.context(request, query.phrase ? `${query.phrase} — search` : 'Search');
    const page = await web.searchPage(query, context.reader);
    const eventNames = new Map<string, string>();
    for (const facet of page.facets) if (facet.parameter === 'event_ids') for (const value of facet.values) eventNames.set(`event:${value.value}`, value.label);
    const boardChoices = context.reader.user ? await web.boardChoices(context.reader.user.userId) : undefined;
    return site.send(reply, 200, searchPage(context.frame, query, page, { eventNames, boards: boardChoices, returnTo: request.url }));
  });

  /**
   * Suggestions for the search field as a person types, as JSON for the page's script:
   * `{"suggestions": [...]}`. The one answer of the site that is not a page, its refusal too.
   */
  api.get('/suggestions', { schema: { hide: true, querystring: SuggestionsQuery }, attachValidation: true }, async (request, reply) => {
    const headers = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };
    if (request.validationError) {
      return reply
        .code(400)
        .headers(headers)
        .send({ code: 'InvalidParameterValue', message: `Give phrase once, at most ${MAX_SUGGESTION_INPUT} characters` });
    }
    return reply.headers(headers).send({ suggestions: web.suggestions(request.query.phrase) });
  });
}

/** An asset's page, and downloading it. */
async function assetRoutes(app: FastifyInstance, { site, web }: WebPageRoutesOptions): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.get('/asset/:id', { schema: { hide: true, params: AssetParams, querystring: AssetPageQuery } }, async (request, reply) => {
    const { id } = request.params;
    const { added } = request.query;
    const context = await site.context(request, 'Asset');
    const page = await web.assetPage(id, context.reader);
    context.frame.title = page.title;
    context.frame.path = `/asset/${encodeURIComponent(id)}`;
    // oEmbed discovery (oEmbed §4): the embed module's answer for this asset, where it may be embedded.
    if (typeof page.detail.uri_oembed === 'string') context.frame.oembed = page.detail.uri_oembed;
    const board = added === undefined ? undefined : page.boards.find((choice) => choice.id === added);
    return site.send(reply, 200, assetPage(context.frame, page, board ? `Added to the board “${board.name}”.` : undefined));
  });

  api.post('/asset/:id/download', { schema: { hide: true, params: AssetParams } }, async (request, reply) => {
    const { id } = request.params;
    const { user, form } = await site.formUser(request);
    const [size, productId, productType] = (form.choice ?? '').split('|');
    if (!size || !productId || !/^[0-9]{1,15}$/.test(productId) || !productType) throw invalidChoice('Choose a size and a product to download with');
    const uri = await web.download(user, { assetId: id, productId: Number(productId), productType, size, notes: form.notes, projectCode: form.project_code, source: site.siteName });
    return reply.redirect(uri, 303);
  });
}

/** Sign-in through this server's own OAuth endpoints, its way back, and sign-out. */
async function signInRoutes(app: FastifyInstance, { site, sessions }: WebPageRoutesOptions): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.get('/signin', { schema: { hide: true, querystring: SignInQuery } }, async (request, reply) => {
    const started = await sessions.beginSignIn(site.cookie.of(request), request.query.return ?? '/', `${site.publicUrl}/oauth2/auth`);
    site.cookie.set(reply, started.cookieId);
    return reply.header('cache-control', 'no-store').redirect(started.location, 303);
  });

  api.get('/signin/callback', { schema: { hide: true, querystring: SignInCallbackQuery } }, async (request, reply) => {
    const { code, state, error } = request.query;
    if (error !== undefined) throw signInCancelled(error === 'access_denied' ? 'Sign-in was cancelled.' : 'Sign-in did not complete. Try again.');
    if (code === undefined || state === undefined) throw signInIncomplete('This address is where sign-in comes back to; it needs a code and a state.');
    const done = await sessions.completeSignIn(site.cookie.of(request), state, code, request.ip);
    if (!done) throw signInExpired('This sign-in expired or was started in another browser. Sign in again.');
    site.cookie.set(reply, done.cookieId);
    return reply.header('cache-control', 'no-store').redirect(done.returnTo, 303);
  });

  api.post('/signout', { schema: { hide: true } }, async (request, reply) => {
    const form = formFields(request.body);
    const session = await sessions.read(site.cookie.of(request));
    if (session) {
      if (typeof form.csrf !== 'string' || !sameToken(form.csrf, session.csrfToken)) throw csrfCheckFailed('This form has expired. Reload the page and try again.');
      await sessions.signOut(session.cookieId);
    }
    site.cookie.clear(reply);
    return reply.redirect('/', 303);
  });
}

/** The signed-in person's downloads. */
async function myDownloadsRoutes(app: FastifyInstance, { site, web }: WebPageRoutesOptions): Promise<void> {
  app.get('/downloads', { schema: { hide: true } }, async (request, reply) => {
    const context = await site.context(request, 'My downloads');
    const user = site.requireUser(context, reply, '/downloads');
    if (!user) return reply;
    const history = await web.myDownloads(user, 1);
    const cards = await web.boardCards(
      history.downloads.map((download) => ({ id: download.id, asset_type: download.asset_type === 'video' ? 'video' : 'image' })),
      context.reader,
    );
    return site.send(reply, 200, downloadsPage(context.frame, history, new Map(cards.map((card) => [card.id, card.title]))));
  });
}
