import { randomUUID } from 'node:crypto';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES } from '../helpers/test-store.js';
import { addCatalog, createBoardsApp, pathOf, type BoardBody, type BoardsTestApp, type Person } from './boards-fixtures.js';

/*
 * Who may do what: every board operation and the link endpoints, tried by the board's owner,
 * an invited editor, another user, a client-credentials token and no token at all, each on a
 * board of its own. Every answer has the expected status, and no answer to someone outside the
 * board carries a byte of it (name, description, id, comment, links, the owner's name) — save
 * the link endpoints, where holding the link is the permission.
 */

type Role = 'owner' | 'editor' | 'stranger' | 'client' | 'none';
const ROLES: readonly Role[] = ['owner', 'editor', 'stranger', 'client', 'none'];
const OUTSIDERS: ReadonlySet<Role> = new Set(['stranger', 'client', 'none']);

interface Scene {
  boardId: string;
  commentId: string;
  invitation: string;
  share: string;
  /** Everything of the board an outsider must never see. */
  secrets: string[];
}

interface Operation {
  name: string;
  request(scene: Scene): { method: InjectOptions['method']; url: string; body?: unknown; apiKey?: null };
  expected: Record<Role, number>;
  /** The link is the permission: its holder is shown the board. */
  linkHolderSees?: boolean;
}

const member = (owner: number, editor: number, stranger = 404) => ({ owner, editor, stranger, client: 403, none: 401 });

const OPERATIONS: readonly Operation[] = [
  { name: 'GET /boards', request: () => ({ method: 'GET', url: '/v3/boards' }), expected: member(200, 200, 200) },
  { name: 'POST /boards', request: () => ({ method: 'POST', url: '/v3/boards', body: { name: 'My own' } }), expected: member(201, 201, 201) },
  { name: 'GET /boards/{id}', request: (s) => ({ method: 'GET', url: `/v3/boards/${s.boardId}` }), expected: member(200, 200) },
  { name: 'PUT /boards/{id}', request: (s) => ({ method: 'PUT', url: `/v3/boards/${s.boardId}`, body: { name: 'Renamed' } }), expected: member(204, 403) },
  { name: 'DELETE /boards/{id}', request: (s) => ({ method: 'DELETE', url: `/v3/boards/${s.boardId}` }), expected: member(204, 403) },
  {
    name: 'PUT /boards/{id}/assets',
    request: (s) => ({ method: 'PUT', url: `/v3/boards/${s.boardId}/assets`, body: [{ asset_id: 'm2' }] }),
    expected: member(201, 201),
  },
  { name: 'DELETE /boards/{id}/assets', request: (s) => ({ method: 'DELETE', url: `/v3/boards/${s.boardId}/assets?asset_ids=m1` }), expected: member(200, 200) },
  { name: 'PUT /boards/{id}/assets/{asset}', request: (s) => ({ method: 'PUT', url: `/v3/boards/${s.boardId}/assets/m2` }), expected: member(201, 201) },
  { name: 'DELETE /boards/{id}/assets/{asset}', request: (s) => ({ method: 'DELETE', url: `/v3/boards/${s.boardId}/assets/m1` }), expected: member(200, 200) },
  { name: 'GET /boards/{id}/comments', request: (s) => ({ method: 'GET', url: `/v3/boards/${s.boardId}/comments` }), expected: member(200, 200) },
  {
    name: 'POST /boards/{id}/comments',
    request: (s) => ({ method: 'POST', url: `/v3/boards/${s.boardId}/comments`, body: { text: 'A word' } }),
    expected: member(201, 201),
  },
  {
    name: 'DELETE /boards/{id}/comments/{comment} (the owner’s comment)',
    request: (s) => ({ method: 'DELETE', url: `/v3/boards/${s.boardId}/comments/${s.commentId}` }),
    expected: member(204, 403),
  },
  { name: 'DELETE /boards/{id}/links/invitation', request: (s) => ({ method: 'DELETE', url: `/v3/boards/${s.boardId}/links/invitation` }), expected: member(200, 403) },
  { name: 'DELETE /boards/{id}/links/share', request: (s) => ({ method: 'DELETE', url: `/v3/boards/${s.boardId}/links/share` }), expected: member(200, 403) },
  {
    name: 'POST /boards/invitations/{token}',
    request: (s) => ({ method: 'POST', url: pathOf(s.invitation) }),
    expected: member(200, 200, 200),
    linkHolderSees: true,
  },
  {
    name: 'GET /shared/boards/{token} (no key)',
    request: (s) => ({ method: 'GET', url: pathOf(s.share), apiKey: null }),
    expected: { owner: 200, editor: 200, stranger: 200, client: 200, none: 200 },
    linkHolderSees: true,
  },
];

describe.each(STORES)('the access matrix of boards, on $name', ({ url }) => {
  let t: BoardsTestApp;
  let owner: Person;
  let editor: Person;
  let stranger: Person;
  let clientToken: string;
  const ownerNames = [`Ottoline${randomUUID().slice(0, 6)}`, `Vanderquist${randomUUID().slice(0, 6)}`];

  beforeAll(async () => {
    t = await createBoardsApp(url);
    await addCatalog(t.services, ['m1', 'm2']);
    owner = await t.person(ownerNames[0], ownerNames[1]);
    editor = await t.person('Edda', 'Editor');
    stranger = await t.person('Stan', 'Stranger');
    clientToken = await t.clientToken();
  });
  afterAll(async () => {
    await t.close();
  });

  /** A board of the owner's with an asset, the owner's comment and an editor, all its text unique. */
  async function scene(): Promise<Scene> {
    const name = `board-name-${randomUUID()}`;
    const description = `board-description-${randomUUID()}`;
    const text = `comment-${randomUUID()}`;
    const created = await t.call('POST', '/v3/boards', { token: owner.token, body: { name, description } });
    const boardId = created.json<{ id: string }>().id;
    await t.call('PUT', `/v3/boards/${boardId}/assets`, { token: owner.token, body: [{ asset_id: 'm1' }] });
    const commentId = (await t.call('POST', `/v3/boards/${boardId}/comments`, { token: owner.token, body: { text } })).json<{ id: string }>().id;
    const { links } = (await t.call('GET', `/v3/boards/${boardId}`, { token: owner.token })).json<BoardBody>();
    expect((await t.call('POST', pathOf(links.invitation), { token: editor.token })).statusCode).toBe(200);
    const token = (link: string | null) => link!.split('/').pop()!;
    return {
      boardId,
      commentId,
      invitation: links.invitation!,
      share: links.share!,
      secrets: [boardId, name, description, text, commentId, token(links.invitation), token(links.share), ...ownerNames],
    };
  }

  const tokenOf = (role: Role): string | null =>
    ({ owner: owner.token, editor: editor.token, stranger: stranger.token, client: clientToken, none: null })[role];

  function send(role: Role, request: ReturnType<Operation['request']>): Promise<LightMyRequestResponse> {
    return t.call(request.method, request.url, {
      token: request.apiKey === null ? null : tokenOf(role),
      ...(request.body !== undefined ? { body: request.body } : {}),
      ...(request.apiKey === null ? { apiKey: null } : {}),
    });
  }

  for (const operation of OPERATIONS) {
    it(`${operation.name}: ${ROLES.map((role) => `${role} ${operation.expected[role]}`).join(', ')}`, async () => {
      for (const role of ROLES) {
        const current = await scene();
        const response = await send(role, operation.request(current));
        expect(response.statusCode, `${role}: ${response.body}`).toBe(operation.expected[role]);
        if (response.statusCode >= 400) {
          expect(response.json(), role).toEqual({ message: expect.any(String), code: expect.any(String) });
        }
        if (role === 'none' && response.statusCode === 401) expect(response.headers['www-authenticate']).toBe('Bearer realm="Stockroom"');
        if (role === 'client' && response.statusCode === 403) expect(response.json()).toMatchObject({ code: 'UserTokenRequired' });
        if (role === 'editor' && response.statusCode === 403) expect(response.json()).toMatchObject({ code: 'InsufficientAccess' });
        if (role === 'stranger' && response.statusCode === 404) expect(response.json()).toMatchObject({ code: 'BoardNotFound' });
        if (OUTSIDERS.has(role) && !operation.linkHolderSees) {
          const answer = JSON.stringify(response.headers) + response.body;
          for (const secret of current.secrets) expect(answer, `${role} saw ${secret}`).not.toContain(secret);
        }
      }
    });
  }

  it('a revoked link opens nothing for anyone', async () => {
    const current = await scene();
    await t.call('DELETE', `/v3/boards/${current.boardId}/links/share`, { token: owner.token });
    await t.call('DELETE', `/v3/boards/${current.boardId}/links/invitation`, { token: owner.token });
    for (const role of ROLES) {
      const shared = await send(role, { method: 'GET', url: pathOf(current.share), apiKey: null });
      expect(shared.statusCode, role).toBe(404);
      const accepted = await send(role, { method: 'POST', url: pathOf(current.invitation) });
      expect(accepted.statusCode, role).toBe({ owner: 404, editor: 404, stranger: 404, client: 403, none: 401 }[role]);
      for (const secret of current.secrets) expect(shared.body + accepted.body).not.toContain(secret);
    }
  });
});
