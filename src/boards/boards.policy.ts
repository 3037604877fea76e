/*
 * Who may do what on a board, and how much a board may hold: one table of roles that drives
 * both the checks and the `permissions` objects of the answers, and the limits.
 */

/** owner: made the board. editor: accepted its invitation. */
export type BoardRole = 'owner' | 'editor';

export type BoardAction =
  | 'rename'
  | 'describe'
  | 'delete_board'
  | 'invite'
  /** renew the share link, and send the board to someone */
  | 'share'
  | 'add_assets'
  | 'remove_assets'
  | 'comment'
  /** delete any comment; an author may always delete their own */
  | 'delete_any_comment'
  /** put the assets in an order (the owner's order) */
  | 'arrange'
  /** write the note on an asset of the board */
  | 'annotate'
  /** choose whether the page the share link opens shows the comments */
  | 'share_comments';

export const ROLE_ACTIONS: Readonly<Record<BoardRole, ReadonlySet<BoardAction>>> = {
  owner: new Set<BoardAction>([
    'rename',
    'describe',
    'delete_board',
    'invite',
    'share',
    'add_assets',
    'remove_assets',
    'comment',
    'delete_any_comment',
    'arrange',
    'annotate',
    'share_comments',
  ]),
  editor: new Set<BoardAction>(['add_assets', 'remove_assets', 'comment', 'annotate']),
};

export function may(role: BoardRole, action: BoardAction): boolean {
  return ROLE_ACTIONS[role].has(action);
}

/** BoardDetail.permissions, from the table. */
export function boardPermissions(role: BoardRole) {
  return {
    can_delete_board: may(role, 'delete_board'),
    can_invite_to_board: may(role, 'invite'),
    can_update_name: may(role, 'rename'),
    can_update_description: may(role, 'describe'),
    can_add_assets: may(role, 'add_assets'),
    can_remove_assets: may(role, 'remove_assets'),
  };
}

/** A comment may be deleted by its author and by whoever may delete any comment (the owner). */
export function mayDeleteComment(role: BoardRole, userId: number, authorId: number | null): boolean {
  return authorId === userId || may(role, 'delete_any_comment');
}

export interface BoardLimits {
  readonly boardsPerUser: number;
  readonly assetsPerBoard: number;
  readonly commentsPerBoard: number;
  readonly assetsPerRequest: number;
  readonly nameLength: number;
  readonly descriptionLength: number;
  readonly commentLength: number;
  readonly noteLength: number;
}

/** Bounds a real service keeps: each is stated in the OpenAPI document and docs/boards.md. */
export const BOARD_LIMITS: BoardLimits = {
  /** Boards a user owns. */
  boardsPerUser: 500,
  assetsPerBoard: 2500,
  commentsPerBoard: 1000,
  /** Assets one PUT /boards/{id}/assets or DELETE /boards/{id}/assets names. */
  assetsPerRequest: 100,
  nameLength: 100,
  descriptionLength: 1000,
  commentLength: 1000,
  /** A note on one asset of a board (the web pages' own; the API has no field for it). */
  noteLength: 500,
};
