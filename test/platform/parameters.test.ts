import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readIsoDate } from '../../src/platform/http/iso-date.js';
import { routeContracts } from '../../src/platform/http/openapi.js';
import { READING } from '../../src/platform/http/parameters.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { insertUser } from '../licensing/licensing-fixtures.js';

/*
 * The one parameter model: a date not of the calendar is refused everywhere, with a message
 * naming the parameter and the value; a kind's reading (spaces, letter case, blanks) applies
 * before its strict schema judges the value.
 */

describe('the one parameter model', () => {
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    t = await createTestApp();
    const userId = await insertUser(t.services.database.db, {});
    ({ token } = await t.services.tokens.issue({ clientId: t.clientId, userId, grantType: 'password', lifetimeSeconds: 1800 }));
  });
  afterAll(async () => {
    await t.close();
  });

  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { 'api-key': t.apiKey, authorization: `Bearer ${token}` } });
  const json = (response: LightMyRequestResponse) => response.json() as { message: string; code: string };

  it.each([
    ['/v3/ai/generation-history?date_start=2026-02-30', 'date_start'],
    ['/v3/ai/generation-history?date_end=2026-02-30T10:00:00Z', 'date_end'],
    ['/v3/downloads?date_from=2026-02-30', 'date_from'],
    ['/v3/purchased-assets?date_to=2026-02-30', 'date_to'],
    ['/v3/search/images/editorial?date_from=2026-02-30', 'date_from'],
    ['/v3/search/events?phrase=match&date_to=2023-02-29', 'date_to'],
  ])('%s is a 400 naming %s and the value', async (url, parameter) => {
    const response = await get(url);
    expect(response.statusCode).toBe(400);
    const value = new URL(url, 'http://x').searchParams.get(parameter);
    expect(json(response)).toEqual({
      code: 'InvalidParameterValue',
      message: expect.stringMatching(new RegExp(`^Invalid value for parameter '${parameter}': '${value}' is not an ISO 8601 date`)),
    });
  });

  it('takes a real calendar date, a leap day included, on the same endpoints', async () => {
    for (const url of ['/v3/ai/generation-history?date_start=2024-02-29', '/v3/downloads?date_from=2024-02-29&date_to=2024-03-01', '/v3/search/images/editorial?date_from=2024-02-29']) {
      expect((await get(url)).statusCode, url).toBe(200);
    }
  });

  it('reads a flag and a choice in any letter case and with spaces, and a blank one as absent', async () => {
    expect((await get('/v3/downloads?use_time=%20TRUE%20&product_type=PremiumAccess')).statusCode).toBe(200);
    expect((await get('/v3/downloads?use_time=&product_type=')).statusCode).toBe(200);
    expect(json(await get('/v3/downloads?use_time=yes'))).toEqual({ code: 'InvalidParameterValue', message: "Invalid value for parameter 'use_time': 'yes' is not true or false" });
    expect(json(await get('/v3/downloads?product_type=gold'))).toEqual({
      code: 'InvalidParameterValue',
      message: expect.stringMatching(/^Invalid value for parameter 'product_type': 'gold' is not one of /),
    });
  });

  it('reads a comma list item by item, naming the item at fault', async () => {
    expect((await get('/v3/ai/generation-history?product_ids=1,%202')).statusCode).toBe(200);
    expect(json(await get('/v3/ai/generation-history?product_ids=1,x'))).toMatchObject({ code: 'InvalidParameterValue', message: expect.stringMatching(/'product_ids': 'x'/) });
  });

  it('keeps the spec’s codes of paging and of an unknown parameter', async () => {
    expect(json(await get('/v3/downloads?page=0'))).toMatchObject({ code: 'InvalidPage' });
    expect(json(await get('/v3/downloads?page_size=500'))).toMatchObject({ code: 'InvalidPageSize' });
    expect(json(await get('/v3/downloads?colour=red'))).toEqual({ code: 'MalformedRequest', message: "Unknown parameter 'colour'" });
  });

  it('reads dates with the one reader: the calendar, zones and years before 100', () => {
    expect(readIsoDate('2026-02-30')).toBeUndefined();
    expect(readIsoDate('2023-02-29')).toBeUndefined();
    expect(readIsoDate('2024-03-09T24:00')).toBeUndefined();
    expect(readIsoDate('2024-03-09Z')).toBeUndefined();
    expect(readIsoDate('0000-01-01')).toBeUndefined();
    expect(readIsoDate('2024-03-09T10:00:00+01:00')?.millis).toBe(Date.UTC(2024, 2, 9, 9));
    expect(readIsoDate('2024-03-09')).toMatchObject({ millis: Date.UTC(2024, 2, 9), dateOnly: true });
    expect(new Date(readIsoDate('0050-06-01')!.millis).getUTCFullYear()).toBe(50);
  });
});

/**
 * The routes that still validate loosely and give the document a stricter twin (`schema.documented`):
 * the parameter model has not reached them yet. The list may only shrink.
 */
const NOT_YET_ONE_SCHEMA: readonly string[] = [
  'POST /ai/image-generations',
  'POST /ai/image-generations/background-generations',
  'POST /ai/image-generations/background-removal',
  'POST /ai/image-generations/extend',
  'POST /ai/image-generations/influence-color-by-image',
  'POST /ai/image-generations/influence-composition-by-image',
  'POST /ai/image-generations/object-removal',
  'POST /ai/image-generations/refine',
];

describe('every route validates with exactly the schema it documents', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  type Schema = Record<string, unknown>;
  type Operation = { parameters?: Array<{ name: string; in: string; required?: boolean; schema: Schema }>; requestBody?: { content: Record<string, { schema: Schema }> } };

  /** The document's schemas lose nothing of the route's but the keys OpenAPI moves elsewhere. */
  function comparable(schema: unknown): unknown {
    return JSON.parse(JSON.stringify(schema ?? null));
  }

  it('no route carries a second schema for the document, and each documented parameter is the route’s own schema', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/v3/openapi.json' })).json() as { paths: Record<string, Record<string, Operation>> };
    let compared = 0;
    const stillTwinned = new Set<string>();
    for (const route of routesOf(t)) {
      const schema = route.schema as Record<string, unknown> | undefined;
      if (!schema || schema.hide) continue;
      if ('documented' in schema) {
        stillTwinned.add(`${String(route.method)} ${route.url.replace(/^\/(v3|beta)/, '')}`);
        continue;
      }
      const path = route.url.replace(/:(\w+)/g, '{$1}');
      const operation = document.paths[path]?.[String(route.method).toLowerCase()];
      if (!operation) continue;
      for (const part of ['querystring', 'params'] as const) {
        const validated = schema[part] as { properties?: Record<string, Schema>; required?: string[] } | undefined;
        const where = part === 'querystring' ? 'query' : 'path';
        const documented = (operation.parameters ?? []).filter((parameter) => parameter.in === where);
        expect(documented.map((parameter) => parameter.name).sort(), `${route.method} ${route.url} ${part}`).toEqual(Object.keys(validated?.properties ?? {}).sort());
        for (const parameter of documented) {
          const own = validated!.properties![parameter.name]!;
          const { description: _d, ...documentedRest } = parameter.schema;
          const { description: _o, ...ownRest } = comparable(own) as Schema;
          expect(documentedRest, `${route.method} ${route.url} ${parameter.name}`).toEqual(ownRest);
          compared += 1;
        }
      }
      const body = schema.body as Schema | undefined;
      const content = operation.requestBody?.content;
      if (body && content?.['application/json']) {
        const { description: _d, ...documentedBody } = content['application/json'].schema;
        const { description: _o, ...ownBody } = comparable(body) as Schema;
        expect(documentedBody, `${route.method} ${route.url} body`).toEqual(ownBody);
        compared += 1;
      }
    }
    expect(compared).toBeGreaterThan(100);
    expect([...stillTwinned].sort()).toEqual([...NOT_YET_ONE_SCHEMA].sort());
  });

  it('states each kind’s reading in the document, where a caller can see what is forgiven', async () => {
    const text = (await t.app.inject({ method: 'GET', url: '/v3/openapi.json' })).body;
    expect(text).toContain(READING);
  });
});

/** Every route of the app, as Fastify registered it (its schema included). */
function routesOf(t: TestApp) {
  return routeContracts(t.app);
}
