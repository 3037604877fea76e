import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { SqlDialect } from '../platform/db/database.js';
import type { BoardsTable, Tables } from '../platform/db/tables.js';
import type { BoardLinkKind, StoredLink } from './board-links.js';
import type { BoardRole } from './boards.policy.js';

export type BoardRow = Selectable<BoardsTable>;

export interface BoardAccess {
  board: BoardRow;
  role: BoardRole;
}

export interface BoardAssetRow {
  board_id: string;
  asset_id: string;
  asset_type: 'image' | 'video';
  date_added: string;
  note: string | null;
  position: number | null;
}

export interface CommentRow {
  id: string;
  board_id: string;
  author_id: number | null;
  text: string;
  date_created: string;
}

export type BoardRelationship = 'owned' | 'invited';
export type BoardSort = 'date_last_updated_descending' | 'date_last_updated_ascending' | 'name_ascending' | 'name_descending';

export interface BoardListing {
  rows: Array<BoardRow & { relationship: BoardRelationship }>;
  total: number;
}

type Db = Kysely<Tables> | Transaction<Tables>;

/** The boards, their members, assets and comments in the store. */
export class BoardsRepository {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly dialect: SqlDialect,
  ) {}

  /**
   * Writes to one board wait their turn: the first statement of each takes the board's row lock
   * (on PostgreSQL; SQLite has one writer at a time), so the counts and limits read under it are
   * exact. Undefined when the board is gone.
   */
  private async lockBoard(trx: Db, boardId: string): Promise<{ asset_count: number; comment_count: number } | undefined> {
    return trx
      .updateTable('boards')
      .set((eb) => ({ asset_count: eb.ref('asset_count') }))
      .where('id', '=', boardId)
      .returning(['asset_count', 'comment_count'])
      .executeTakeFirst();
  }

  // ── boards ────────────────────────────────────────────────────────────────

  /** The board and what the user is on it; undefined when it does not exist or the user is neither owner nor editor. */
  async findAccess(boardId: string, userId: number): Promise<BoardAccess | undefined> {
    const row = await this.db
      .selectFrom('boards')
      .leftJoin('board_members as m', (join) => join.onRef('m.board_id', '=', 'boards.id').on('m.user_id', '=', userId))
      .selectAll('boards')
      .select('m.user_id as member_id')
      .where('boards.id', '=', boardId)
      .executeTakeFirst();
    if (!row) return undefined;
    const { member_id: memberId, ...board } = row;
    if (board.owner_id === userId) return { board, role: 'owner' };
    if (memberId !== null) return { board, role: 'editor' };
    return undefined;
  }

  async findByLink(kind: BoardLinkKind, hash: string): Promise<BoardRow | undefined> {
    return this.db
      .selectFrom('boards')
      .selectAll()
      .where(kind === 'invitation' ? 'invitation_hash' : 'share_hash', '=', hash)
      .executeTakeFirst();
  }

  /** Stores a new board unless its owner already has `maxBoards`; false then. */
  async createBoard(board: Omit<BoardRow, 'asset_count' | 'comment_count' | 'share_comments'>, maxBoards: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      // Two creations at once must not both pass the count.
      if (this.dialect === 'postgres') {
        await sql`select pg_advisory_xact_lock(hashtext(${`stockroom.boards.owner:${board.owner_id}`}))`.execute(trx);
      }
      const { count } = await trx
        .selectFrom('boards')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('owner_id', '=', board.owner_id)
        .executeTakeFirstOrThrow();
      if (Number(count) >= maxBoards) return false;
      await trx.insertInto('boards').values(board).execute();
      return true;
    });
  }

  async updateBoard(boardId: string, changes: { name: string; description?: string | null }, now: string): Promise<boolean> {
    const result = await this.db
      .updateTable('boards')
      .set({ ...changes, date_last_updated: now })
      .where('id', '=', boardId)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Deletes the board; its members, assets and comments go with it. */
  async deleteBoard(boardId: string): Promise<void> {
    await this.db.deleteFrom('boards').where('id', '=', boardId).execute();
  }

  async replaceLink(boardId: string, kind: BoardLinkKind, link: StoredLink): Promise<BoardRow | undefined> {
    const values = kind === 'invitation' ? { invitation_nonce: link.nonce, invitation_hash: link.hash } : { share_nonce: link.nonce, share_hash: link.hash };
    return this.db.updateTable('boards').set(values).where('id', '=', boardId).returningAll().executeTakeFirst();
  }

  /** The user becomes an editor of the board; accepting twice changes nothing. */
  async addEditor(boardId: string, userId: number, now: string): Promise<void> {
    await this.db
      .insertInto('board_members')
      .values({ board_id: boardId, user_id: userId, role: 'editor', joined_at: now })
      .onConflict((oc) => oc.columns(['board_id', 'user_id']).doNothing())
      .execute();
  }

  /** One page of the boards a user owns or edits, and how many there are in all. */
  async listBoards(
    userId: number,
    options: { relationship: BoardRelationship | undefined; sort: BoardSort; offset: number; limit: number },
  ): Promise<BoardListing> {
    const visible = this.db
      .selectFrom('boards')
      .leftJoin('board_members as m', (join) => join.onRef('m.board_id', '=', 'boards.id').on('m.user_id', '=', userId))
      .where((eb) => {
        const owned = eb('boards.owner_id', '=', userId);
        const invited = eb('m.user_id', 'is not', null);
        if (options.relationship === 'owned') return owned;
        if (options.relationship === 'invited') return invited;
        return eb.or([owned, invited]);
      });
    const { count } = await visible.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
    let page = visible.selectAll('boards').select('m.user_id as member_id');
    switch (options.sort) {
      case 'date_last_updated_descending':
        page = page.orderBy('boards.date_last_updated', 'desc');
        break;
      case 'date_last_updated_ascending':
        page = page.orderBy('boards.date_last_updated', 'asc');
        break;
      case 'name_ascending':
        page = page.orderBy(sql`lower(boards.name)`, 'asc');
        break;
      case 'name_descending':
        page = page.orderBy(sql`lower(boards.name)`, 'desc');
        break;
    }
    const rows = await page.orderBy('boards.id').limit(options.limit).offset(options.offset).execute();
    return {
      total: Number(count),
      rows: rows.map(({ member_id: _member, ...board }) => ({ ...board, relationship: board.owner_id === userId ? 'owned' : 'invited' })),
    };
  }

  // ── assets ────────────────────────────────────────────────────────────────

  /**
   * Every asset of a board in its order: those added since the owner last ordered it first,
   * the most recently added first, then the owner's order.
   */
  async boardAssets(boardId: string, db: Db = this.db): Promise<BoardAssetRow[]> {
    const rows = await db
      .selectFrom('board_assets')
      .selectAll()
      .where('board_id', '=', boardId)
      .orderBy(sql`case when position is null then 0 else 1 end`)
      .orderBy('position')
      .orderBy('date_added', 'desc')
      .orderBy('asset_id', 'desc')
      .execute();
    return rows as BoardAssetRow[];
  }

  /**
   * Puts the board's assets in a new order under the board's lock: `arrange` gets the ids in
   * their order now and returns them in the new one (undefined: no change). Each asset's
   * position is then its index. Undefined when the board is gone; else whether anything moved.
   */
  async reorder(boardId: string, arrange: (ids: string[]) => string[] | undefined, now: string): Promise<boolean | undefined> {
    return this.db.transaction().execute(async (trx) => {
      if (!(await this.lockBoard(trx, boardId))) return undefined;
      const rows = await this.boardAssets(boardId, trx);
      const order = arrange(rows.map((row) => row.asset_id));
      if (order === undefined) return false;
      const before = new Map(rows.map((row) => [row.asset_id, row.position]));
      for (const [position, assetId] of order.entries()) {
        if (before.get(assetId) === position) continue;
        await trx.updateTable('board_assets').set({ position }).where('board_id', '=', boardId).where('asset_id', '=', assetId).execute();
      }
      await trx.updateTable('boards').set({ date_last_updated: now }).where('id', '=', boardId).execute();
      return true;
    });
  }

  /** Writes (or, with null, clears) the note on one asset of the board; false when the asset is not on it. */
  async setNote(boardId: string, assetId: string, note: string | null): Promise<boolean> {
    const result = await this.db.updateTable('board_assets').set({ note }).where('board_id', '=', boardId).where('asset_id', '=', assetId).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Whether the page the share link opens shows the board's comments. */
  async setShareComments(boardId: string, show: boolean): Promise<boolean> {
    const result = await this.db.updateTable('boards').set({ share_comments: show ? 1 : 0 }).where('id', '=', boardId).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** The most recently added asset of each board that has one, in one query. */
  async latestAssets(boardIds: readonly string[]): Promise<BoardAssetRow[]> {
    if (boardIds.length === 0) return [];
    const rows = await this.db
      .selectFrom((eb) =>
        eb
          .selectFrom('board_assets')
          .select([
            'board_id',
            'asset_id',
            'asset_type',
            'date_added',
            'note',
            'position',
            sql<number>`row_number() over (partition by board_id order by date_added desc, asset_id desc)`.as('recency'),
          ])
          .where('board_id', 'in', boardIds)
          .as('ranked'),
      )
      .select(['board_id', 'asset_id', 'asset_type', 'date_added', 'note', 'position'])
      .where('recency', '=', 1)
      .execute();
    return rows as BoardAssetRow[];
  }

  /**
   * Adds the assets not on the board yet, unless the board would then hold more than
   * `maxAssets`. Returns the ids newly stored, 'full' when over the limit (nothing stored),
   * undefined when the board is gone.
   */
  async addAssets(
    boardId: string,
    assets: ReadonlyArray<{ id: string; assetType: 'image' | 'video' }>,
    now: string,
    maxAssets: number,
  ): Promise<{ added: string[] } | { full: { held: number; adding: number } } | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const board = await this.lockBoard(trx, boardId);
      if (!board) return undefined;
      if (assets.length === 0) return { added: [] };
      const present = new Set(
        (
          await trx
            .selectFrom('board_assets')
            .select('asset_id')
            .where('board_id', '=', boardId)
            .where(
              'asset_id',
              'in',
              assets.map((asset) => asset.id),
            )
            .execute()
        ).map((row) => row.asset_id),
      );
      const fresh = assets.filter((asset) => !present.has(asset.id));
      if (fresh.length === 0) return { added: [] };
      if (board.asset_count + fresh.length > maxAssets) return { full: { held: board.asset_count, adding: fresh.length } };
      // The primary key stores an asset once even if another writer got past the lock's intent.
      const inserted = await trx
        .insertInto('board_assets')
        .values(fresh.map((asset) => ({ board_id: boardId, asset_id: asset.id, asset_type: asset.assetType, date_added: now })))
        .onConflict((oc) => oc.columns(['board_id', 'asset_id']).doNothing())
        .returning('asset_id')
        .execute();
      if (inserted.length > 0) {
        await trx
          .updateTable('boards')
          .set((eb) => ({ asset_count: eb('asset_count', '+', inserted.length), date_last_updated: now }))
          .where('id', '=', boardId)
          .execute();
      }
      return { added: inserted.map((row) => row.asset_id) };
    });
  }

  /** Removes the assets from the board (ids not on it are ignored); how many went, undefined when the board is gone. */
  async removeAssets(boardId: string, assetIds: readonly string[], now: string | undefined): Promise<number | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const board = await this.lockBoard(trx, boardId);
      if (!board) return undefined;
      if (assetIds.length === 0) return 0;
      const removed = await trx
        .deleteFrom('board_assets')
        .where('board_id', '=', boardId)
        .where('asset_id', 'in', assetIds)
        .returning('asset_id')
        .execute();
      if (removed.length > 0) {
        await trx
          .updateTable('boards')
          .set((eb) => ({
            asset_count: eb('asset_count', '-', removed.length),
            // An asset withdrawn from the catalogue is no edit of the board.
            ...(now !== undefined ? { date_last_updated: now } : {}),
          }))
          .where('id', '=', boardId)
          .execute();
      }
      return removed.length;
    });
  }

  /** The boards that hold any of these assets. */
  async boardsHolding(assetIds: readonly string[]): Promise<string[]> {
    if (assetIds.length === 0) return [];
    const rows = await this.db.selectFrom('board_assets').select('board_id').distinct().where('asset_id', 'in', assetIds).orderBy('board_id').execute();
    return rows.map((row) => row.board_id);
  }

  // ── comments ──────────────────────────────────────────────────────────────

  async comments(boardId: string): Promise<CommentRow[]> {
    return this.db
      .selectFrom('board_comments')
      .selectAll()
      .where('board_id', '=', boardId)
      .orderBy('date_created')
      .orderBy('id')
      .execute();
  }

  async findComment(boardId: string, commentId: string): Promise<CommentRow | undefined> {
    return this.db.selectFrom('board_comments').selectAll().where('board_id', '=', boardId).where('id', '=', commentId).executeTakeFirst();
  }

  /** Stores the comment unless the board holds `maxComments`: 'full' then, undefined when the board is gone. */
  async addComment(comment: CommentRow, maxComments: number): Promise<'added' | 'full' | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const board = await this.lockBoard(trx, comment.board_id);
      if (!board) return undefined;
      if (board.comment_count >= maxComments) return 'full';
      await trx.insertInto('board_comments').values(comment).execute();
      await trx
        .updateTable('boards')
        .set((eb) => ({ comment_count: eb('comment_count', '+', 1), date_last_updated: comment.date_created }))
        .where('id', '=', comment.board_id)
        .execute();
      return 'added';
    });
  }

  async deleteComment(boardId: string, commentId: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      if (!(await this.lockBoard(trx, boardId))) return;
      const removed = await trx.deleteFrom('board_comments').where('board_id', '=', boardId).where('id', '=', commentId).returning('id').execute();
      if (removed.length > 0) {
        await trx
          .updateTable('boards')
          .set((eb) => ({ comment_count: eb('comment_count', '-', removed.length) }))
          .where('id', '=', boardId)
          .execute();
      }
    });
  }
}
