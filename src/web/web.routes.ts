import { createHash, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import { Readable } from 'node:stream';
import cookie from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { BoardsService } from '../boards/boards.service.js';
import { FORM_BODY_LIMIT_BYTES, FORM_CONTENT_TYPE, parseForm } from '../oauth/form-body.js';
import { ApiError, badRequest } from '../platform/http/errors.js';
import { preferredLanguage } from '../platform/http/language.js';
import { isStorageFull, STORAGE_FULL_MESSAGE } from '../platform/http/storage-full.js';
import { zipStream } from '../platform/zip-stream.js';
import { parseBrowseQuery } from './web-search.js';
import { safeReturnPath, type WebSession, type WebSessions } from './web-sessions.service.js';
import {
  assetPage,
  boardPage,
  boardsPage,
  downloadsPage,
  errorPage,
  invitationPage,
  justifiedRowRules,
  searchPage,
  sharedBoardPage,
  type BoardView,
  type Frame,
} from './web.pages.js';
import type { Reader, WebService } from './web.service.js';

/** Who a signed-in person is called on the page. */
export interface WebPeople {
  findById(id: number): Promise<{ username: string; first_name: string | null; last_name: string | null } | undefined>;
  findByIds(ids: readonly number[]): Promise<Map<number, { first_name: string | null; last_name: string | null; username: string }>>;
}

export interface WebRoutesOptions {
  web: WebService;
  sessions: WebSessions;
  boards: BoardsService;
  people: WebPeople;
  /** The public base URL (no trailing slash): display and delivery URIs live there. */
  publicUrl: string;
}

/** A static file of the browser, served with a long cache life under a name that changes with its content. */
interface StaticFile {
  body: Buffer;
  contentType: string;
  path: string;
}

function staticFile(name: string, contentType: string, generated = ''): StaticFile {
  const body = Buffer.concat([fs.readFileSync(new URL(`./static/${name}`, import.meta.url)), Buffer.from(generated)]);
  const version = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { body, contentType, path: `/static/${name}?v=${version}` };
}

const SESSION_DAYS = 30;
/** The longest text the search field's suggestions are asked for (the search takes as long a phrase). */
const MAX_SUGGESTION_INPUT = 500;

/** Equal strings, compared in constant time (as digests, so the lengths do not show either). */
function sameToken(a: string, b: string): boolean {
  const left = createHash('sha256').update(a).digest();
  const right = createHash('sha256').update(b).digest();
  return a !== '' && timingSafeEqual(left, right);
}

/** A board link's token: the last part of the API's link URL. */
function tokenOf(url: string | null): string | undefined {
  if (!url) return undefined;
  return url.slice(url.lastIndexOf('/') + 1);
}

/**
 * The catalogue browser's routes, at the root: the search at `/`, asset pages at `/asset/{id}`,
 * sign-in and sign-out, downloads and boards. Every answer is a whole HTML page, errors too.
 */
export async function webRoutes(app: FastifyInstance, options: WebRoutesOptions): Promise<void> {
  const { web, sessions, boards, people, publicUrl } = options;
  const secure = publicUrl.startsWith('https:');
  // A Secure cookie may carry the __Host- prefix: the browser then refuses it from any subdomain or path.
  const cookieName = secure ? '__Host-stockroom-session' : 'stockroom-session';
  const publicOrigin = new URL(publicUrl).origin;
  // The download history's download_source for downloads made here: the site, by its host name (the API's are `api`).
  const siteName = new URL(publicUrl).host;
  const css = staticFile('web.css', 'text/css; charset=utf-8', justifiedRowRules());
  const script = staticFile('web.js', 'text/javascript; charset=utf-8');
  const icon = staticFile('favicon.svg', 'image/svg+xml');
  const policy = [
    "default-src 'none'",
    "style-src 'self'",
    "script-src 'self'",
    // The search field's suggestions are fetched from this site.
    "connect-src 'self'",
    `img-src 'self' ${publicOrigin} data:`,
    `media-src 'self' ${publicOrigin}`,
    // A download's form is answered with a redirect to its delivery URL, which form-action governs too.
    `form-action 'self' ${publicOrigin}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');

  await app.register(cookie);
  app.addContentTypeParser(FORM_CONTENT_TYPE, { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT_BYTES }, (_request, body, done) => {
    const parsed = parseForm(body as string);
    if (!parsed.ok) done(badRequest('MalformedForm', parsed.problem === 'repeated' ? `The form sent ${parsed.name} twice` : 'The form cannot be read'), undefined);
    else done(null, parsed.fields);
  });

  interface PageContext {
    session: WebSession | undefined;
    reader: Reader;
    frame: Frame;
  }

  async function contextOf(request: FastifyRequest, title: string): Promise<PageContext> {
    const session = await sessions.read(request.cookies[cookieName]);
    const language = preferredLanguage(request.headers['accept-language']);
    const user = session?.user;
    const person = user ? await people.findById(user.userId) : undefined;
    const name = person ? [person.first_name, person.last_name].filter(Boolean).join(' ') || person.username : undefined;
    return {
      session,
      reader: { language, user },
      frame: { title, userName: name, csrfToken: session?.csrfToken, path: request.url, stylesheet: css.path, script: script.path, icon: icon.path, language },
    };
  }

  function send(reply: FastifyReply, status: number, body: string): FastifyReply {
    return reply
      .code(status)
      .headers({
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': policy,
        'x-frame-options': 'DENY',
        // Share and invitation links carry their token in the URL: no page hands its address on.
        'referrer-policy': 'no-referrer',
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
        vary: 'Accept-Language, Cookie',
      })
      .send(body);
  }

  function setSessionCookie(reply: FastifyReply, id: string): void {
    reply.setCookie(cookieName, id, { path: '/', httpOnly: true, secure, sameSite: 'lax', maxAge: SESSION_DAYS * 24 * 3600 });
  }

  /**
   * Every error becomes a page: the services' own refusals (ApiError, any status) with their
   * message, Fastify's 4xx (an unreadable body) with its; anything else a 500 that says only
   * that it failed, the error itself going to the log.
   */
  app.setErrorHandler(async (error, request, reply) => {
    const full = isStorageFull(error);
    const known = error instanceof ApiError || full;
    const given = full ? 507 : error instanceof ApiError ? error.statusCode : (error as { statusCode?: number }).statusCode;
    const status = given !== undefined && given >= 400 && given < 600 ? given : 500;
    const explained = known || status < 500;
    if (!explained || status >= 500) request.log.error({ err: error }, 'web page failed');
    const message = full ? STORAGE_FULL_MESSAGE : explained && error instanceof Error ? error.message : 'The server could not make this page. Try again in a moment.';
    const frame: Frame = { title: 'Error', userName: undefined, csrfToken: undefined, path: '/', stylesheet: css.path, script: script.path, icon: icon.path, language: 'en' };
    return send(reply, status, errorPage(frame, status, message));
  });

  /** The signed-in person of a page that needs one; otherwise the browser goes to sign in and comes back. */
  function requireUser(context: PageContext, reply: FastifyReply, path: string) {
    const user = context.session?.user;
    if (!user) {
      void reply.redirect(`/signin?return=${encodeURIComponent(path)}`, 303);
      return undefined;
    }
    return user;
  }

  /** A form's session and its CSRF token, checked; the signed-in user. */
  async function formUser(request: FastifyRequest): Promise<{ session: WebSession; user: NonNullable<WebSession['user']>; form: Record<string, string> }> {
    const form = (request.body ?? {}) as Record<string, string>;
    const session = await sessions.read(request.cookies[cookieName]);
    if (!session || typeof form.csrf !== 'string' || !sameToken(form.csrf, session.csrfToken)) {
      throw new ApiError(403, 'CsrfCheckFailed', 'This form has expired or did not come from this site. Go back, reload the page and try again.');
    }
    if (!session.user) throw new ApiError(401, 'SignInRequired', 'Your session has ended. Sign in again.');
    return { session, user: session.user, form };
  }

  const hidden = { schema: { hide: true } };

  app.get(css.path.split('?')[0]!, hidden, async (_request, reply) =>
    reply.headers({ 'content-type': css.contentType, 'cache-control': 'public, max-age=31536000, immutable', 'x-content-type-options': 'nosniff' }).send(css.body),
  );
  app.get(script.path.split('?')[0]!, hidden, async (_request, reply) =>
    reply.headers({ 'content-type': script.contentType, 'cache-control': 'public, max-age=31536000, immutable', 'x-content-type-options': 'nosniff' }).send(script.body),
  );
  app.get(icon.path.split('?')[0]!, hidden, async (_request, reply) =>
    reply.headers({ 'content-type': icon.contentType, 'cache-control': 'public, max-age=31536000, immutable', 'x-content-type-options': 'nosniff' }).send(icon.body),
  );
  // Browsers ask for /favicon.ico of every site whatever the page says: the same icon.
  app.get('/favicon.ico', hidden, async (_request, reply) =>
    reply.headers({ 'content-type': icon.contentType, 'cache-control': 'public, max-age=86400', 'x-content-type-options': 'nosniff' }).send(icon.body),
  );

  app.get('/', hidden, async (request, reply) => {
    const query = parseBrowseQuery(request.query as Record<string, unknown>);
    const context = await contextOf(request, query.phrase ? `${query.phrase} — search` : 'Search');
    const page = await web.searchPage(query, context.reader);
    const eventNames = new Map<string, string>();
    for (const facet of page.facets) if (facet.parameter === 'event_ids') for (const value of facet.values) eventNames.set(`event:${value.value}`, value.label);
    const boardChoices = context.reader.user ? await web.boardChoices(context.reader.user.userId) : undefined;
    return send(reply, 200, searchPage(context.frame, query, page, { eventNames, boards: boardChoices, returnTo: request.url }));
  });

  /**
   * Suggestions for the search field as a person types, as JSON for the page's script:
   * `{"suggestions": [...]}`. The one answer of the site that is not a page.
   */
  app.get('/suggestions', hidden, async (request, reply) => {
    const { phrase } = request.query as { phrase?: unknown };
    const headers = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };
    if (typeof phrase !== 'string' || phrase.length > MAX_SUGGESTION_INPUT) {
      return reply
        .code(400)
        .headers(headers)
        .send({ code: 'InvalidParameterValue', message: `Give phrase once, at most ${MAX_SUGGESTION_INPUT} characters` });
    }
    return reply.headers(headers).send({ suggestions: web.suggestions(phrase) });
  });

  app.get('/asset/:id', hidden, async (request, reply) => {
    const { id } = request.params as { id: string };
    const { added } = request.query as { added?: string };
    const context = await contextOf(request, 'Asset');
    const page = await web.assetPage(id, context.reader);
    context.frame.title = page.title;
    context.frame.path = `/asset/${encodeURIComponent(id)}`;
    // oEmbed discovery (oEmbed §4): the embed module's answer for this asset, where it may be embedded.
    if (typeof page.detail.uri_oembed === 'string') context.frame.oembed = page.detail.uri_oembed;
    const board = typeof added === 'string' ? page.boards.find((choice) => choice.id === added) : undefined;
    return send(reply, 200, assetPage(context.frame, page, board ? `Added to the board “${board.name}”.` : undefined));
  });

  app.post('/asset/:id/download', hidden, async (request, reply) => {
    const { id } = request.params as { id: string };
    const { user, form } = await formUser(request);
    const [size, productId, productType] = (form.choice ?? '').split('|');
    if (!size || !productId || !/^[0-9]{1,15}$/.test(productId) || !productType) throw badRequest('InvalidChoice', 'Choose a size and a product to download with');
    const uri = await web.download(user, { assetId: id, productId: Number(productId), productType, size, notes: form.notes, projectCode: form.project_code, source: siteName });
    return reply.redirect(uri, 303);
  });

  // ── sign-in ──────────────────────────────────────────────────────────────

  app.get('/signin', hidden, async (request, reply) => {
    const { return: returnTo } = request.query as { return?: string };
    const started = await sessions.beginSignIn(request.cookies[cookieName], typeof returnTo === 'string' ? returnTo : '/', `${publicUrl}/oauth2/auth`);
    setSessionCookie(reply, started.cookieId);
    return reply.header('cache-control', 'no-store').redirect(started.location, 303);
  });

  app.get('/signin/callback', hidden, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    if (typeof query.error === 'string') {
      throw new ApiError(400, 'SignInCancelled', query.error === 'access_denied' ? 'Sign-in was cancelled.' : 'Sign-in did not complete. Try again.');
    }
    if (typeof query.code !== 'string' || typeof query.state !== 'string') throw badRequest('SignInIncomplete', 'This address is where sign-in comes back to; it needs a code and a state.');
    const done = await sessions.completeSignIn(request.cookies[cookieName], query.state, query.code, request.ip);
    if (!done) throw badRequest('SignInExpired', 'This sign-in expired or was started in another browser. Sign in again.');
    setSessionCookie(reply, done.cookieId);
    return reply.header('cache-control', 'no-store').redirect(done.returnTo, 303);
  });

  app.post('/signout', hidden, async (request, reply) => {
    const form = (request.body ?? {}) as Record<string, string>;
    const session = await sessions.read(request.cookies[cookieName]);
    if (session) {
      if (typeof form.csrf !== 'string' || !sameToken(form.csrf, session.csrfToken)) throw new ApiError(403, 'CsrfCheckFailed', 'This form has expired. Reload the page and try again.');
      await sessions.signOut(session.cookieId);
    }
    reply.clearCookie(cookieName, { path: '/', httpOnly: true, secure, sameSite: 'lax' });
    return reply.redirect('/', 303);
  });

  // ── downloads ────────────────────────────────────────────────────────────

  app.get('/downloads', hidden, async (request, reply) => {
    const context = await contextOf(request, 'My downloads');
    const user = requireUser(context, reply, '/downloads');
    if (!user) return reply;
    const history = await web.myDownloads(user, 1);
    const cards = await web.boardCards(
      history.downloads.map((download) => ({ id: download.id, asset_type: download.asset_type === 'video' ? 'video' : 'image' })),
      context.reader,
    );
    return send(reply, 200, downloadsPage(context.frame, history, new Map(cards.map((card) => [card.id, card.title]))));
  });

  // ── boards ───────────────────────────────────────────────────────────────

  app.get('/boards', hidden, async (request, reply) => {
    const context = await contextOf(request, 'Boards');
    const user = requireUser(context, reply, '/boards');
    if (!user) return reply;
    const listing = await boards.list(user.userId, { page: 1, pageSize: 100, relationship: undefined, sort: 'date_last_updated_descending' });
    const summaries = listing.boards.map((board) => ({
      id: board.id,
      name: board.name,
      asset_count: board.asset_count,
      description: board.description,
      hero: board.hero_asset?.display_sizes.find((size) => size.name === 'comp')?.uri,
      relationship: board.board_relationship,
    }));
    return send(reply, 200, boardsPage(context.frame, summaries, undefined));
  });

  app.post('/boards', hidden, async (request, reply) => {
    const { user, form } = await formUser(request);
    const created = await boards.create(user.userId, { name: form.name ?? '', description: form.description || null });
    return reply.redirect(`/boards/${encodeURIComponent(created.id)}`, 303);
  });

  app.post('/boards/add', hidden, async (request, reply) => {
    const { user, form } = await formUser(request);
    if (!form.board_id || !form.asset_id) throw badRequest('InvalidChoice', 'Choose a board to add to');
    await boards.addAsset(user.userId, form.board_id, form.asset_id);
    const back = safeReturnPath(form.return);
    const onAssetPage = back.startsWith('/asset/') && !back.includes('?');
    return reply.redirect(onAssetPage ? `${back}?added=${encodeURIComponent(form.board_id)}` : back, 303);
  });

  app.get('/boards/shared/:token', hidden, async (request, reply) => {
    const { token } = request.params as { token: string };
    const context = await contextOf(request, 'Shared board');
    const board = await boards.shared(token);
    context.frame.title = board.name;
    const assets = await web.boardCards(board.assets, context.reader);
    const comments = (await boards.sharedComments(token))?.map((comment) => ({ text: comment.text, author: comment.author, date: comment.date_created }));
    return send(reply, 200, sharedBoardPage(context.frame, { name: board.name, description: board.description, assets, comments }));
  });

  app.get('/boards/invitations/:token', hidden, async (request, reply) => {
    const { token } = request.params as { token: string };
    const context = await contextOf(request, 'Join a board');
    return send(reply, 200, invitationPage(context.frame, token));
  });

  app.post('/boards/invitations/:token', hidden, async (request, reply) => {
    const { token } = request.params as { token: string };
    const { user } = await formUser(request);
    const joined = await boards.acceptInvitation(user.userId, token);
    return reply.redirect(`/boards/${encodeURIComponent(joined.id)}`, 303);
  });

  app.get('/boards/:id', hidden, async (request, reply) => {
    const { id } = request.params as { id: string };
    const context = await contextOf(request, 'Board');
    const user = requireUser(context, reply, `/boards/${encodeURIComponent(id)}`);
    if (!user) return reply;
    const board = await boards.get(user.userId, id);
    const comments = await boards.comments(user.userId, id);
    const arrangement = await boards.arrangement(user.userId, id);
    const { moved, dir } = request.query as { moved?: unknown; dir?: unknown };
    context.frame.title = board.name;
    const shareToken = tokenOf(board.links.share);
    const invitationToken = tokenOf(board.links.invitation);
    const view: BoardView = {
      id: board.id,
      name: board.name,
      description: board.description,
      assets: await web.boardCards(board.assets, context.reader),
      comments: comments.comments.map((comment) => ({
        text: comment.text,
        author: [comment.created_by.first_name, comment.created_by.last_name].filter(Boolean).join(' ') || 'Someone',
        date: comment.date_created,
      })),
      canComment: comments.permissions.can_add_comment,
      shareUrl: shareToken ? `${publicUrl}/boards/shared/${shareToken}` : null,
      invitationUrl: invitationToken ? `${publicUrl}/boards/invitations/${invitationToken}` : null,
      notes: arrangement.notes,
      canArrange: arrangement.canArrange,
      canAnnotate: arrangement.canAnnotate,
      shareComments: arrangement.canChooseShareComments ? arrangement.shareComments : null,
      moved: typeof moved === 'string' ? { assetId: moved, direction: dir === 'up' || dir === 'down' ? dir : undefined } : undefined,
    };
    return send(reply, 200, boardPage(context.frame, view, undefined));
  });

  app.post('/boards/:id/comments', hidden, async (request, reply) => {
    const { id } = request.params as { id: string };
    const { user, form } = await formUser(request);
    await boards.addComment(user.userId, id, { text: form.text ?? '' });
    return reply.redirect(`/boards/${encodeURIComponent(id)}#comments-heading`, 303);
  });

  /** The owner's order: a place up or down (the card's buttons), or to an index from 0 (the script, after a drag). */
  app.post('/boards/:id/order', hidden, async (request, reply) => {
    const { id } = request.params as { id: string };
    const { user, form } = await formUser(request);
    if (!form.asset_id) throw badRequest('InvalidChoice', 'Choose an asset to move');
    let move: 'up' | 'down' | { to: number };
    if (form.move === 'up' || form.move === 'down') move = form.move;
    else if (form.to !== undefined && /^[0-9]{1,6}$/.test(form.to)) move = { to: Number(form.to) };
    else throw badRequest('InvalidChoice', 'Say where the asset goes: up, down, or a place on the board');
    await boards.moveAsset(user.userId, id, form.asset_id, move);
    const query = new URLSearchParams({ moved: form.asset_id, ...(typeof move === 'string' ? { dir: move } : {}) });
    // No fragment: a page whose address targets an element runs no autofocus, and the moved card's button takes the focus.
    return reply.redirect(`/boards/${encodeURIComponent(id)}?${query.toString()}`, 303);
  });

  app.post('/boards/:id/notes', hidden, async (request, reply) => {
    const { id } = request.params as { id: string };
    const { user, form } = await formUser(request);
    if (!form.asset_id) throw badRequest('InvalidChoice', 'Choose an asset to write the note on');
    await boards.setNote(user.userId, id, form.asset_id, form.note ?? '');
    return reply.redirect(`/boards/${encodeURIComponent(id)}#asset-${encodeURIComponent(form.asset_id)}`, 303);
  });

  app.post('/boards/:id/share-comments', hidden, async (request, reply) => {
    const { id } = request.params as { id: string };
    const { user, form } = await formUser(request);
    if (form.show !== '1' && form.show !== '0') throw badRequest('InvalidChoice', 'Say whether the share link shows the comments');
    await boards.setShareComments(user.userId, id, form.show === '1');
    return reply.redirect(`/boards/${encodeURIComponent(id)}#links-heading`, 303);
  });

  /** The board's assets the person licensed, as one zip with a manifest of credit lines; a GET, since it changes nothing. */
  app.get('/boards/:id/download', hidden, async (request, reply) => {
    const { id } = request.params as { id: string };
    const context = await contextOf(request, 'Board');
    const user = requireUser(context, reply, `/boards/${encodeURIComponent(id)}/download`);
    if (!user) return reply;
    const zip = await web.boardZip(user, id, context.reader);
    const body = Readable.from(zipStream(zip.entries));
    // Past the first byte the status is sent: a failure then cuts the zip short, and the log says why.
    body.on('error', (error) => request.log.error({ err: error, board: id }, 'board zip failed'));
    return reply
      .headers({
        'content-type': 'application/zip',
        'content-disposition': `attachment; filename="${zip.fileName}"`,
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
      })
      .send(body);
  });

  app.post('/boards/:id/links/:kind', hidden, async (request, reply) => {
    const { id, kind } = request.params as { id: string; kind: string };
    if (kind !== 'share' && kind !== 'invitation') throw new ApiError(404, 'NotFound', 'There is no such link');
    const { user } = await formUser(request);
    await boards.renewLink(user.userId, id, kind);
    return reply.redirect(`/boards/${encodeURIComponent(id)}`, 303);
  });
}
