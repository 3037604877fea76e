import { Type, type Static } from '@sinclair/typebox';
import { Choice, CommaList, READING } from '../platform/http/parameters.js';
import { BOARD_LINK_KINDS } from './board-links.js';
import { BOARD_LIMITS } from './boards.policy.js';
import { EMAIL_ADDRESS_PATTERN, MAX_EMAIL_ADDRESS_LENGTH } from '../platform/http/email-address.js';
import type { BoardRelationship, BoardSort } from './boards.repository.js';

/*
 * The shapes of the board and comment endpoints, in the contract's names (§3.8, §3.9), and
 * the endpoints of their links.
 */

const S = Type.String();
const I = Type.Integer();
const B = Type.Boolean();
const DateTime = Type.String({ format: 'date-time' });
const NullableText = Type.Union([Type.String(), Type.Null()]);

/** Far past any real list; it keeps the row offset a safe integer. */
const MAX_PAGE = 100_000;

/** An error answer of these endpoints, with what it means here. */
export const Refusal = (description: string) => Type.Object({ message: S, code: S }, { description });

export const NOT_FOUND = Refusal('BoardNotFound: no such board, or one the caller neither owns nor was invited to');
export const NO_USER = 'UserTokenRequired: a client-credentials token acts for no user';
export const OWNER_ONLY = 'InsufficientAccess: an invited editor tried what only the owner may do';
export const INPUT = 'InvalidParameterValue naming the parameter: a malformed value, or a limit of boards, assets or comments reached';

// ── parameters ──────────────────────────────────────────────────────────────

export const BoardParams = Type.Object({ board_id: Type.String({ minLength: 1, maxLength: 64, description: 'Board id' }) });
export const BoardAssetParams = Type.Object({
  board_id: BoardParams.properties.board_id,
  asset_id: Type.String({ minLength: 1, maxLength: 64, description: 'Image or video id' }),
});
export const BoardCommentParams = Type.Object({
  board_id: BoardParams.properties.board_id,
  comment_id: Type.String({ minLength: 1, maxLength: 64, description: 'Comment id' }),
});
export const BoardLinkParams = Type.Object({
  board_id: BoardParams.properties.board_id,
  link: Choice(BOARD_LINK_KINDS, 'invitation or share'),
});
export const InvitationParams = Type.Object({
  invitation_token: Type.String({ minLength: 1, maxLength: 100, description: 'The last part of the board’s links.invitation' }),
});
export const ShareParams = Type.Object({
  share_token: Type.String({ minLength: 1, maxLength: 100, description: 'The last part of the board’s links.share' }),
});

export const BOARD_RELATIONSHIPS: readonly BoardRelationship[] = ['owned', 'invited'];
/** The contract's misspelt name_decending is taken as name_descending. */
export const BOARD_SORT_ORDERS = ['date_last_updated_descending', 'date_last_updated_ascending', 'name_ascending', 'name_descending', 'name_decending'] as const;

const pageSize = (description: string) => Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description }));

export const BoardListQuery = Type.Object(
  {
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, description: 'Page number, from 1.' })),
    pageSize: pageSize('Boards per page, 1 to 100; default 30 (the contract’s camelCase name).'),
    page_size: pageSize('Same as pageSize.'),
    board_relationship: Type.Optional(Choice(BOARD_RELATIONSHIPS, 'owned or invited (as an editor); without it, both.')),
    sort_order: Type.Optional(
      Choice(BOARD_SORT_ORDERS, 'default date_last_updated_descending; name_decending (the contract’s spelling) is name_descending.'),
    ),
  },
  { additionalProperties: false },
);

/** The order a list asks for: the default when none, and the contract's misspelt name_decending as name_descending. */
export function boardSort(value: (typeof BOARD_SORT_ORDERS)[number] | undefined): BoardSort {
  const sort = value ?? 'date_last_updated_descending';
  return sort === 'name_decending' ? 'name_descending' : sort;
}

export const RemoveAssetsQuery = Type.Object(
  {
    asset_ids: Type.Optional(
      CommaList(Type.String({ minLength: 1, maxLength: 64 }), `Assets to remove, at most ${BOARD_LIMITS.assetsPerRequest}: repeated or comma-separated.`, {
        maxItems: BOARD_LIMITS.assetsPerRequest,
      }),
    ),
  },
  { additionalProperties: false },
);

// ── bodies ──────────────────────────────────────────────────────────────────

export const BoardInfo = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: BOARD_LIMITS.nameLength, pattern: '\\S', description: `Not blank; at most ${BOARD_LIMITS.nameLength} characters.` }),
    description: Type.Optional(
      Type.Union([Type.String({ maxLength: BOARD_LIMITS.descriptionLength }), Type.Null()], {
        description: `At most ${BOARD_LIMITS.descriptionLength} characters. On update: absent keeps the description, null or blank clears it.`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type BoardInfoBody = Static<typeof BoardInfo>;

export const BoardAsset = Type.Object(
  { asset_id: Type.String({ minLength: 1, maxLength: 64, description: 'Image or video id' }) },
  { additionalProperties: false },
);

export const AddAssetsBody = Type.Union(
  [Type.Array(BoardAsset, { maxItems: BOARD_LIMITS.assetsPerRequest }), Type.Null()],
  { description: `The assets to add, at most ${BOARD_LIMITS.assetsPerRequest}; null adds none.` },
);

export const CommentRequest = Type.Object(
  {
    text: Type.String({ minLength: 1, maxLength: BOARD_LIMITS.commentLength, pattern: '\\S', description: `Not blank; at most ${BOARD_LIMITS.commentLength} characters.` }),
  },
  { additionalProperties: false },
);

// ── answers ─────────────────────────────────────────────────────────────────

export const Asset = Type.Object(
  {
    id: S,
    asset_type: Type.String({ description: 'image or video' }),
    date_added: DateTime,
    display_sizes: Type.Array(Type.Object({ name: S, uri: S }), { description: 'comp, preview and thumb: signed, expiring URLs' }),
  },
  { description: 'An asset on a board.' },
);

const Links = Type.Object(
  {
    invitation: Type.Union([S, Type.Null()], { description: 'The owner hands it to a colleague, who accepts it with POST; null for an editor' }),
    share: Type.Union([S, Type.Null()], { description: 'A read-only view of the board, no sign-in needed; null for an editor' }),
  },
  { description: 'The board’s links; each can be revoked (renewed) by the owner.' },
);
export { Links as BoardLinksBody };

export const BoardList = Type.Object({
  boards: Type.Array(
    Type.Object({
      id: S,
      asset_count: I,
      date_created: DateTime,
      date_last_updated: DateTime,
      description: NullableText,
      hero_asset: Type.Union([Asset, Type.Null()], { description: 'The most recently added asset still in the catalogue; null for an empty board' }),
      name: S,
      board_relationship: Type.String({ description: 'owned or invited' }),
    }),
  ),
  board_count: Type.Integer({ description: 'Boards in all, over every page' }),
});

export const Created = Type.Object({ id: S });

const SEND_TO = 'Whom the board is sent to; the send is recorded for each of its assets (GET /v3/asset-management/assets/send-events).';

export const SendBoardBody = Type.Object(
  {
    email_address: Type.String({
      pattern: EMAIL_ADDRESS_PATTERN,
      maxLength: MAX_EMAIL_ADDRESS_LENGTH,
      description: SEND_TO,
      [READING]: { expected: 'an email address' },
    }),
  },
  { additionalProperties: false },
);

export const BoardSent = Type.Object({
  email_address: S,
  assets_sent: Type.Integer({ description: 'The board’s assets in the catalogue now, each recorded as sent.' }),
  share_link: Type.String({ description: 'The board’s read-only link, to pass on: Stockroom sends no mail itself.' }),
});

export const BoardDetail = Type.Object(
  {
    id: S,
    asset_count: I,
    assets: Type.Array(Asset, { description: 'In the owner’s order: assets added since the owner last ordered the board first, the most recently added first' }),
    date_created: DateTime,
    date_last_updated: DateTime,
    description: NullableText,
    name: S,
    comment_count: I,
    permissions: Type.Object({
      can_delete_board: B,
      can_invite_to_board: B,
      can_update_name: B,
      can_update_description: B,
      can_add_assets: B,
      can_remove_assets: B,
    }),
    links: Links,
  },
  { $id: 'BoardDetail' },
);

export const AddBoardAssetsResult = Type.Object(
  {
    assets_added: Type.Array(BoardAsset, { description: 'On the board now (including those already there)' }),
    assets_not_added: Type.Array(S, { description: 'Ids the catalogue does not have' }),
  },
  { $id: 'AddBoardAssetsResult' },
);

export const CommentsList = Type.Object(
  {
    comments: Type.Array(
      Type.Object({
        id: S,
        text: S,
        date_created: DateTime,
        created_by: Type.Object({ first_name: NullableText, last_name: NullableText }),
        permissions: Type.Object({ can_delete_comment: B }),
      }),
      { description: 'Oldest first' },
    ),
    permissions: Type.Object({ can_add_comment: B }),
  },
  { $id: 'CommentsList' },
);

export const SharedBoard = Type.Object(
  {
    name: S,
    description: NullableText,
    asset_count: I,
    assets: Type.Array(Asset),
    date_created: DateTime,
    date_last_updated: DateTime,
  },
  { $id: 'SharedBoard', description: 'What a share link shows: the board and its assets, nothing of who keeps it.' },
);

export const NoContent = (description: string) => ({ description, type: 'null' });
