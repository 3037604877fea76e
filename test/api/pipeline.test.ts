import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { addImage } from '../helpers/catalog-fixtures.js';

describe('the request pipeline', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    await addImage(t.services, '1001');
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers 403 Account Inactive without an Api-Key', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/v3/images/1001' });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({ message: 'Account Inactive', code: 'AccountInactive' });
    expect(response.headers['x-error-detail']).toBe('No Api-Key header was sent');
  });

  it('answers 403 Account Inactive for an unknown Api-Key', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/v3/images/1001', headers: { 'api-key': 'nobody' } });
    expect(response.statusCode).toBe(403);
    expect(response.json().message).toBe('Account Inactive');
    expect(response.headers['x-error-detail']).toBe('The Api-Key is unknown, or its client is disabled');
  });

  it('rule: an empty Api-Key counts as none sent', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/v3/countries', headers: { 'api-key': ' ' } });
    expect(response.statusCode).toBe(403);
    expect(response.headers['x-error-detail']).toBe('No Api-Key header was sent');
  });

  it('rule: a request that needs a token says what is wrong with the Authorization header it sent', async () => {
    const ask = async (authorization?: string) => {
      const response = await t.app.inject({
        method: 'GET',
        url: '/v3/images/1001?fields=downloads',
        headers: { 'api-key': t.apiKey, ...(authorization === undefined ? {} : { authorization }) },
      });
      expect(response.statusCode).toBe(401);
      expect(response.json().code).toBe('AuthorizationTokenRequired');
      expect(response.headers['www-authenticate']).toBe('Bearer realm="Stockroom"');
      return response.json().message as string;
    };
    const token = await t.issueToken();
    expect(await ask()).toBe("An access token is required for this request: send 'Authorization: Bearer <access token>'");
    const bare = await ask(token);
    expect(bare).toBe("The Authorization header has no scheme: send 'Authorization: Bearer <access token>'");
    expect(bare).not.toContain(token);
    expect(await ask('Basic dXNlcjpwYXNz')).toBe(
      "The Authorization header uses the Basic scheme; this request needs a bearer token: send 'Authorization: Bearer <access token>'",
    );
  });

  it('answers 403 Account Inactive for a disabled key', async () => {
    const { apiKey } = await t.services.clients.create({ name: 'short-lived' });
    expect((await t.app.inject({ method: 'GET', url: '/v3/countries', headers: { 'api-key': apiKey } })).statusCode).toBe(200);
    await t.services.clients.disable(apiKey);
    const response = await t.app.inject({ method: 'GET', url: '/v3/countries', headers: { 'api-key': apiKey } });
    expect(response.statusCode).toBe(403);
    expect(response.json().message).toBe('Account Inactive');
  });

  it('stores API keys and secrets only as hashes', async () => {
    const { apiKey, apiSecret } = await t.services.clients.create({ name: 'hash check' });
    const rows = await t.services.database.db.selectFrom('api_clients').selectAll().execute();
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(apiKey);
    expect(dump).not.toContain(apiSecret);
    expect(await t.services.clients.verifySecret(apiKey, apiSecret)).toBeDefined();
    expect(await t.services.clients.verifySecret(apiKey, `${apiSecret}x`)).toBeUndefined();
  });

  it('echoes the caller’s X-Request-Id and makes one when absent', async () => {
    const echoed = await t.app.inject({ method: 'GET', url: '/v3/countries', headers: { 'api-key': t.apiKey, 'x-request-id': 'abc-123' } });
    expect(echoed.headers['x-request-id']).toBe('abc-123');
    const made = await t.app.inject({ method: 'GET', url: '/v3/countries', headers: { 'api-key': t.apiKey } });
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const refused = await t.app.inject({ method: 'GET', url: '/v3/countries' });
    expect(refused.headers['x-request-id']).toBeDefined();
  });

  it('sends CORS headers on the API and answers preflight without a key', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/v3/countries', headers: { 'api-key': t.apiKey, origin: 'https://app.example' } });
    expect(response.headers['access-control-allow-origin']).toBe('*');
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/v3/images/1001',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'api-key' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(String(preflight.headers['access-control-allow-headers']).toLowerCase()).toContain('api-key');
    // The contract's Country-Code header may be sent by a browser client too.
    expect(String(preflight.headers['access-control-allow-headers']).toLowerCase()).toContain('country-code');
  });

  it('answers an id too long for the router with 414 MalformedRequest that says so', async () => {
    const response = await t.app.inject({ method: 'GET', url: `/v3/images/${'1'.repeat(2000)}`, headers: { 'api-key': t.apiKey } });
    expect(response.statusCode).toBe(414);
    expect(response.json()).toEqual({ message: 'The request URL is too long', code: 'MalformedRequest' });
  });

  it('answers unknown paths with a JSON 404', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/v3/nothing-here', headers: { 'api-key': t.apiKey } });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ code: 'NotFound' });
  });

  it('carries rate-limit headers on successful responses', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/v3/countries', headers: { 'api-key': t.apiKey } });
    expect(response.headers['x-ratelimit-limit-second']).toBe('100000');
    expect(Number(response.headers['x-ratelimit-remaining-day'])).toBeLessThan(10_000_000);
  });

  it('serves an OpenAPI 3.1 document generated from the route schemas', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/v3/openapi.json' });
    expect(response.statusCode).toBe(200);
    const document = response.json();
    expect(document.openapi).toBe('3.1.0');
    for (const path of ['/v3/images', '/v3/images/{id}', '/v3/videos', '/v3/videos/{id}', '/v3/events', '/v3/events/{id}', '/v3/collections', '/v3/countries']) {
      expect(document.paths, path).toHaveProperty(path);
    }
    const parameters = document.paths['/v3/images'].get.parameters.map((p: { name: string }) => p.name);
    expect(parameters).toEqual(expect.arrayContaining(['ids', 'fields', 'page', 'page_size']));
    // Every search endpoint is described too, the upload with its two media types.
    for (const path of [
      '/v3/search/images',
      '/v3/search/images/creative',
      '/v3/search/images/editorial',
      '/v3/search/images/creative/by-image',
      '/v3/search/videos',
      '/v3/search/videos/creative',
      '/v3/search/videos/editorial',
      '/v3/search/videos/creative/by-image',
      '/v3/search/events',
      '/v3/images/{id}/similar',
      '/v3/images/{id}/same-series',
      '/v3/videos/{id}/similar',
      '/v3/videos/{id}/same-series',
      '/v3/affiliates/search/images',
      '/v3/affiliates/search/videos',
      '/v3/artists/images',
      '/v3/artists/videos',
    ]) {
      expect(document.paths[path], path).toHaveProperty('get');
    }
    const upload = document.paths['/v3/search/by-image/uploads/{fileName}'].put;
    expect(Object.keys(upload.requestBody.content).sort()).toEqual(['image/jpeg', 'image/png']);
  });

  it('serves interactive docs at /docs', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/html');
  });
});

describe('a failure inside the server', () => {
  it('answers 500 with no internals in the body', async () => {
    const t = await createTestApp();
    // The store going away mid-flight is the kind of failure a client must not see the inside of.
    await t.services.database.db.schema.dropTable('asset_keywords').execute();
    await t.services.database.db.schema.dropTable('asset_events').execute();
    await t.services.database.db.schema.dropTable('assets').execute();
    const response = await t.app.inject({ method: 'GET', url: '/v3/images/1', headers: { 'api-key': t.apiKey } });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({ message: 'An internal error occurred', code: 'InternalServerError' });
    expect(response.body).not.toMatch(/assets|sqlite|stack|at /i);
    await t.close();
  });
});

describe('the API description', () => {
  it('is readable from any origin without a key', async () => {
    const t = await createTestApp();
    const response = await t.app.inject({ method: 'GET', url: '/v3/openapi.json', headers: { origin: 'https://tools.example' } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['access-control-allow-origin']).toBe('*');
    await t.close();
  });
});

describe('odd requests get the API’s own errors', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });
  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { 'api-key': t.apiKey } });

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])('rejects fields=%s as an unknown field', async (name) => {
    const response = await get(`/v3/images?ids=1&fields=${name}`);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'InvalidParameterValue' });
  });

  it('treats an id no asset can have as not found, without asking the store; a NUL in one is no text at all (400)', async () => {
    expect((await get('/v3/images/%00')).json()).toMatchObject({ code: 'InvalidCharacter' });
    expect((await get('/v3/images?ids=a%00b,ok&fields=id')).json()).toMatchObject({ code: 'InvalidCharacter' });
    expect((await get(`/v3/images/${'x'.repeat(300)}`)).json()).toMatchObject({ code: 'ImageNotFound' });
  });

  it('answers an undecodable URL with JSON and a request id', async () => {
    const response = await get('/v3/images/%E0%A4%A');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ message: expect.any(String), code: 'MalformedRequest' });
    expect(response.headers['x-request-id']).toBeDefined();
  });
});
