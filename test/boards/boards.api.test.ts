import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { STORES } from '../helpers/test-store.js';
import {
  addCatalog,
  createBoardsApp,
  pathOf,
  type BoardBody,
  type BoardListBody,
  type BoardsTestApp,
  type CommentsBody,
  type Person,
} from './boards-fixtures.js';

const IMAGES = ['i1', 'i2', 'i3', 'i4', 'i5', 'i6'];
const VIDEOS = ['v1', 'v2'];

describe.each(STORES)('boards, on $name', ({ url }) => {
  let t: BoardsTestApp;
  let owner: Person;

  beforeAll(async () => {
    t = await createBoardsApp(url);
    await addCatalog(t.services, IMAGES, VIDEOS);
    owner = await t.person('Olive', 'Owner');
  });
  afterAll(async () => {
    await t.close();
  });

  async function createBoard(name = 'Shortlist', as: Person = owner, description?: string | null): Promise<string> {
    const response = await t.call('POST', '/v3/boards', { token: as.token, body: { name, ...(description !== undefined ? { description } : {}) } });
    expect(response.statusCode, response.body).toBe(201);
    t.tick();
    return response.json<{ id: string }>().id;
  }
  const board = async (id: string, as: Person = owner) => {
    const response = await t.call('GET', `/v3/boards/${id}`, { token: as.token });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<BoardBody>();
  };
  const list = async (query = '', as: Person = owner) => {
    const response = await t.call('GET', `/v3/boards${query}`, { token: as.token });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<BoardListBody>();
  };
  const add = async (id: string, assetIds: string[], as: Person = owner) => {
    const response = await t.call('PUT', `/v3/boards/${id}/assets`, { token: as.token, body: assetIds.map((asset_id) => ({ asset_id })) });
    t.tick();
    return response;
  };
  /** An editor of the board: a new person who accepted its invitation. */
  async function editorOf(boardId: string): Promise<Person> {
    const editor = await t.person('Eddie', 'Editor');
    const accepted = await t.call('POST', pathOf((await board(boardId)).links.invitation), { token: editor.token });
    expect(accepted.statusCode, accepted.body).toBe(200);
    return editor;
  }

  describe('a board', () => {
    it('is created with a name and description and read back: counts, permissions of the owner, both links', async () => {
      const id = await createBoard('Spring campaign', owner, 'Bright, outdoor');
      const detail = await board(id);
      expect(detail).toMatchObject({
        id,
        name: 'Spring campaign',
        description: 'Bright, outdoor',
        asset_count: 0,
        assets: [],
        comment_count: 0,
        permissions: {
          can_delete_board: true,
          can_invite_to_board: true,
          can_update_name: true,
          can_update_description: true,
          can_add_assets: true,
          can_remove_assets: true,
        },
      });
      expect(detail.date_created).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(detail.links.invitation).toMatch(/^http:\/\/stockroom\.test\/v3\/boards\/invitations\/[A-Za-z0-9_-]{43}$/);
      expect(detail.links.share).toMatch(/^http:\/\/stockroom\.test\/shared\/boards\/[A-Za-z0-9_-]{43}$/);
    });

    it('has a random id: 128 bits, nothing shared between two made one after the other', async () => {
      const first = await createBoard('One');
      const second = await createBoard('Two');
      expect(first).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(second).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(first.slice(0, 8)).not.toBe(second.slice(0, 8));
    });

    it('keeps link tokens only as hashes: the store holds neither token', async () => {
      const id = await createBoard('Hashed');
      const { links } = await board(id);
      const row = await t.services.database.db.selectFrom('boards').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      const stored = JSON.stringify(row);
      for (const link of [links.invitation!, links.share!]) expect(stored).not.toContain(link.split('/').pop());
      expect(row.invitation_hash).toMatch(/^[0-9a-f]{64}$/);
    });

    it('is renamed and described by its owner (204); a description left out is kept, null clears it', async () => {
      const id = await createBoard('Draft', owner, 'first words');
      let response = await t.call('PUT', `/v3/boards/${id}`, { token: owner.token, body: { name: 'Final' } });
      expect(response.statusCode).toBe(204);
      expect(await board(id)).toMatchObject({ name: 'Final', description: 'first words' });
      response = await t.call('PUT', `/v3/boards/${id}`, { token: owner.token, body: { name: 'Final', description: 'new words' } });
      expect(response.statusCode).toBe(204);
      expect((await board(id)).description).toBe('new words');
      await t.call('PUT', `/v3/boards/${id}`, { token: owner.token, body: { name: 'Final', description: null } });
      expect((await board(id)).description).toBeNull();
    });

    it('is deleted by its owner (204), with its assets and comments; then it is 404 BoardNotFound', async () => {
      const id = await createBoard('Doomed');
      await add(id, ['i1']);
      await t.call('POST', `/v3/boards/${id}/comments`, { token: owner.token, body: { text: 'bye' } });
      const response = await t.call('DELETE', `/v3/boards/${id}`, { token: owner.token });
      expect(response.statusCode).toBe(204);
      const after = await t.call('GET', `/v3/boards/${id}`, { token: owner.token });
      expect(after.statusCode).toBe(404);
      expect(after.json()).toMatchObject({ code: 'BoardNotFound' });
      const db = t.services.database.db;
      expect(await db.selectFrom('board_assets').select('asset_id').where('board_id', '=', id).execute()).toEqual([]);
      expect(await db.selectFrom('board_comments').select('id').where('board_id', '=', id).execute()).toEqual([]);
    });
  });

  describe('the list', () => {
    let lister: Person;
    let ids: Record<string, string>;

    beforeAll(async () => {
      lister = await t.person('Lee', 'Lister');
      ids = {};
      for (const name of ['banana', 'Apple', 'cherry']) ids[name] = await createBoard(name, lister);
      // Another person's board, to which the lister is invited.
      const host = await t.person('Hal', 'Host');
      ids.invited = await createBoard('Delta (shared)', host);
      const { links } = await board(ids.invited, host);
      expect((await t.call('POST', pathOf(links.invitation), { token: lister.token })).statusCode).toBe(200);
      // Touching banana makes it the most recently updated.
      expect((await add(ids.banana!, ['i1', 'i2'], lister)).statusCode).toBe(201);
    });

    it('lists owned and invited boards, the most recently updated first, with counts and the hero asset', async () => {
      const { boards, board_count: count } = await list('', lister);
      expect(count).toBe(4);
      expect(boards.map((b) => b.name)).toEqual(['banana', 'Delta (shared)', 'cherry', 'Apple']);
      const banana = boards[0]!;
      expect(banana).toMatchObject({ id: ids.banana, asset_count: 2, board_relationship: 'owned', description: null });
      expect(banana.hero_asset).toMatchObject({ id: 'i2', asset_type: 'image' });
      expect(banana.hero_asset!.display_sizes.map((size) => size.name)).toEqual(['comp', 'preview', 'thumb']);
      expect(boards[1]).toMatchObject({ board_relationship: 'invited', hero_asset: null });
    });

    it('filters by board_relationship', async () => {
      expect((await list('?board_relationship=owned', lister)).boards.map((b) => b.name)).toEqual(['banana', 'cherry', 'Apple']);
      const invited = await list('?board_relationship=invited', lister);
      expect(invited.board_count).toBe(1);
      expect(invited.boards.map((b) => b.id)).toEqual([ids.invited]);
      expect((await list('?board_relationship=OWNED', lister)).board_count).toBe(3);
    });

    it('sorts by each sort_order, the contract’s misspelt name_decending too', async () => {
      const names = async (order: string) => (await list(`?sort_order=${order}`, lister)).boards.map((b) => b.name);
      expect(await names('date_last_updated_ascending')).toEqual(['Apple', 'cherry', 'Delta (shared)', 'banana']);
      expect(await names('name_ascending')).toEqual(['Apple', 'banana', 'cherry', 'Delta (shared)']);
      expect(await names('name_descending')).toEqual(['Delta (shared)', 'cherry', 'banana', 'Apple']);
      expect(await names('name_decending')).toEqual(['Delta (shared)', 'cherry', 'banana', 'Apple']);
    });

    it('pages with page and pageSize (or page_size); board_count counts every page', async () => {
      const second = await list('?sort_order=name_ascending&page=2&pageSize=3', lister);
      expect(second).toMatchObject({ board_count: 4 });
      expect(second.boards.map((b) => b.name)).toEqual(['Delta (shared)']);
      const snake = await list('?sort_order=name_ascending&page=1&page_size=2', lister);
      expect(snake.boards.map((b) => b.name)).toEqual(['Apple', 'banana']);
      expect((await list('?page=9', lister)).boards).toEqual([]);
    });

    it('refuses a bad sort_order, board_relationship, page or page size with 400 naming it', async () => {
      const cases: Array<[string, string, string]> = [
        ['?sort_order=newest', 'InvalidParameterValue', 'sort_order'],
        ['?board_relationship=friends', 'InvalidParameterValue', 'board_relationship'],
        ['?page=0', 'InvalidPage', 'page'],
        ['?pageSize=101', 'InvalidPageSize', 'pageSize'],
        ['?page_size=1e2', 'InvalidPageSize', 'page_size'],
      ];
      for (const [query, code, parameter] of cases) {
        const response = await t.call('GET', `/v3/boards${query}`, { token: lister.token });
        expect(response.statusCode, query).toBe(400);
        expect(response.json(), query).toMatchObject({ code });
        expect(response.json<{ message: string }>().message, query).toContain(parameter);
      }
    });
  });

  describe('assets', () => {
    it('adds known images and videos, lists unknown ids in assets_not_added (201), and shows them newest first', async () => {
      const id = await createBoard('Mixed');
      const response = await add(id, ['i1', 'v1', 'nope', 'i1', 'bad id!']);
      expect(response.statusCode).toBe(201);
      expect(response.json()).toEqual({ assets_added: [{ asset_id: 'i1' }, { asset_id: 'v1' }], assets_not_added: ['nope', 'bad id!'] });
      await add(id, ['i2']);
      const detail = await board(id);
      expect(detail.asset_count).toBe(3);
      expect(detail.assets.map((asset) => [asset.id, asset.asset_type])).toEqual([
        ['i2', 'image'],
        ['v1', 'video'],
        ['i1', 'image'],
      ]);
      const [newest] = detail.assets;
      expect(newest!.date_added > detail.date_created).toBe(true);
      for (const size of newest!.display_sizes) expect(size.uri).toMatch(/^http:\/\/stockroom\.test\/display\/i2\/\w+\.jpg\?expires=\d+&signature=/);
      // The signed URI opens the picture, with no key.
      const picture = await t.app.inject({ method: 'GET', url: pathOf(newest!.display_sizes[2]!.uri) + new URL(newest!.display_sizes[2]!.uri).search });
      expect(picture.statusCode).toBe(200);
    });

    it('adding an asset already on the board changes nothing: not its date, not the count', async () => {
      const id = await createBoard('Twice');
      await add(id, ['i3']);
      const before = await board(id);
      expect((await add(id, ['i3'])).json()).toEqual({ assets_added: [{ asset_id: 'i3' }], assets_not_added: [] });
      const single = await t.call('PUT', `/v3/boards/${id}/assets/i3`, { token: owner.token });
      expect(single.statusCode).toBe(201);
      expect(single.body).toBe('');
      const after = await board(id);
      expect(after.asset_count).toBe(1);
      expect(after.assets).toEqual(before.assets);
      expect(after.date_last_updated).toBe(before.date_last_updated);
    });

    it('adds one asset by id (201); an unknown one is 403 AssetNotFound, as the contract says', async () => {
      const id = await createBoard('Single');
      expect((await t.call('PUT', `/v3/boards/${id}/assets/v2`, { token: owner.token })).statusCode).toBe(201);
      const unknown = await t.call('PUT', `/v3/boards/${id}/assets/missing`, { token: owner.token });
      expect(unknown.statusCode).toBe(403);
      expect(unknown.json()).toMatchObject({ code: 'AssetNotFound' });
      expect((await board(id)).assets.map((asset) => asset.id)).toEqual(['v2']);
    });

    it('removes assets named by repeated or comma-separated asset_ids, and one by its path (200); others are ignored', async () => {
      const id = await createBoard('Trim');
      await add(id, ['i1', 'i2', 'i3', 'i4', 'i5', 'v1']);
      let response = await t.call('DELETE', `/v3/boards/${id}/assets?asset_ids=i1&asset_ids=i2`, { token: owner.token });
      expect(response.statusCode).toBe(200);
      response = await t.call('DELETE', `/v3/boards/${id}/assets?asset_ids=i3,i4,not-there`, { token: owner.token });
      expect(response.statusCode).toBe(200);
      response = await t.call('DELETE', `/v3/boards/${id}/assets/v1`, { token: owner.token });
      expect(response.statusCode).toBe(200);
      expect((await t.call('DELETE', `/v3/boards/${id}/assets/v1`, { token: owner.token })).statusCode).toBe(200);
      const detail = await board(id);
      expect(detail.assets.map((asset) => asset.id)).toEqual(['i5']);
      expect(detail.asset_count).toBe(1);
    });

    it('an asset withdrawn from the catalogue leaves every board (the change log), and the hero is the newest one left', async () => {
      await addCatalog(t.services, ['w1', 'w2']);
      const first = await createBoard('Holds w1');
      const second = await createBoard('Holds w1 too');
      await add(first, ['w2']);
      await add(first, ['w1']);
      await add(second, ['w1', 'i1']);
      await t.services.catalog.deleteAsset('image', 'w1');
      await t.services.changeFeed.poll();
      const onBoards = () =>
        t.services.database.db.selectFrom('board_assets').select('board_id').where('asset_id', '=', 'w1').execute();
      await vi.waitFor(async () => expect(await onBoards()).toEqual([]));
      const detail = await board(first);
      expect(detail.asset_count).toBe(1);
      expect(detail.assets.map((asset) => asset.id)).toEqual(['w2']);
      const listed = (await list()).boards.find((b) => b.id === first)!;
      expect(listed).toMatchObject({ asset_count: 1, hero_asset: { id: 'w2' } });
      expect((await board(second)).asset_count).toBe(1);
    });

    it('an asset withdrawn while no node read the change log leaves the board when the board is read', async () => {
      await addCatalog(t.services, ['w3', 'w4']);
      const id = await createBoard('Missed the news');
      await add(id, ['w4']);
      await add(id, ['w3']);
      t.services.changeFeed.stop();
      await t.services.catalog.deleteAsset('image', 'w3');
      const listed = (await list()).boards.find((b) => b.id === id)!;
      expect(listed).toMatchObject({ asset_count: 1, hero_asset: { id: 'w4' } });
      const detail = await board(id);
      expect(detail).toMatchObject({ asset_count: 1, assets: [{ id: 'w4' }] });
      // The log read later finds nothing more to do, and the count stays exact.
      await t.services.changeFeed.poll();
      await t.services.boards.withdrawAssets(['w3']);
      expect((await board(id)).asset_count).toBe(1);
    });

    it('two editors adding the same assets at once store each once, and asset_count stays exact', async () => {
      const id = await createBoard('Race');
      const editor = await editorOf(id);
      const everyone = [owner, editor, owner, editor];
      const lists = [
        ['i1', 'i2', 'i3'],
        ['i3', 'i2', 'i1', 'v1'],
        ['v1', 'i4'],
        ['i4', 'i1'],
      ];
      const answers = await Promise.all([
        ...lists.map((ids, n) => add(id, ids, everyone[n])),
        ...['i5', 'i5', 'i5'].map((asset, n) => t.call('PUT', `/v3/boards/${id}/assets/${asset}`, { token: everyone[n]!.token })),
      ]);
      for (const answer of answers) expect(answer.statusCode, answer.body).toBe(201);
      const detail = await board(id);
      expect(detail.assets.map((asset) => asset.id).sort()).toEqual(['i1', 'i2', 'i3', 'i4', 'i5', 'v1']);
      expect(detail.asset_count).toBe(6);
      expect((await list()).boards.find((b) => b.id === id)!.asset_count).toBe(6);
    });
  });

  describe('comments', () => {
    it('are added by the owner and editors (201), listed oldest first with names, and counted', async () => {
      const id = await createBoard('Talk');
      const editor = await editorOf(id);
      const first = await t.call('POST', `/v3/boards/${id}/comments`, { token: owner.token, body: { text: 'What about i1?' } });
      expect(first.statusCode).toBe(201);
      t.tick();
      const second = await t.call('POST', `/v3/boards/${id}/comments`, { token: editor.token, body: { text: '  Love it  ' } });
      expect(second.statusCode).toBe(201);
      const [ownerComment, editorComment] = [first.json<{ id: string }>().id, second.json<{ id: string }>().id];
      expect(ownerComment).toMatch(/^[A-Za-z0-9_-]{22}$/);

      const asOwner = (await t.call('GET', `/v3/boards/${id}/comments`, { token: owner.token })).json<CommentsBody>();
      expect(asOwner).toMatchObject({
        permissions: { can_add_comment: true },
        comments: [
          { id: ownerComment, text: 'What about i1?', created_by: { first_name: 'Olive', last_name: 'Owner' }, permissions: { can_delete_comment: true } },
          { id: editorComment, text: 'Love it', created_by: { first_name: 'Eddie', last_name: 'Editor' }, permissions: { can_delete_comment: true } },
        ],
      });
      const asEditor = (await t.call('GET', `/v3/boards/${id}/comments`, { token: editor.token })).json<CommentsBody>();
      expect(asEditor.comments.map((comment) => comment.permissions.can_delete_comment)).toEqual([false, true]);
      expect((await board(id)).comment_count).toBe(2);
    });

    it('are deleted by their author and by the owner (204), not by an editor who did not write them (403)', async () => {
      const id = await createBoard('Moderated');
      const editor = await editorOf(id);
      const post = async (as: Person, text: string) =>
        (await t.call('POST', `/v3/boards/${id}/comments`, { token: as.token, body: { text } })).json<{ id: string }>().id;
      const byOwner = await post(owner, 'owner says');
      const byEditor = await post(editor, 'editor says');
      const byEditorAgain = await post(editor, 'editor again');

      const refused = await t.call('DELETE', `/v3/boards/${id}/comments/${byOwner}`, { token: editor.token });
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({ code: 'InsufficientAccess' });
      expect((await t.call('DELETE', `/v3/boards/${id}/comments/${byEditor}`, { token: editor.token })).statusCode).toBe(204);
      expect((await t.call('DELETE', `/v3/boards/${id}/comments/${byEditorAgain}`, { token: owner.token })).statusCode).toBe(204);
      const gone = await t.call('DELETE', `/v3/boards/${id}/comments/${byEditor}`, { token: owner.token });
      expect(gone.statusCode).toBe(404);
      expect(gone.json()).toMatchObject({ code: 'CommentNotFound' });
      const left = (await t.call('GET', `/v3/boards/${id}/comments`, { token: owner.token })).json<CommentsBody>();
      expect(left.comments.map((comment) => comment.text)).toEqual(['owner says']);
      expect((await board(id)).comment_count).toBe(1);
    });

    it('refuses a blank, missing, too long or mistyped text with 400 InvalidParameterValue naming text', async () => {
      const id = await createBoard('Picky');
      for (const body of [{ text: '   ' }, {}, { text: 'x'.repeat(1001) }, { text: 5 }, { text: null }]) {
        const response = await t.call('POST', `/v3/boards/${id}/comments`, { token: owner.token, body });
        expect(response.statusCode, JSON.stringify(body)).toBe(400);
        expect(response.json(), JSON.stringify(body)).toMatchObject({ code: 'InvalidParameterValue' });
        expect(response.json<{ message: string }>().message).toContain("'text'");
      }
      expect((await t.call('POST', `/v3/boards/${id}/comments`, { token: owner.token, body: { text: 'x'.repeat(1000) } })).statusCode).toBe(201);
    });
  });

  describe('links and roles', () => {
    it('an accepted invitation makes an editor: the board is listed as invited, with the editor’s permissions and no links', async () => {
      const id = await createBoard('Team picks');
      const editor = await editorOf(id);
      const again = await t.call('POST', pathOf((await board(id)).links.invitation), { token: editor.token });
      expect(again.json()).toEqual({ id });
      const listed = await list('?board_relationship=invited', editor);
      expect(listed.boards.map((b) => [b.id, b.board_relationship])).toEqual([[id, 'invited']]);
      const seen = await board(id, editor);
      expect(seen.permissions).toEqual({
        can_delete_board: false,
        can_invite_to_board: false,
        can_update_name: false,
        can_update_description: false,
        can_add_assets: true,
        can_remove_assets: true,
      });
      expect(seen.links).toEqual({ invitation: null, share: null });
    });

    it('the owner accepting their own invitation stays the owner', async () => {
      const id = await createBoard('Mine');
      expect((await t.call('POST', pathOf((await board(id)).links.invitation), { token: owner.token })).statusCode).toBe(200);
      expect((await board(id)).permissions.can_delete_board).toBe(true);
      expect((await list('?board_relationship=invited')).boards.map((b) => b.id)).not.toContain(id);
    });

    it('an editor may add, remove and comment, but not rename, describe, delete or renew links (403 InsufficientAccess)', async () => {
      const id = await createBoard('Shared work');
      const editor = await editorOf(id);
      expect((await add(id, ['i1', 'i2'], editor)).statusCode).toBe(201);
      expect((await t.call('DELETE', `/v3/boards/${id}/assets?asset_ids=i1`, { token: editor.token })).statusCode).toBe(200);
      expect((await t.call('POST', `/v3/boards/${id}/comments`, { token: editor.token, body: { text: 'ok' } })).statusCode).toBe(201);
      const refusals = [
        await t.call('PUT', `/v3/boards/${id}`, { token: editor.token, body: { name: 'Mine now' } }),
        await t.call('PUT', `/v3/boards/${id}`, { token: editor.token, body: { name: 'Shared work', description: 'x' } }),
        await t.call('DELETE', `/v3/boards/${id}`, { token: editor.token }),
        await t.call('DELETE', `/v3/boards/${id}/links/invitation`, { token: editor.token }),
        await t.call('DELETE', `/v3/boards/${id}/links/share`, { token: editor.token }),
      ];
      for (const refusal of refusals) {
        expect(refusal.statusCode).toBe(403);
        expect(refusal.json()).toMatchObject({ code: 'InsufficientAccess' });
      }
      expect(await board(id)).toMatchObject({ name: 'Shared work', asset_count: 1 });
    });

    it('the share link opens a read-only view without key or token; revoking it gives a new one and the old opens nothing', async () => {
      const id = await createBoard('For the client', owner, 'Pick one');
      await add(id, ['i6']);
      await t.call('POST', `/v3/boards/${id}/comments`, { token: owner.token, body: { text: 'internal note' } });
      const { share } = (await board(id)).links;
      const view = await t.call('GET', pathOf(share), { apiKey: null });
      expect(view.statusCode).toBe(200);
      expect(view.json()).toMatchObject({ name: 'For the client', description: 'Pick one', asset_count: 1, assets: [{ id: 'i6', asset_type: 'image' }] });
      expect(view.body).not.toContain('internal note');
      expect(view.body).not.toContain(id);

      const renewed = await t.call('DELETE', `/v3/boards/${id}/links/share`, { token: owner.token });
      expect(renewed.statusCode).toBe(200);
      const links = renewed.json<BoardBody['links']>();
      expect(links.share).not.toBe(share);
      expect(links.invitation).toBe((await board(id)).links.invitation);
      const old = await t.call('GET', pathOf(share), { apiKey: null });
      expect(old.statusCode).toBe(404);
      expect(old.json()).toMatchObject({ code: 'BoardNotFound' });
      expect((await t.call('GET', pathOf(links.share), { apiKey: null })).statusCode).toBe(200);
      expect((await t.call('GET', '/shared/boards/not-a-token', { apiKey: null })).statusCode).toBe(404);
    });

    it('revoking the invitation: the old link is 404 InvitationNotFound, the new one works, editors who accepted stay', async () => {
      const id = await createBoard('Closed circle');
      const early = await editorOf(id);
      const old = (await board(id)).links.invitation;
      const renewed = (await t.call('DELETE', `/v3/boards/${id}/links/invitation`, { token: owner.token })).json<BoardBody['links']>();
      expect(renewed.invitation).not.toBe(old);
      const late = await t.person('Lou', 'Late');
      const refused = await t.call('POST', pathOf(old), { token: late.token });
      expect(refused.statusCode).toBe(404);
      expect(refused.json()).toMatchObject({ code: 'InvitationNotFound' });
      expect((await t.call('GET', `/v3/boards/${id}`, { token: late.token })).statusCode).toBe(404);
      expect((await t.call('POST', pathOf(renewed.invitation), { token: late.token })).statusCode).toBe(200);
      expect((await board(id, late)).id).toBe(id);
      expect((await board(id, early)).id).toBe(id);
      const unknownKind = await t.call('DELETE', `/v3/boards/${id}/links/everything`, { token: owner.token });
      expect(unknownKind.statusCode).toBe(400);
    });
  });

  describe('limits and bad input', () => {
    it('refuses a blank, missing, too long or mistyped name, and a too long description, with 400 naming it', async () => {
      const cases: Array<[unknown, string]> = [
        [{ name: '  ' }, 'name'],
        [{}, 'name'],
        [{ name: 'n'.repeat(101) }, 'name'],
        [{ name: 5 }, 'name'],
        [{ name: ['x'] }, 'name'],
        [{ name: 'ok', description: 'd'.repeat(1001) }, 'description'],
        [{ name: 'ok', description: 7 }, 'description'],
      ];
      for (const [body, parameter] of cases) {
        const response = await t.call('POST', '/v3/boards', { token: owner.token, body });
        expect(response.statusCode, JSON.stringify(body)).toBe(400);
        expect(response.json(), JSON.stringify(body)).toMatchObject({ code: 'InvalidParameterValue' });
        expect(response.json<{ message: string }>().message, JSON.stringify(body)).toContain(`'${parameter}'`);
      }
      const longest = await t.call('POST', '/v3/boards', { token: owner.token, body: { name: 'n'.repeat(100), description: 'd'.repeat(1000) } });
      expect(longest.statusCode).toBe(201);
    });

    it('refuses more than 100 assets in one request, and a body that is not a list of {asset_id}', async () => {
      const id = await createBoard('Bulk');
      const tooMany = await add(id, Array.from({ length: 101 }, (_, n) => `a${n}`));
      expect(tooMany.statusCode).toBe(400);
      expect(tooMany.json()).toMatchObject({ code: 'InvalidParameterValue' });
      for (const body of [{ asset_id: 'i1' }, [{ asset_id: 5 }], [{ id: 'i1' }], ['i1']]) {
        const response = await t.call('PUT', `/v3/boards/${id}/assets`, { token: owner.token, body });
        expect(response.statusCode, JSON.stringify(body)).toBe(400);
      }
      const removeTooMany = await t.call('DELETE', `/v3/boards/${id}/assets?asset_ids=${Array.from({ length: 101 }, (_, n) => `a${n}`).join(',')}`, {
        token: owner.token,
      });
      expect(removeTooMany.statusCode).toBe(400);
      expect((await t.call('PUT', `/v3/boards/${id}/assets`, { token: owner.token, body: null })).json()).toEqual({ assets_added: [], assets_not_added: [] });
      const noBody = await t.call('PUT', `/v3/boards/${id}/assets`, { token: owner.token });
      expect(noBody.statusCode).toBe(400);
      expect(noBody.json()).toMatchObject({ code: 'InvalidParameterValue' });
      // The documented bound counts the items as sent: blanks and repeats too.
      const repeated = await t.call('DELETE', `/v3/boards/${id}/assets?asset_ids=${Array.from({ length: 101 }, () => 'i1').join(',')}`, { token: owner.token });
      expect(repeated.statusCode).toBe(400);
    });
  });
});
