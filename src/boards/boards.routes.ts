import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requireBody } from '../platform/http/body-required.js';
import type { TypeBoxTypeProvider } from '../platform/http/parameters.js';
import { BOARD_LIMITS } from './boards.policy.js';
import { boardUserOf, type BoardsService } from './boards.service.js';
import {
  AddAssetsBody,
  AddBoardAssetsResult,
  BoardAssetParams,
  BoardCommentParams,
  BoardDetail,
  BoardInfo,
  BoardLinkParams,
  BoardLinksBody,
  BoardList,
  BoardListQuery,
  BoardParams,
  BoardSent,
  CommentRequest,
  CommentsList,
  Created,
  INPUT,
  InvitationParams,
  NO_USER,
  NOT_FOUND,
  NoContent,
  OWNER_ONLY,
  Refusal,
  RemoveAssetsQuery,
  SendBoardBody,
  ShareParams,
  SharedBoard,
  boardSort,
} from './boards.schemas.js';

export interface BoardsRoutesOptions {
  boards: BoardsService;
}

const security = [{ ApiKey: [], Bearer: [] }];
const tags = ['boards'];
const DEFAULT_PAGE_SIZE = 30;

const BAD_INPUT = { 400: Refusal(INPUT) };
const USER_ONLY = { 403: Refusal(NO_USER) };
const OWNER_ACTION = { 403: Refusal(`${NO_USER}; ${OWNER_ONLY}`) };
const BOARD_MISSING = { 404: NOT_FOUND };

/** The user the request's token speaks for (the hook below has already refused the others). */
async function userOf(request: FastifyRequest): Promise<number> {
  return boardUserOf(await request.requireBearer());
}

/**
 * The board and comment endpoints of the contract (§3.8, §3.9), and accepting and renewing a
 * board's links. Every one needs a signed-in user's token. Registered with the board's own
 * path last, so that the conformance fuzzer deletes the board it tries after everything else.
 */
export async function boardsRoutes(app: FastifyInstance, options: BoardsRoutesOptions): Promise<void> {
  // No token: 401 before any complaint about the request; a token of no user: 403.
  app.addHook('onRequest', async (request) => {
    if (request.method !== 'OPTIONS') boardUserOf(await request.requireBearer());
  });
  await app.register(boardListRoutes, options);
  await app.register(boardInvitationRoutes, options);
  await app.register(boardAssetRoutes, options);
  await app.register(boardCommentRoutes, options);
  await app.register(boardSendRoutes, options);
  await app.register(boardLinkRoutes, options);
  await app.register(boardDetailRoutes, options);
}

/** The user’s boards: the list, and a new board. */
async function boardListRoutes(app: FastifyInstance, { boards }: BoardsRoutesOptions): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.get(
    '/boards',
    {
      schema: {
        tags,
        summary: 'The boards the user owns or was invited to',
        security,
        querystring: BoardListQuery,
        response: { 200: BoardList, ...BAD_INPUT, ...USER_ONLY },
      },
    },
    async (request) => {
      const query = request.query;
      return boards.list(await userOf(request), {
        page: query.page ?? 1,
        pageSize: query.page_size ?? query.pageSize ?? DEFAULT_PAGE_SIZE,
        relationship: query.board_relationship,
        sort: boardSort(query.sort_order),
      });
    },
  );

  api.post(
    '/boards',
    {
      schema: {
        tags,
        summary: 'Create a board',
        description: `A user may own at most ${BOARD_LIMITS.boardsPerUser} boards.`,
        security,
        body: BoardInfo,
        response: { 201: Created, ...BAD_INPUT, ...USER_ONLY },
      },
    },
    async (request, reply) => {
      const created = await boards.create(await userOf(request), request.body);
      return reply.code(201).send(created);
    },
  );
}

/** Accepting a board’s invitation, which makes the user an invited editor. */
async function boardInvitationRoutes(app: FastifyInstance, { boards }: BoardsRoutesOptions): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.post(
    '/boards/invitations/:invitation_token',
    {
      schema: {
        tags,
        summary: 'Accept a board’s invitation',
        description:
          'The URL is the `links.invitation` of a board, which its owner hands to a colleague. The signed-in user becomes an ' +
          'invited editor (GET /boards?board_relationship=invited lists the board); accepting again, or as the owner, changes nothing.',
        security,
        params: InvitationParams,
        response: {
          200: Created,
          ...BAD_INPUT,
          ...USER_ONLY,
          404: Refusal('InvitationNotFound: no board has this invitation, or its owner revoked it'),
        },
      },
    },
    async (request) => boards.acceptInvitation(await userOf(request), request.params.invitation_token),
  );
}

/** The assets on a board: added and removed, several at a time or one. */
async function boardAssetRoutes(app: FastifyInstance, { boards }: BoardsRoutesOptions): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.put(
    '/boards/:board_id/assets',
    {
      schema: {
        tags,
        summary: 'Add assets to a board',
        description:
          `At most ${BOARD_LIMITS.assetsPerRequest} a request and ${BOARD_LIMITS.assetsPerBoard} on a board. Ids the catalogue does not ` +
          'have are listed in assets_not_added; an asset already on the board is listed as added and changes nothing.',
        security,
        params: BoardParams,
        body: AddAssetsBody,
        response: { 201: AddBoardAssetsResult, ...BAD_INPUT, ...USER_ONLY, ...BOARD_MISSING },
      },
      // null adds nothing, but a request without a body is refused: the schema cannot tell them apart.
      preValidation: requireBody,
    },
    async (request, reply) => {
      const { board_id: boardId } = request.params;
      const body = request.body ?? [];
      const result = await boards.addAssets(await userOf(request), boardId, body.map((asset) => asset.asset_id));
      return reply.code(201).send(result);
    },
  );

  api.delete(
    '/boards/:board_id/assets',
    {
      schema: {
        tags,
        summary: 'Remove assets from a board',
        description: 'Ids not on the board are ignored.',
        security,
        params: BoardParams,
        querystring: RemoveAssetsQuery,
        response: { 200: NoContent('Removed'), ...BAD_INPUT, ...USER_ONLY, ...BOARD_MISSING },
      },
    },
    async (request, reply) => {
      const { board_id: boardId } = request.params;
      const { asset_ids: sent } = request.query;
      await boards.removeAssets(await userOf(request), boardId, sent ?? []);
      return reply.code(200).send();
    },
  );

  api.put(
    '/boards/:board_id/assets/:asset_id',
    {
      schema: {
        tags,
        summary: 'Add one asset to a board',
        description: 'Adding an asset already on the board changes nothing.',
        security,
        params: BoardAssetParams,
        response: {
          201: NoContent('Added (or already there)'),
          ...BAD_INPUT,
          403: Refusal(`AssetNotFound: the catalogue has no such asset; ${NO_USER}`),
          ...BOARD_MISSING,
        },
      },
    },
    async (request, reply) => {
      const { board_id: boardId, asset_id: assetId } = request.params;
      await boards.addAsset(await userOf(request), boardId, assetId);
      return reply.code(201).send();
    },
  );

  api.delete(
    '/boards/:board_id/assets/:asset_id',
    {
      schema: {
        tags,
        summary: 'Remove one asset from a board',
        description: 'An asset not on the board is ignored.',
        security,
        params: BoardAssetParams,
        response: { 200: NoContent('Removed'), ...BAD_INPUT, ...USER_ONLY, ...BOARD_MISSING },
      },
    },
    async (request, reply) => {
      const { board_id: boardId, asset_id: assetId } = request.params;
      await boards.removeAssets(await userOf(request), boardId, [assetId]);
      return reply.code(200).send();
    },
  );
}

/** A board’s comments: read, written and deleted. */
async function boardCommentRoutes(app: FastifyInstance, { boards }: BoardsRoutesOptions): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.get(
    '/boards/:board_id/comments',
    {
      schema: {
        tags,
        summary: 'The comments on a board',
        security,
        params: BoardParams,
        response: { 200: CommentsList, ...BAD_INPUT, ...USER_ONLY, ...BOARD_MISSING },
      },
    },
    async (request) => boards.comments(await userOf(request), request.params.board_id),
  );

  api.post(
    '/boards/:board_id/comments',
    {
      schema: {
        tags,
        summary: 'Comment on a board',
        description: `The owner and invited editors may comment; a board holds at most ${BOARD_LIMITS.commentsPerBoard} comments.`,
        security,
        params: BoardParams,
        body: CommentRequest,
        response: { 201: Created, ...BAD_INPUT, ...USER_ONLY, ...BOARD_MISSING },
      },
    },
    async (request, reply) => {
      const { board_id: boardId } = request.params;
      const created = await boards.addComment(await userOf(request), boardId, request.body);
      return reply.code(201).send(created);
    },
  );

  api.delete(
    '/boards/:board_id/comments/:comment_id',
    {
      schema: {
        tags,
        summary: 'Delete a comment',
        description: 'Its author and the board’s owner may delete a comment.',
        security,
        params: BoardCommentParams,
        response: {
          204: NoContent('Deleted'),
          ...BAD_INPUT,
          403: Refusal(`${NO_USER}; InsufficientAccess: an editor tried to delete another person’s comment`),
          404: Refusal('BoardNotFound (as for every board operation); CommentNotFound: the board has no such comment'),
        },
      },
    },
    async (request, reply) => {
      const { board_id: boardId, comment_id: commentId } = request.params;
      await boards.deleteComment(await userOf(request), boardId, commentId);
      return reply.code(204).send();
    },
  );
}

/** Sending a board to a person (the owner’s). */
async function boardSendRoutes(app: FastifyInstance, { boards }: BoardsRoutesOptions): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.post(
    '/boards/:board_id/sends',
    {
      schema: {
        tags,
        summary: 'Send a board to a person',
        description:
          'The owner only. Records each of the board’s assets (those in the catalogue now) as sent to the email address: ' +
          'the client the request came through reads them in GET /v3/asset-management/assets/send-events. ' +
          'Stockroom sends no mail: the answer holds the board’s read-only share link to pass on.',
        security,
        params: BoardParams,
        body: SendBoardBody,
        response: { 201: BoardSent, ...BAD_INPUT, ...OWNER_ACTION, ...BOARD_MISSING },
      },
    },
    async (request, reply) => {
      const { board_id: boardId } = request.params;
      const { email_address: emailAddress } = request.body;
      const sent = await boards.send(await userOf(request), request.apiClient.id, boardId, emailAddress);
      return reply.code(201).send(sent);
    },
  );
}

/** Renewing a board’s invitation or share link (the owner’s). */
async function boardLinkRoutes(app: FastifyInstance, { boards }: BoardsRoutesOptions): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.delete(
    '/boards/:board_id/links/:link',
    {
      schema: {
        tags,
        summary: 'Revoke a board’s invitation or share link',
        description:
          'The owner only. A new link replaces the old one, which opens nothing from then on; the answer is the board’s links. ' +
          'Editors who accepted an earlier invitation stay editors.',
        security,
        params: BoardLinkParams,
        response: { 200: BoardLinksBody, ...BAD_INPUT, ...OWNER_ACTION, ...BOARD_MISSING },
      },
    },
    async (request) => {
      const { board_id: boardId, link } = request.params;
      return boards.renewLink(await userOf(request), boardId, link);
    },
  );
}

/** The board itself: read, renamed, deleted. */
async function boardDetailRoutes(app: FastifyInstance, { boards }: BoardsRoutesOptions): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.get(
    '/boards/:board_id',
    {
      schema: {
        tags,
        summary: 'A board, its assets, permissions and links',
        description: 'Assets withdrawn from the catalogue have left the board. links are the owner’s; an editor sees null.',
        security,
        params: BoardParams,
        response: { 200: BoardDetail, ...BAD_INPUT, ...USER_ONLY, ...BOARD_MISSING },
      },
    },
    async (request) => boards.get(await userOf(request), request.params.board_id),
  );

  api.put(
    '/boards/:board_id',
    {
      schema: {
        tags,
        summary: 'Rename a board, or change its description',
        description: 'The owner only. A description absent from the body is kept; null or blank clears it.',
        security,
        params: BoardParams,
        body: BoardInfo,
        response: { 204: NoContent('Updated'), ...BAD_INPUT, ...OWNER_ACTION, ...BOARD_MISSING },
      },
    },
    async (request, reply) => {
      const { board_id: boardId } = request.params;
      await boards.update(await userOf(request), boardId, request.body);
      return reply.code(204).send();
    },
  );

  api.delete(
    '/boards/:board_id',
    {
      schema: {
        tags,
        summary: 'Delete a board',
        description: 'The owner only; its assets, comments and editors go with it.',
        security,
        params: BoardParams,
        response: { 204: NoContent('Deleted'), ...BAD_INPUT, ...OWNER_ACTION, ...BOARD_MISSING },
      },
    },
    async (request, reply) => {
      await boards.delete(await userOf(request), request.params.board_id);
      return reply.code(204).send();
    },
  );
}

/** The read-only view a board's share link opens: no key, no sign-in (JSON now; a web page later). */
export async function sharedBoardRoutes(app: FastifyInstance, options: BoardsRoutesOptions): Promise<void> {
  const { boards } = options;
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.get(
    '/shared/boards/:share_token',
    {
      schema: {
        tags,
        summary: 'A board shown through its share link',
        description: 'The URL is the `links.share` of a board. No Api-Key or token: the link is the permission, until the owner revokes it.',
        security: [],
        params: ShareParams,
        response: {
          200: SharedBoard,
          400: Refusal('A token longer than any share link'),
          404: Refusal('BoardNotFound: no board has this share link, or its owner revoked it'),
        },
      },
    },
    async (request) => boards.shared(request.params.share_token),
  );
}
