import type { AssetRecord, AssetType } from '../catalog/catalog.records.js';
import type { DisplaySizeProvider } from '../catalog/catalog.service.js';
import { invalidParameter, invalidParameterValue } from '../platform/http/errors.js';
import { utcDateTime } from '../platform/http/date-time.js';
import type { BoardLinkKind, BoardLinks } from './board-links.js';
import {
  assetNotOnBoard,
  boardAssetNotFound,
  boardNotFound,
  boardUserTokenRequired,
  commentNotFound,
  insufficientAccess,
  invitationNotFound,
  sharedBoardNotFound,
} from './boards.errors.js';
import { randomId } from './board-links.js';
import { BOARD_LIMITS, boardPermissions, type BoardLimits, may, mayDeleteComment, type BoardAction, type BoardRole } from './boards.policy.js';
import type { BoardAccess, BoardAssetRow, BoardRelationship, BoardRow, BoardSort, BoardsRepository } from './boards.repository.js';

/** The catalogue's part: which assets exist, and what they are. */
export interface BoardCatalog {
  findAssets(assetType: AssetType, ids: readonly string[]): Promise<{ found: AssetRecord[]; notFound: string[] }>;
}

/** Oauth's users: the names shown on comments. */
export interface BoardPeople {
  findByIds(ids: readonly number[]): Promise<ReadonlyMap<number, { first_name: string | null; last_name: string | null }>>;
}

/** Where a board sent to an email address is recorded (asset management's send events). */
export interface BoardSends {
  recordSend(send: { clientId: number; userId: number; boardId: string; emailAddress: string; assetIds: readonly string[] }): Promise<{
    emailAddress: string;
    assetsSent: number;
  }>;
}

export interface BoardsServiceDeps {
  repository: BoardsRepository;
  sends: BoardSends;
  catalog: BoardCatalog;
  displaySizes: DisplaySizeProvider;
  people: BoardPeople;
  links: BoardLinks;
  now: () => Date;
  /** The bounds of boards, assets and comments; BOARD_LIMITS unless a test asks for smaller ones. */
  limits?: BoardLimits;
}

/** What the bearer grant says of the caller. */
export interface BoardGrant {
  userId: number | null;
}

/** The display sizes every board asset shows. */
const ASSET_DISPLAY_SIZES = ['comp', 'preview', 'thumb'];

export interface BoardAssetView {
  id: string;
  asset_type: AssetType;
  date_added: string;
  display_sizes: Array<{ name: string; uri: string }>;
}

/** Where an asset moves in the board's order: a place up or down, or to an index from 0 (clamped to the board). */
export type BoardMove = 'up' | 'down' | { to: number };

/**
 * What the catalogue browser shows of a board beyond the API's BoardDetail, which has no field
 * for it: the notes on its assets, whether the share link shows the comments, and what the
 * person may change of these.
 */
export interface BoardArrangement {
  /** asset id → its note */
  notes: ReadonlyMap<string, string>;
  shareComments: boolean;
  canArrange: boolean;
  canAnnotate: boolean;
  canChooseShareComments: boolean;
}

export interface BoardListQuery {
  page: number;
  pageSize: number;
  relationship: BoardRelationship | undefined;
  sort: BoardSort;
}

// ── the user and the text a request names ─────────────────────────────────

/** The user a token speaks for; 403 UserTokenRequired without one. */
export function boardUserOf(grant: BoardGrant): number {
  if (grant.userId === null) throw boardUserTokenRequired();
  return grant.userId;
}

/** Text a person typed: trimmed, not blank, at most `max` characters. */
function checkedText(parameter: string, value: string, max: number): string {
  const text = value.trim();
  if (text === '') throw invalidParameter(parameter, 'it is blank');
  if (text.length > max) throw invalidParameter(parameter, `at most ${max} characters`);
  return text;
}

function checkedDescription(value: string | null | undefined, max: number): string | null | undefined {
  if (value === undefined || value === null) return value;
  const text = value.trim();
  if (text.length > max) throw invalidParameter('description', `at most ${max} characters`);
  return text === '' ? null : text;
}

/** Each id once, in the order first given. */
const unique = (ids: readonly string[]) => [...new Set(ids)];

/**
 * Boards: collections of assets a customer keeps, shares with colleagues who add to them and
 * comment, and shows a client through a read-only link. Every method takes the user a token
 * speaks for; a board the user neither owns nor edits answers 404 BoardNotFound.
 */
export class BoardsService {
  private readonly repository: BoardsRepository;
  private readonly catalog: BoardCatalog;
  private readonly displaySizes: DisplaySizeProvider;
  private readonly people: BoardPeople;
  private readonly sends: BoardSends;
  private readonly links: BoardLinks;
  private readonly now: () => Date;
  readonly limits: BoardLimits;

  constructor(deps: BoardsServiceDeps) {
    this.repository = deps.repository;
    this.catalog = deps.catalog;
    this.displaySizes = deps.displaySizes;
    this.people = deps.people;
    this.sends = deps.sends;
    this.links = deps.links;
    this.now = deps.now;
    this.limits = deps.limits ?? BOARD_LIMITS;
  }

  // ── boards ────────────────────────────────────────────────────────────────

  async list(userId: number, query: BoardListQuery) {
    // A hero asset found withdrawn from the catalogue leaves its board, and the page is read again.
    for (let attempt = 1; ; attempt++) {
      const listing = await this.repository.listBoards(userId, {
        relationship: query.relationship,
        sort: query.sort,
        offset: (query.page - 1) * query.pageSize,
        limit: query.pageSize,
      });
      const latest = await this.repository.latestAssets(listing.rows.map((row) => row.id));
      const { present, missing } = await this.inCatalog(latest);
      if (missing.length > 0 && attempt < 3) {
        for (const row of missing) await this.repository.removeAssets(row.board_id, [row.asset_id], undefined);
        continue;
      }
      const heroes = new Map(present.map((entry) => [entry.row.board_id, this.assetView(entry.row, entry.record)]));
      return {
        boards: listing.rows.map((row) => ({
          id: row.id,
          asset_count: row.asset_count,
          date_created: utcDateTime(row.date_created),
          date_last_updated: utcDateTime(row.date_last_updated),
          description: row.description,
          hero_asset: heroes.get(row.id) ?? null,
          name: row.name,
          board_relationship: row.relationship,
        })),
        board_count: listing.total,
      };
    }
  }

  async create(userId: number, input: { name: string; description?: string | null | undefined }): Promise<{ id: string }> {
    const name = checkedText('name', input.name, this.limits.nameLength);
    const description = checkedDescription(input.description, this.limits.descriptionLength) ?? null;
    const now = this.now().toISOString();
    const invitation = this.links.create('invitation');
    const share = this.links.create('share');
    const id = randomId();
    const created = await this.repository.createBoard(
      {
        id,
        owner_id: userId,
        name,
        description,
        date_created: now,
        date_last_updated: now,
        invitation_nonce: invitation.nonce,
        invitation_hash: invitation.hash,
        share_nonce: share.nonce,
        share_hash: share.hash,
      },
      this.limits.boardsPerUser,
    );
    if (!created) throw invalidParameterValue(`Too many boards: a user may own at most ${this.limits.boardsPerUser}; delete one to make another`);
    return { id };
  }

  async get(userId: number, boardId: string) {
    const { board, role } = await this.access(boardId, userId);
    const { assets, withdrawn } = await this.currentAssets(board.id);
    return {
      id: board.id,
      asset_count: board.asset_count - withdrawn,
      assets,
      date_created: utcDateTime(board.date_created),
      date_last_updated: utcDateTime(board.date_last_updated),
      description: board.description,
      name: board.name,
      comment_count: board.comment_count,
      permissions: boardPermissions(role),
      links: this.linksOf(board, role),
    };
  }

  /** Renames the board; a description given replaces the old one (null or blank clears it), an absent one keeps it. */
  async update(userId: number, boardId: string, input: { name: string; description?: string | null | undefined }): Promise<void> {
    const name = checkedText('name', input.name, this.limits.nameLength);
    const description = checkedDescription(input.description, this.limits.descriptionLength);
    const { board, role } = await this.access(boardId, userId);
    this.require(role, 'rename');
    if (description !== undefined) this.require(role, 'describe');
    const changes = description === undefined ? { name } : { name, description };
    if (!(await this.repository.updateBoard(board.id, changes, this.now().toISOString()))) throw boardNotFound();
  }

  async delete(userId: number, boardId: string): Promise<void> {
    const { board, role } = await this.access(boardId, userId);
    this.require(role, 'delete_board');
    await this.repository.deleteBoard(board.id);
  }

  // ── assets ────────────────────────────────────────────────────────────────

  /** Adds the assets the catalogue has; the others are listed in assets_not_added. An asset already on the board counts as added. */
  async addAssets(userId: number, boardId: string, assetIds: readonly string[]) {
    const ids = unique(assetIds);
    if (ids.length > this.limits.assetsPerRequest) {
      throw invalidParameterValue(`Too many assets in one request: at most ${this.limits.assetsPerRequest}, ${ids.length} given`);
    }
    const { board, role } = await this.access(boardId, userId);
    this.require(role, 'add_assets');
    const { found, notFound: unknown } = await this.lookUp(ids);
    await this.store(board.id, found);
    return { assets_added: found.map((asset) => ({ asset_id: asset.id })), assets_not_added: unknown };
  }

  /** Adds one asset; 403 AssetNotFound for one the catalogue does not have (the contract's status). */
  async addAsset(userId: number, boardId: string, assetId: string): Promise<void> {
    const { board, role } = await this.access(boardId, userId);
    this.require(role, 'add_assets');
    const { found } = await this.lookUp([assetId]);
    if (found.length === 0) throw boardAssetNotFound(assetId);
    await this.store(board.id, found);
  }

  /** Removes the assets named; ids not on the board are ignored. */
  async removeAssets(userId: number, boardId: string, assetIds: readonly string[]): Promise<void> {
    const ids = unique(assetIds);
    if (ids.length > this.limits.assetsPerRequest) {
      throw invalidParameterValue(`Too many assets in one request: at most ${this.limits.assetsPerRequest}, ${ids.length} given`);
    }
    const { board, role } = await this.access(boardId, userId);
    this.require(role, 'remove_assets');
    if ((await this.repository.removeAssets(board.id, ids, this.now().toISOString())) === undefined) throw boardNotFound();
  }

  // ── arrangement ───────────────────────────────────────────────────────────

  /**
   * Moves one asset in the board's order (the owner's). Every asset then has its place, so an
   * asset added later comes first until the owner moves it. 404 AssetNotOnBoard for an asset the
   * board does not hold; a move past either end changes nothing.
   */
  async moveAsset(userId: number, boardId: string, assetId: string, move: BoardMove): Promise<void> {
    if (typeof move === 'object' && !(Number.isSafeInteger(move.to) && move.to >= 0)) {
      throw invalidParameter('to', 'a place in the board from 0');
    }
    const { board, role } = await this.access(boardId, userId);
    this.require(role, 'arrange');
    let onBoard = true;
    const moved = await this.repository.reorder(
      board.id,
      (ids) => {
        const from = ids.indexOf(assetId);
        if (from < 0) {
          onBoard = false;
          return undefined;
        }
        const wanted = move === 'up' ? from - 1 : move === 'down' ? from + 1 : move.to;
        const to = Math.min(ids.length - 1, Math.max(0, wanted));
        const order = ids.filter((id) => id !== assetId);
        order.splice(to, 0, assetId);
        return order;
      },
      this.now().toISOString(),
    );
    if (moved === undefined) throw boardNotFound();
    if (!onBoard) throw assetNotOnBoard(assetId);
  }

  /** Writes the note on one asset of the board; a blank note clears it. 404 AssetNotOnBoard for an asset the board does not hold. */
  async setNote(userId: number, boardId: string, assetId: string, note: string): Promise<void> {
    const text = note.trim();
    if (text.length > this.limits.noteLength) {
      throw invalidParameter('note', `at most ${this.limits.noteLength} characters`);
    }
    const { board, role } = await this.access(boardId, userId);
    this.require(role, 'annotate');
    if (!(await this.repository.setNote(board.id, assetId, text === '' ? null : text))) throw assetNotOnBoard(assetId);
  }

  /** The owner's choice: whether the page the share link opens shows the board's comments. */
  async setShareComments(userId: number, boardId: string, show: boolean): Promise<void> {
    const { board, role } = await this.access(boardId, userId);
    this.require(role, 'share_comments');
    if (!(await this.repository.setShareComments(board.id, show))) throw boardNotFound();
  }

  /** The notes, the share setting and what the person may change of them (the API's BoardDetail has no field for these). */
  async arrangement(userId: number, boardId: string): Promise<BoardArrangement> {
    const { board, role } = await this.access(boardId, userId);
    const rows = await this.repository.boardAssets(board.id);
    return {
      notes: new Map(rows.filter((row) => row.note !== null).map((row) => [row.asset_id, row.note!])),
      shareComments: board.share_comments === 1,
      canArrange: may(role, 'arrange'),
      canAnnotate: may(role, 'annotate'),
      canChooseShareComments: may(role, 'share_comments'),
    };
  }

  /**
   * The comments of a shared board, oldest first, when its owner chose to show them with the
   * share link; undefined otherwise. Each names its author by first name only: the page is
   * open to whoever holds the link.
   */
  async sharedComments(token: string): Promise<Array<{ text: string; author: string | null; date_created: string }> | undefined> {
    const hash = this.links.hashOf(token);
    const board = hash === undefined ? undefined : await this.repository.findByLink('share', hash);
    if (!board) throw sharedBoardNotFound();
    if (board.share_comments !== 1) return undefined;
    const rows = await this.repository.comments(board.id);
    const authors = await this.people.findByIds([...new Set(rows.map((row) => row.author_id).filter((id): id is number => id !== null))]);
    return rows.map((row) => ({
      text: row.text,
      author: (row.author_id === null ? undefined : authors.get(row.author_id)?.first_name) ?? null,
      date_created: utcDateTime(row.date_created),
    }));
  }

  /** Assets withdrawn from the catalogue leave every board (the change feed calls it). */
  async withdrawAssets(assetIds: readonly string[]): Promise<void> {
    for (const boardId of await this.repository.boardsHolding(assetIds)) {
      await this.repository.removeAssets(boardId, assetIds, undefined);
    }
  }

  // ── comments ──────────────────────────────────────────────────────────────

  async comments(userId: number, boardId: string) {
    const { board, role } = await this.access(boardId, userId);
    const rows = await this.repository.comments(board.id);
    const authorIds = [...new Set(rows.map((row) => row.author_id).filter((id): id is number => id !== null))];
    const authors = await this.people.findByIds(authorIds);
    return {
      comments: rows.map((row) => {
        const author = row.author_id === null ? undefined : authors.get(row.author_id);
        return {
          id: row.id,
          text: row.text,
          date_created: utcDateTime(row.date_created),
          created_by: { first_name: author?.first_name ?? null, last_name: author?.last_name ?? null },
          permissions: { can_delete_comment: mayDeleteComment(role, userId, row.author_id) },
        };
      }),
      permissions: { can_add_comment: may(role, 'comment') },
    };
  }

  async addComment(userId: number, boardId: string, input: { text?: string | null | undefined }): Promise<{ id: string }> {
    const text = checkedText('text', input.text ?? '', this.limits.commentLength);
    const { board, role } = await this.access(boardId, userId);
    this.require(role, 'comment');
    const id = randomId();
    const outcome = await this.repository.addComment(
      { id, board_id: board.id, author_id: userId, text, date_created: this.now().toISOString() },
      this.limits.commentsPerBoard,
    );
    if (outcome === undefined) throw boardNotFound();
    if (outcome === 'full') throw invalidParameterValue(`Too many comments: a board holds at most ${this.limits.commentsPerBoard}`);
    return { id };
  }

  /** Its author and the board's owner may delete a comment. */
  async deleteComment(userId: number, boardId: string, commentId: string): Promise<void> {
    const { board, role } = await this.access(boardId, userId);
    const comment = await this.repository.findComment(board.id, commentId);
    if (!comment) throw commentNotFound(commentId);
    if (!mayDeleteComment(role, userId, comment.author_id)) throw insufficientAccess('delete_any_comment');
    await this.repository.deleteComment(board.id, comment.id);
  }

  // ── links ─────────────────────────────────────────────────────────────────

  /** The signed-in user becomes an editor of the board the invitation is for (its owner stays its owner). */
  async acceptInvitation(userId: number, token: string): Promise<{ id: string }> {
    const hash = this.links.hashOf(token);
    const board = hash === undefined ? undefined : await this.repository.findByLink('invitation', hash);
    if (!board) throw invitationNotFound();
    if (board.owner_id !== userId) await this.repository.addEditor(board.id, userId, this.now().toISOString());
    return { id: board.id };
  }

  /** Revokes a link: a new one replaces it, and the old one opens nothing from now on. */
  async renewLink(userId: number, boardId: string, kind: BoardLinkKind) {
    const { board, role } = await this.access(boardId, userId);
    this.require(role, kind === 'invitation' ? 'invite' : 'share');
    const renewed = await this.repository.replaceLink(board.id, kind, this.links.create(kind));
    if (!renewed) throw boardNotFound();
    return this.linksOf(renewed, role);
  }

  /**
   * Sends the board to a person: its assets in the catalogue now are recorded as sent to that
   * email address (the send events of asset management, read by the client it was sent through),
   * and the answer holds the read-only link to pass on. Stockroom itself sends no mail.
   */
  async send(userId: number, clientId: number, boardId: string, emailAddress: string) {
    const { board, role } = await this.access(boardId, userId);
    this.require(role, 'share');
    const { assets } = await this.currentAssets(board.id);
    const sent = await this.sends.recordSend({ clientId, userId, boardId: board.id, emailAddress, assetIds: assets.map((asset) => asset.id) });
    return { email_address: sent.emailAddress, assets_sent: sent.assetsSent, share_link: this.links.url('share', board.share_nonce) };
  }

  /** The read-only view a share link opens, without sign-in: the board and its assets, nothing of who keeps it. */
  async shared(token: string) {
    const hash = this.links.hashOf(token);
    const board = hash === undefined ? undefined : await this.repository.findByLink('share', hash);
    if (!board) throw sharedBoardNotFound();
    const { assets, withdrawn } = await this.currentAssets(board.id);
    return {
      name: board.name,
      description: board.description,
      asset_count: board.asset_count - withdrawn,
      assets,
      date_created: utcDateTime(board.date_created),
      date_last_updated: utcDateTime(board.date_last_updated),
    };
  }

  // ── helpers ───────────────────────────────────────────────────────────────

  private async access(boardId: string, userId: number): Promise<BoardAccess> {
    const access = await this.repository.findAccess(boardId, userId);
    if (!access) throw boardNotFound();
    return access;
  }

  private require(role: BoardRole, action: BoardAction): void {
    if (!may(role, action)) throw insufficientAccess(action);
  }

  private linksOf(board: BoardRow, role: BoardRole) {
    return {
      invitation: may(role, 'invite') ? this.links.url('invitation', board.invitation_nonce) : null,
      share: may(role, 'share') ? this.links.url('share', board.share_nonce) : null,
    };
  }

  /** Images first, then what is left as videos: an id names one asset of either kind. */
  private async lookUp(ids: readonly string[]): Promise<{ found: Array<{ id: string; assetType: AssetType }>; notFound: string[] }> {
    if (ids.length === 0) return { found: [], notFound: [] };
    const images = await this.catalog.findAssets('image', ids);
    const videos = images.notFound.length > 0 ? await this.catalog.findAssets('video', images.notFound) : { found: [], notFound: [] };
    const types = new Map<string, AssetType>();
    for (const record of [...images.found, ...videos.found]) types.set(record.id, record.asset_type);
    return {
      found: ids.filter((id) => types.has(id)).map((id) => ({ id, assetType: types.get(id)! })),
      notFound: videos.notFound,
    };
  }

  private async store(boardId: string, assets: Array<{ id: string; assetType: AssetType }>): Promise<void> {
    const outcome = await this.repository.addAssets(boardId, assets, this.now().toISOString(), this.limits.assetsPerBoard);
    if (outcome === undefined) throw boardNotFound();
    if ('full' in outcome) {
      const { held, adding } = outcome.full;
      throw invalidParameterValue(`Too many assets: a board holds at most ${this.limits.assetsPerBoard}; this one holds ${held} and the request adds ${adding}`);
    }
  }

  /** Splits board asset rows into those the catalogue still has (with their records) and those it no longer has. */
  private async inCatalog(rows: readonly BoardAssetRow[]) {
    const byType: Record<AssetType, string[]> = { image: [], video: [] };
    for (const row of rows) byType[row.asset_type].push(row.asset_id);
    const records = new Map<string, AssetRecord>();
    for (const assetType of ['image', 'video'] as const) {
      if (byType[assetType].length === 0) continue;
      for (const record of (await this.catalog.findAssets(assetType, byType[assetType])).found) records.set(record.id, record);
    }
    const present: Array<{ row: BoardAssetRow; record: AssetRecord }> = [];
    const missing: BoardAssetRow[] = [];
    for (const row of rows) {
      const record = records.get(row.asset_id);
      if (record) present.push({ row, record });
      else missing.push(row);
    }
    return { present, missing };
  }

  /**
   * A board's assets as shown, in the board's order (see BoardsRepository.boardAssets). Assets withdrawn from the catalogue
   * while no node followed the change log are found here and leave the board.
   */
  private async currentAssets(boardId: string): Promise<{ assets: BoardAssetView[]; withdrawn: number }> {
    const { present, missing } = await this.inCatalog(await this.repository.boardAssets(boardId));
    const withdrawn =
      missing.length > 0 ? ((await this.repository.removeAssets(boardId, missing.map((row) => row.asset_id), undefined)) ?? 0) : 0;
    return { assets: present.map(({ row, record }) => this.assetView(row, record)), withdrawn };
  }

  private assetView(row: BoardAssetRow, record: AssetRecord): BoardAssetView {
    const sizes = this.displaySizes.displaySizes(
      { id: record.id, width: record.width, height: record.height, hasOriginal: record.original !== null },
      ASSET_DISPLAY_SIZES,
    );
    return {
      id: row.asset_id,
      asset_type: row.asset_type,
      date_added: utcDateTime(row.date_added),
      display_sizes: sizes.map(({ name, uri }) => ({ name, uri })),
    };
  }
}
