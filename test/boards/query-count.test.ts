import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAssets, creativeImageFields } from '../licensing/licensing-fixtures.js';
import { STORES } from '../helpers/test-store.js';
import { createBoardsApp, pathOf, type BoardBody, type BoardsTestApp, type Person } from './boards-fixtures.js';

/*
 * A board is read with the same number of statements whatever it holds: the statements are
 * counted by a Kysely plugin on the store the whole application uses (the key and token
 * checks included), with the catalogue's record cache off so that every asset is read from
 * the store.
 */

const BIG = 1000;
const SMALL = 10;

describe.each(STORES)('statements to read a board, on $name', ({ url }) => {
  let t: BoardsTestApp;
  let owner: Person;
  let small: string;
  let big: string;

  beforeAll(async () => {
    // No job runner on this node (generation, transcodes, upload ingests): their polls for queued jobs would be counted too.
    t = await createBoardsApp(url, { STOCKROOM_RECORD_CACHE: '0', STOCKROOM_GENERATION_CONCURRENCY: '0', STOCKROOM_VIDEO_TRANSCODES: 'false', STOCKROOM_ASSET_UPLOAD_INGESTS: 'false' });
    const ids = Array.from({ length: BIG }, (_, n) => `q${n}`);
    await addAssets(t.services, 'image', ids, creativeImageFields());
    await addAssets(t.services, 'video', ['qv1', 'qv2'], creativeImageFields());
    owner = await t.person();
    small = (await t.services.boards.create(owner.userId, { name: 'Small' })).id;
    big = (await t.services.boards.create(owner.userId, { name: 'Big' })).id;
    await t.services.boards.addAssets(owner.userId, small, [...ids.slice(0, SMALL - 1), 'qv1']);
    for (let start = 0; start < BIG - 1; start += 100) {
      await t.services.boards.addAssets(owner.userId, big, ids.slice(start, Math.min(start + 100, BIG - 1)));
    }
    await t.services.boards.addAsset(owner.userId, big, 'qv2');
    // The API key's first check reads the store once; later requests find it remembered.
    await t.call('GET', '/v3/boards', { token: owner.token });
  }, 120_000);
  afterAll(async () => {
    await t.close();
  });

  async function statementsFor(path: string, options: { token?: string | null; apiKey?: null } = {}) {
    t.queries.count = 0;
    const response = await t.call('GET', path, { token: owner.token, ...options });
    expect(response.statusCode, response.body).toBe(200);
    return { count: t.queries.count, body: response.json<BoardBody>() };
  }

  it(`GET /boards/{id}: ${BIG} assets take as many statements as ${SMALL}, a handful`, async () => {
    const few = await statementsFor(`/v3/boards/${small}`);
    const many = await statementsFor(`/v3/boards/${big}`);
    expect(few.body.assets).toHaveLength(SMALL);
    expect(many.body.assets).toHaveLength(BIG);
    expect(many.body.asset_count).toBe(BIG);
    expect(many.body.assets.every((asset) => asset.display_sizes.length === 3)).toBe(true);
    expect(many.count).toBe(few.count);
    expect(many.count).toBeLessThanOrEqual(12);
  });

  it('the list (each board’s hero) and the share view take a constant number too', async () => {
    const list = await statementsFor('/v3/boards');
    expect(list.count).toBeLessThanOrEqual(12);
    const { links } = (await statementsFor(`/v3/boards/${big}`)).body;
    const few = await statementsFor(pathOf((await statementsFor(`/v3/boards/${small}`)).body.links.share), { token: null, apiKey: null });
    const many = await statementsFor(pathOf(links.share), { token: null, apiKey: null });
    expect(many.count).toBe(few.count);
  });

  it('the comments of many authors take as many statements as those of one (names in one lookup)', async () => {
    const invitation = pathOf((await statementsFor(`/v3/boards/${big}`)).body.links.invitation).split('/').pop()!;
    await t.services.boards.addComment(owner.userId, small, { text: 'one author' });
    for (let n = 0; n < 8; n++) {
      const editor = await t.person();
      await t.services.boards.acceptInvitation(editor.userId, invitation);
      await t.services.boards.addComment(editor.userId, big, { text: `author ${n}` });
    }
    const one = await statementsFor(`/v3/boards/${small}/comments`);
    const eight = await statementsFor(`/v3/boards/${big}/comments`);
    expect((eight.body as unknown as { comments: unknown[] }).comments).toHaveLength(8);
    expect(eight.count).toBe(one.count);
  });
});
