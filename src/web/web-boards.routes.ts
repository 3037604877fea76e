import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { invalidChoice, noSuchLink } from './web.errors.js';
import type { TypeBoxTypeProvider } from '../platform/http/parameters.js';
import { zipStream } from '../platform/zip-stream.js';
import { safeReturnPath } from './web-sessions.service.js';
import type { WebPageRoutesOptions } from './web-site.js';
import { boardPage, boardsPage, invitationPage, sharedBoardPage, type BoardView } from './web.pages.js';
import { BoardLinkParams, BoardPageQuery, BoardParams, TokenParams } from './web.schemas.js';

/*
 * The boards' pages and forms: the list, a board (its cards, comments, notes and order), its
 * share and invitation links, and its licensed assets as one zip. Every change is a form that
 * answers with a redirect to the page it changed.
 */

/** A board link's token: the last part of the API's link URL. */
function tokenOf(url: string | null): string | undefined {
  if (!url) return undefined;
  return url.slice(url.lastIndexOf('/') + 1);
}

/** The person's boards, a new board, and adding an asset to a board (from the search or an asset's page). */
export async function boardListPageRoutes(app: FastifyInstance, { site, boards }: WebPageRoutesOptions): Promise<void> {
  app.get('/boards', { schema: { hide: true } }, async (request, reply) => {
    const context = await site.context(request, 'Boards');
    const user = site.requireUser(context, reply, '/boards');
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
    return site.send(reply, 200, boardsPage(context.frame, summaries, undefined));
  });

  app.post('/boards', { schema: { hide: true } }, async (request, reply) => {
    const { user, form } = await site.formUser(request);
    const created = await boards.create(user.userId, { name: form.name ?? '', description: form.description || null });
    return reply.redirect(`/boards/${encodeURIComponent(created.id)}`, 303);
  });

  app.post('/boards/add', { schema: { hide: true } }, async (request, reply) => {
    const { user, form } = await site.formUser(request);
    if (!form.board_id || !form.asset_id) throw invalidChoice('Choose a board to add to');
    await boards.addAsset(user.userId, form.board_id, form.asset_id);
    const back = safeReturnPath(form.return);
    const onAssetPage = back.startsWith('/asset/') && !back.includes('?');
    return reply.redirect(onAssetPage ? `${back}?added=${encodeURIComponent(form.board_id)}` : back, 303);
  });
}

/** What a board's links open (the shared view, the invitation and accepting it), and renewing a link. */
export async function boardLinkPageRoutes(app: FastifyInstance, { site, web, boards }: WebPageRoutesOptions): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.get('/boards/shared/:token', { schema: { hide: true, params: TokenParams } }, async (request, reply) => {
    const { token } = request.params;
    const context = await site.context(request, 'Shared board');
    const board = await boards.shared(token);
    context.frame.title = board.name;
    const assets = await web.boardCards(board.assets, context.reader);
    const comments = (await boards.sharedComments(token))?.map((comment) => ({ text: comment.text, author: comment.author, date: comment.date_created }));
    return site.send(reply, 200, sharedBoardPage(context.frame, { name: board.name, description: board.description, assets, comments }));
  });

  api.get('/boards/invitations/:token', { schema: { hide: true, params: TokenParams } }, async (request, reply) => {
    const context = await site.context(request, 'Join a board');
    return site.send(reply, 200, invitationPage(context.frame, request.params.token));
  });

  api.post('/boards/invitations/:token', { schema: { hide: true, params: TokenParams } }, async (request, reply) => {
    const { user } = await site.formUser(request);
    const joined = await boards.acceptInvitation(user.userId, request.params.token);
    return reply.redirect(`/boards/${encodeURIComponent(joined.id)}`, 303);
  });

  api.post('/boards/:id/links/:kind', { schema: { hide: true, params: BoardLinkParams } }, async (request, reply) => {
    const { id, kind } = request.params;
    if (kind !== 'share' && kind !== 'invitation') throw noSuchLink();
    const { user } = await site.formUser(request);
    await boards.renewLink(user.userId, id, kind);
    return reply.redirect(`/boards/${encodeURIComponent(id)}`, 303);
  });
}

/** A board's page, and its forms: a comment, the order of its assets, a note on one, whether the share link shows the comments. */
export async function boardPageRoutes(app: FastifyInstance, { site, web, boards }: WebPageRoutesOptions): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.get('/boards/:id', { schema: { hide: true, params: BoardParams, querystring: BoardPageQuery } }, async (request, reply) => {
    const { id } = request.params;
    const context = await site.context(request, 'Board');
    const user = site.requireUser(context, reply, `/boards/${encodeURIComponent(id)}`);
    if (!user) return reply;
    const board = await boards.get(user.userId, id);
    const comments = await boards.comments(user.userId, id);
    const arrangement = await boards.arrangement(user.userId, id);
    const { moved, dir } = request.query;
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
      shareUrl: shareToken ? `${site.publicUrl}/boards/shared/${shareToken}` : null,
      invitationUrl: invitationToken ? `${site.publicUrl}/boards/invitations/${invitationToken}` : null,
      notes: arrangement.notes,
      canArrange: arrangement.canArrange,
      canAnnotate: arrangement.canAnnotate,
      shareComments: arrangement.canChooseShareComments ? arrangement.shareComments : null,
      moved: moved !== undefined ? { assetId: moved, direction: dir === 'up' || dir === 'down' ? dir : undefined } : undefined,
    };
    return site.send(reply, 200, boardPage(context.frame, view, undefined));
  });

  api.post('/boards/:id/comments', { schema: { hide: true, params: BoardParams } }, async (request, reply) => {
    const { id } = request.params;
    const { user, form } = await site.formUser(request);
    await boards.addComment(user.userId, id, { text: form.text ?? '' });
    return reply.redirect(`/boards/${encodeURIComponent(id)}#comments-heading`, 303);
  });

  /** The owner's order: a place up or down (the card's buttons), or to an index from 0 (the script, after a drag). */
  api.post('/boards/:id/order', { schema: { hide: true, params: BoardParams } }, async (request, reply) => {
    const { id } = request.params;
    const { user, form } = await site.formUser(request);
    if (!form.asset_id) throw invalidChoice('Choose an asset to move');
    let move: 'up' | 'down' | { to: number };
    if (form.move === 'up' || form.move === 'down') move = form.move;
    else if (form.to !== undefined && /^[0-9]{1,6}$/.test(form.to)) move = { to: Number(form.to) };
    else throw invalidChoice('Say where the asset goes: up, down, or a place on the board');
    await boards.moveAsset(user.userId, id, form.asset_id, move);
    const query = new URLSearchParams({ moved: form.asset_id, ...(typeof move === 'string' ? { dir: move } : {}) });
    // No fragment: a page whose address targets an element runs no autofocus, and the moved card's button takes the focus.
    return reply.redirect(`/boards/${encodeURIComponent(id)}?${query.toString()}`, 303);
  });

  api.post('/boards/:id/notes', { schema: { hide: true, params: BoardParams } }, async (request, reply) => {
    const { id } = request.params;
    const { user, form } = await site.formUser(request);
    if (!form.asset_id) throw invalidChoice('Choose an asset to write the note on');
    await boards.setNote(user.userId, id, form.asset_id, form.note ?? '');
    return reply.redirect(`/boards/${encodeURIComponent(id)}#asset-${encodeURIComponent(form.asset_id)}`, 303);
  });

  api.post('/boards/:id/share-comments', { schema: { hide: true, params: BoardParams } }, async (request, reply) => {
    const { id } = request.params;
    const { user, form } = await site.formUser(request);
    if (form.show !== '1' && form.show !== '0') throw invalidChoice('Say whether the share link shows the comments');
    await boards.setShareComments(user.userId, id, form.show === '1');
    return reply.redirect(`/boards/${encodeURIComponent(id)}#links-heading`, 303);
  });
}

/** The board's assets the person licensed, as one zip with a manifest of credit lines; a GET, since it changes nothing. */
export async function boardZipRoutes(app: FastifyInstance, { site, web }: WebPageRoutesOptions): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.get('/boards/:id/download', { schema: { hide: true, params: BoardParams } }, async (request, reply) => {
    const { id } = request.params;
    const context = await site.context(request, 'Board');
    const user = site.requireUser(context, reply, `/boards/${encodeURIComponent(id)}/download`);
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
}
