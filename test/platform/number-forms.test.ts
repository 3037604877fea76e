import Fastify from 'fastify';
import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerErrorHandler } from '../../src/platform/http/error-handler.js';
import { registerNumberForms } from '../../src/platform/http/number-forms.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { insertUser } from '../licensing/licensing-fixtures.js';

describe('numbers in a URL are read as written, on every route', () => {
  const app = Fastify({ ajv: { customOptions: { coerceTypes: 'array' } } });
  beforeAll(async () => {
    registerErrorHandler(app);
    registerNumberForms(app);
    app.get(
      '/things/:index',
      {
        schema: {
          params: Type.Object({ index: Type.Integer({ minimum: 0 }) }),
          querystring: Type.Object({
            page_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
            level: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
            ids: Type.Optional(Type.Array(Type.Integer())),
            name: Type.Optional(Type.String()),
          }),
        },
      },
      async (request) => ({ params: request.params, query: request.query }),
    );
    await app.ready();
  });
  afterAll(() => app.close());
  const get = (url: string) => app.inject({ method: 'GET', url });

  it('rule: Infinity, -Infinity, 1e308, 1e2 and 1.5 are not whole numbers, in the query or the path', async () => {
    for (const value of ['Infinity', '-Infinity', '1e308', '1e2', '1.5', '0x10']) {
      const query = await get(`/things/1?page_size=${encodeURIComponent(value)}`);
      expect(query.statusCode, value).toBe(400);
      expect(query.json(), value).toEqual({ code: 'InvalidPageSize', message: `Invalid value for parameter 'page_size': '${value}' is not a whole number` });
      const path = await get(`/things/${encodeURIComponent(value)}`);
      expect(path.statusCode, value).toBe(400);
      expect(path.json().code).toBe('InvalidParameterValue');
    }
    const listed = await get('/things/1?ids=1&ids=Infinity');
    expect(listed.json()).toMatchObject({ code: 'InvalidParameterValue', message: expect.stringContaining("'ids'") });
  });

  it('rule: a number parameter takes decimals, but never an infinity', async () => {
    expect((await get('/things/1?level=0.25')).json()).toMatchObject({ query: { level: 0.25 } });
    for (const value of ['Infinity', '1e999', 'NaN']) expect((await get(`/things/1?level=${value}`)).statusCode, value).toBe(400);
  });

  it('plain numbers and other parameters pass as before', async () => {
    const response = await get('/things/3?page_size=%2020&ids=1&ids=2&name=1e2');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ params: { index: 3 }, query: { page_size: 20, ids: [1, 2], name: '1e2' } });
  });
});

describe('the rule on the API', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('rule: page_size=-Infinity on the generation history is 400 InvalidPageSize, not a failure', async () => {
    const userId = await insertUser(t.services.database.db);
    const { token } = await t.services.tokens.issue({ clientId: t.clientId, userId, grantType: 'password', lifetimeSeconds: 600 });
    const response = await t.app.inject({
      method: 'GET',
      url: '/v3/ai/generation-history?page_size=-Infinity',
      headers: { 'api-key': t.apiKey, authorization: `Bearer ${token}` },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe('InvalidPageSize');
  });
});
