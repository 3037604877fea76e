import { ApiError, userTokenRequired } from '../platform/http/errors.js';
import type { BoardAction } from './boards.policy.js';

/* The boards' refusals. */

/** 403 for a valid token that speaks for no user (client credentials), as the downloads answer. */
export function boardUserTokenRequired(): ApiError {
  return userTokenRequired('Boards belong to users: this request needs a token issued for a signed-in user; a client-credentials token acts for no user');
}

/** The same answer for a board that does not exist and one the caller may not see: its existence is not revealed. */
export function boardNotFound(): ApiError {
  return new ApiError(404, 'BoardNotFound', 'Board not found: no board with this id is yours or shared with you');
}

/** A share link or a send that names no board, or one whose link was renewed since. */
export function sharedBoardNotFound(): ApiError {
  return new ApiError(404, 'BoardNotFound', 'This shared board does not exist, or its link was revoked');
}

export function invitationNotFound(): ApiError {
  return new ApiError(404, 'InvitationNotFound', 'This invitation does not exist or was revoked: ask the board’s owner for a new one');
}

export function commentNotFound(commentId: string): ApiError {
  return new ApiError(404, 'CommentNotFound', `Comment not found: ${commentId}`);
}

export function assetNotOnBoard(assetId: string): ApiError {
  return new ApiError(404, 'AssetNotOnBoard', `Asset ${assetId} is not on this board`);
}

/** 403, not 404: an asset added to a board must be one the caller may see in the catalogue. */
export function boardAssetNotFound(assetId: string): ApiError {
  return new ApiError(403, 'AssetNotFound', `Asset not found: ${assetId}`);
}

const ACTION_WORDS: Readonly<Record<BoardAction, string>> = {
  rename: 'rename the board',
  describe: 'change the board’s description',
  delete_board: 'delete the board',
  invite: 'renew the board’s invitation link',
  share: 'renew the board’s share link or send the board to someone',
  add_assets: 'add assets',
  remove_assets: 'remove assets',
  comment: 'comment',
  delete_any_comment: 'delete another person’s comment',
  arrange: 'change the order of the board’s assets',
  annotate: 'write a note on an asset',
  share_comments: 'choose whether the share link shows the comments',
};

export function insufficientAccess(action: BoardAction): ApiError {
  return new ApiError(403, 'InsufficientAccess', `Only the board’s owner may ${ACTION_WORDS[action]}`);
}
