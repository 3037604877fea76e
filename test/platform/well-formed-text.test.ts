import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { STORES, createTestApp, type TestApp } from '../helpers/test-app.js';
import { insertUser } from '../licensing/licensing-fixtures.js';

/*
 * A NUL or a lone surrogate in any request text is a 400 InvalidCharacter on every surface and on
 * both stores: on PostgreSQL each of these requests used to reach the store and answer 500
 * ("invalid byte sequence for encoding UTF8: 0x00"). Each surface answers in its own shape.
 */
describe.each(STORES)('a NUL or a lone surrogate in request text ($name)', ({ url }) => {
  let t: TestApp;
  let headers: Record<string, string>;
  let boardId: string;
  let commentId: string;
  beforeAll(async () => {
    t = await createTestApp({ databaseUrl: url });
    const userId = await insertUser(t.services.database.db, { firstName: 'Nul', lastName: 'Tester' });
    const { token } = await t.services.tokens.issue({ clientId: t.clientId, userId, grantType: 'password', lifetimeSeconds: 3600 });
    headers = { 'api-key': t.apiKey, authorization: `Bearer ${token}` };
    boardId = (await t.services.boards.create(userId, { name: 'A board' })).id;
    commentId = (await t.services.boards.addComment(userId, boardId, { text: 'A comment' })).id;
  }, 60_000);
  afterAll(() => t?.close());

  const json = (method: InjectOptions['method'], path: string, body: string): InjectOptions => ({
    method,
    url: path,
    headers: { ...headers, 'content-type': 'application/json' },
    payload: body,
  });

  // JSON bodies spell the characters as escapes; a URL or a form carries a NUL as %00.
  const apiCases: Array<[string, () => InjectOptions]> = [
    ['a board name', () => json('POST', '/v3/boards', '{"name":"x\\u0000y"}')],
    ['a board name with a lone high surrogate', () => json('POST', '/v3/boards', '{"name":"x\\ud800y"}')],
    ['a board name with a lone low surrogate', () => json('POST', '/v3/boards', '{"name":"\\udc00"}')],
    ['a board description', () => json('PUT', `/v3/boards/${boardId}`, '{"name":"Renamed","description":"x\\u0000"}')],
    ['a comment', () => json('POST', `/v3/boards/${boardId}/comments`, '{"text":"x\\u0000"}')],
    ['a comment edit', () => json('PUT', `/v3/boards/${boardId}/comments/${commentId}`, '{"text":"\\u0000"}')],
    ['a send address', () => json('POST', `/v3/boards/${boardId}/sends`, '{"email_address":"a\\u0000b@example.com"}')],
    ['a property name', () => json('POST', '/v3/boards', '{"name":"ok","x\\u0000":1}')],
    ['download notes', () => json('POST', '/v3/downloads/images/1', '{"download_notes":"x\\u0000"}')],
    ['a purchase order number', () => json('POST', '/v3/downloads/images/1', '{"purchase_order_number":"PO\\u00001"}')],
    ['an end client', () => json('POST', '/v3/downloads/images/1', '{"end_client":"\\ud83d"}')],
    ['a query parameter', () => ({ method: 'GET', url: '/v3/search/images?phrase=x%00y', headers })],
    ...['GET', 'PUT', 'DELETE'].map((method): [string, () => InjectOptions] => [
      `a board id (${method} /v3/boards/{id})`,
      () => json(method as InjectOptions['method'], '/v3/boards/x%00y', '{"name":"ok"}'),
    ]),
    ['a board id (GET /v3/boards/{id}/comments)', () => ({ method: 'GET', url: '/v3/boards/x%00y/comments', headers })],
    ['a board id (PUT /v3/boards/{id}/assets)', () => json('PUT', '/v3/boards/x%00y/assets', '[{"asset_id":"1"}]')],
    ['a board id (DELETE /v3/boards/{id}/assets/{asset})', () => ({ method: 'DELETE', url: '/v3/boards/x%00y/assets/1', headers })],
    ['a board id (POST /v3/boards/{id}/sends)', () => json('POST', '/v3/boards/x%00y/sends', '{"email_address":"a@example.com"}')],
  ];

  it.each(apiCases)('%s: 400 InvalidCharacter in the API shape', async (_case, request) => {
    const response = await t.app.inject(request());
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toEqual({ code: 'InvalidCharacter', message: expect.stringMatching(/contains (a NUL character|an unpaired UTF-16 surrogate)/) });
  });

  it('the same requests without the character are taken (the refusal is about the character alone)', async () => {
    expect((await t.app.inject(json('POST', '/v3/boards', '{"name":"x y"}'))).statusCode).toBe(201);
    expect((await t.app.inject(json('POST', `/v3/boards/${boardId}/comments`, '{"text":"x y"}'))).statusCode).toBe(201);
    // A character beyond the BMP is a pair of surrogates, and well-formed.
    expect((await t.app.inject(json('POST', '/v3/boards', '{"name":"\\ud83d\\ude00"}'))).statusCode).toBe(201);
  });

  it('the password grant with username=x%00y: 400 invalid_request, no user token needed', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `grant_type=password&client_id=${t.apiKey}&username=x%00y&password=secret`,
    });
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toEqual({ error: 'invalid_request', error_description: expect.stringContaining("form field 'username' contains a NUL character") });
  });

  it('the sign-in form with a NUL in the username: 400 on the error page', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/oauth2/auth',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `client_id=${t.apiKey}&response_type=code&username=x%00y&password=secret&decision=allow`,
    });
    expect(response.statusCode, response.body).toBe(400);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.body).toContain('contains a NUL character');
  });

  it('the authorization request with a NUL in its query: 400 on the error page', async () => {
    const response = await t.app.inject({ method: 'GET', url: `/oauth2/auth?client_id=${t.apiKey}&response_type=code&state=x%00` });
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain('query parameter &#39;state&#39; contains a NUL character');
  });

  it.each([
    ['a board name (POST /boards)', '/boards', 'name=x%00y&csrf=whatever'],
    ['a comment (POST /boards/{id}/comments)', `/boards/BOARD/comments`, 'text=x%00y&csrf=whatever'],
  ])('the catalogue browser’s forms, %s: 400 on its error page', async (_case, path, payload) => {
    const response = await t.app.inject({
      method: 'POST',
      url: path.replace('BOARD', boardId),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload,
    });
    expect(response.statusCode, response.body).toBe(400);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.body).toContain('contains a NUL character');
  });

  it('a NUL in a header (Api-Key) never reaches a route: Node’s parser refuses the request with 400', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as net.AddressInfo;
    const statusLine = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write(`GET /v3/boards HTTP/1.1\r\nHost: stockroom.test\r\nApi-Key: ${t.apiKey}\0x\r\n\r\n`));
      socket.once('data', (data) => {
        resolve(data.toString('latin1').split('\r\n')[0]!);
        socket.destroy();
      });
      socket.once('error', reject);
    });
    expect(statusLine).toBe('HTTP/1.1 400 Bad Request');
  });

  it('a board page of the catalogue browser with %00 in its id: 400 on the error page', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/boards/x%00y' });
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
  });
});
