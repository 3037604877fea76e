import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BoardLinks } from '../../src/boards/board-links.js';
import { BOARD_LIMITS } from '../../src/boards/boards.policy.js';
import { BoardsRepository } from '../../src/boards/boards.repository.js';
import { BoardsService } from '../../src/boards/boards.service.js';
import { ApiError } from '../../src/platform/http/errors.js';
import { STORES } from '../helpers/test-store.js';
import { addCatalog, createBoardsApp, type BoardsTestApp } from './boards-fixtures.js';

/*
 * The bounds of boards, assets and comments, on the store's own service configured with small
 * limits (the real ones are hundreds and thousands), and held under concurrent writers.
 */

const SMALL = { ...BOARD_LIMITS, boardsPerUser: 3, assetsPerBoard: 5, commentsPerBoard: 2 };
const ASSETS = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7', 'a8'];

describe.each(STORES)('board limits, on $name', ({ url }) => {
  let t: BoardsTestApp;
  let boards: BoardsService;

  beforeAll(async () => {
    t = await createBoardsApp(url);
    await addCatalog(t.services, ASSETS);
    const { database, catalog, media, users, assetSends } = t.services;
    boards = new BoardsService({
      repository: new BoardsRepository(database.db, database.dialect),
      catalog,
      displaySizes: media,
      people: users,
      sends: assetSends,
      links: new BoardLinks('a key for tests', 'http://stockroom.test'),
      now: () => new Date(),
      limits: SMALL,
    });
  });
  afterAll(async () => {
    await t.close();
  });

  /** The 400 a call is refused with. */
  async function refusal(call: Promise<unknown>): Promise<ApiError> {
    const error = await call.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ statusCode: 400, code: 'InvalidParameterValue' });
    return error as ApiError;
  }
  const heldAssets = async (boardId: string, userId: number) => {
    const detail = await boards.get(userId, boardId);
    return { count: detail.asset_count, ids: detail.assets.map((asset) => asset.id).sort() };
  };

  it('a user owns at most boardsPerUser boards: one more is 400 naming the limit', async () => {
    const { userId } = await t.person();
    for (let n = 0; n < 3; n++) await boards.create(userId, { name: `Board ${n}` });
    expect((await refusal(boards.create(userId, { name: 'One too many' }))).message).toMatch(/at most 3/);
    // Boards others own, or boards one edits, do not count.
    const other = await t.person();
    expect(await boards.create(other.userId, { name: 'Fine' })).toHaveProperty('id');
  });

  it('creations at once past the limit: exactly the limit is stored', async () => {
    const { userId } = await t.person();
    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, (_, n) => boards.create(userId, { name: `Rush ${n}` })));
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(3);
    expect((await boards.list(userId, { page: 1, pageSize: 100, relationship: 'owned', sort: 'name_ascending' })).board_count).toBe(3);
  });

  it('a board holds at most assetsPerBoard assets: a request that would pass it stores nothing; assets already there do not count again', async () => {
    const { userId } = await t.person();
    const { id } = await boards.create(userId, { name: 'Small' });
    await boards.addAssets(userId, id, ['a1', 'a2', 'a3', 'a4']);
    const error = await refusal(boards.addAssets(userId, id, ['a5', 'a6']));
    expect(error.message).toMatch(/at most 5.*holds 4.*adds 2/);
    expect(await heldAssets(id, userId)).toEqual({ count: 4, ids: ['a1', 'a2', 'a3', 'a4'] });
    await boards.addAssets(userId, id, ['a1', 'a5']);
    await boards.addAssets(userId, id, ['a1', 'a2', 'unknown']);
    await boards.addAsset(userId, id, 'a3');
    await refusal(boards.addAsset(userId, id, 'a6'));
    expect(await heldAssets(id, userId)).toEqual({ count: 5, ids: ['a1', 'a2', 'a3', 'a4', 'a5'] });
  });

  it('adds at once near the limit: the board ends exactly full, never over', async () => {
    const { userId } = await t.person();
    const { id } = await boards.create(userId, { name: 'Crowded' });
    await boards.addAssets(userId, id, ['a1', 'a2', 'a3']);
    const outcomes = await Promise.allSettled(['a4', 'a5', 'a6', 'a7', 'a8'].map((asset) => boards.addAsset(userId, id, asset)));
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(2);
    const held = await heldAssets(id, userId);
    expect(held.count).toBe(5);
    expect(held.ids).toHaveLength(5);
  });

  it('a board holds at most commentsPerBoard comments; deleting one makes room', async () => {
    const { userId } = await t.person();
    const { id } = await boards.create(userId, { name: 'Chatty' });
    const first = await boards.addComment(userId, id, { text: 'one' });
    await boards.addComment(userId, id, { text: 'two' });
    expect((await refusal(boards.addComment(userId, id, { text: 'three' }))).message).toMatch(/at most 2/);
    await boards.deleteComment(userId, id, first.id);
    await boards.addComment(userId, id, { text: 'three' });
    expect((await boards.comments(userId, id)).comments.map((comment) => comment.text)).toEqual(['two', 'three']);
  });

  it('the lengths of names, descriptions and comments and the assets of one request are bounded', async () => {
    const { userId } = await t.person();
    const { id } = await boards.create(userId, { name: 'Bounded' });
    await refusal(boards.create(userId, { name: 'n'.repeat(SMALL.nameLength + 1) }));
    await refusal(boards.update(userId, id, { name: 'ok', description: 'd'.repeat(SMALL.descriptionLength + 1) }));
    await refusal(boards.addComment(userId, id, { text: 'c'.repeat(SMALL.commentLength + 1) }));
    await refusal(boards.addAssets(userId, id, Array.from({ length: SMALL.assetsPerRequest + 1 }, (_, n) => `x${n}`)));
    await refusal(boards.removeAssets(userId, id, Array.from({ length: SMALL.assetsPerRequest + 1 }, (_, n) => `x${n}`)));
  });
});
