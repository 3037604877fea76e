import Fastify from 'fastify';
import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerErrorHandler } from '../../src/platform/http/error-handler.js';
import { AtLeastOne, ExactlyOne, Given, registerParameterReading, Text } from '../../src/platform/http/parameters.js';
import { Nullable } from '../../src/platform/http/schema-types.js';
import { validatorsByPart } from '../../src/platform/http/validators.js';

/*
 * A rule over several fields of a body (exactly one of, at least one of) is JSON Schema in the
 * route's one schema, and a body that breaks it is answered in the rule's own words, not the
 * validator's "must match exactly one schema in oneOf". The body's other rules are named as usual.
 */

describe('rules over several fields of a body', () => {
  const app = Fastify({
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', useDefaults: true } },
    schemaController: { compilersFactory: { buildValidator: validatorsByPart() } },
  });
  const Body = Type.Object(
    {
      shelf: Type.Optional(Nullable(Text('A shelf', { pattern: '\\S' }))),
      crate: Type.Optional(Nullable(Type.Object({ row: Type.Integer({ minimum: 0 }) }))),
      width: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 100 }))),
      height: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 100 }))),
      label: Text('What it says', { pattern: '\\S' }),
    },
    {
      allOf: [
        ExactlyOne([Given('shelf'), Given('crate')], { code: 'InvalidPlace', message: 'Give exactly one place: shelf or crate' }),
        AtLeastOne([Given('width', { type: 'number', exclusiveMinimum: 0 }), Given('height', { type: 'number', exclusiveMinimum: 0 })], {
          message: 'At least one of width and height must be above 0',
        }),
      ],
    },
  );

  beforeAll(async () => {
    registerErrorHandler(app);
    registerParameterReading(app);
    app.post('/things', { schema: { body: Body } }, async (request) => request.body);
    await app.ready();
  });
  afterAll(() => app.close());
  const post = (payload: Record<string, unknown>) => app.inject({ method: 'POST', url: '/things', payload });

  it('takes a body that keeps both rules', async () => {
    const response = await post({ shelf: ' A1 ', width: 10, label: 'jars' });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ shelf: 'A1', width: 10, label: 'jars' });
    expect((await post({ crate: { row: 2 }, shelf: null, height: 5, width: 0, label: 'jars' })).statusCode).toBe(200);
  });

  it('answers none, several, or only null or blank alternatives in the rule’s own words and code', async () => {
    for (const places of [{}, { shelf: 'A1', crate: { row: 2 } }, { shelf: null, crate: null }, { shelf: '  ' }]) {
      const response = await post({ ...places, width: 1, label: 'jars' });
      expect(response.statusCode, JSON.stringify(places)).toBe(400);
      expect(response.json(), JSON.stringify(places)).toEqual({ code: 'InvalidPlace', message: 'Give exactly one place: shelf or crate' });
    }
  });

  it('a rule without a code of its own answers InvalidParameterValue', async () => {
    for (const sizes of [{}, { width: 0, height: 0 }, { width: null }]) {
      const response = await post({ shelf: 'A1', ...sizes, label: 'jars' });
      expect(response.json(), JSON.stringify(sizes)).toEqual({ code: 'InvalidParameterValue', message: 'At least one of width and height must be above 0' });
    }
  });

  it('names a field of the wrong type, out of range or missing as usual, not the rule', async () => {
    expect((await post({ shelf: 5, width: 1, label: 'jars' })).json()).toMatchObject({ code: 'InvalidParameterValue', message: expect.stringMatching(/^Invalid value for parameter 'shelf'/) });
    expect((await post({ crate: { row: '2' }, width: 1, label: 'jars' })).json()).toMatchObject({ code: 'InvalidParameterValue', message: expect.stringMatching(/^Invalid value for parameter 'crate'/) });
    expect((await post({ shelf: 'A1', width: 101, label: 'jars' })).json()).toMatchObject({ code: 'InvalidParameterValue', message: expect.stringMatching(/^Invalid value for parameter 'width'/) });
    expect((await post({ shelf: 'A1', width: 1, label: '  ' })).json()).toEqual({ code: 'InvalidParameterValue', message: "Missing required parameter 'label'" });
  });

  it('no body, or a body that is no object, is refused as such, not as a broken rule', async () => {
    expect((await app.inject({ method: 'POST', url: '/things' })).json()).toEqual({ code: 'InvalidParameterValue', message: 'This request needs a JSON body' });
    for (const payload of ['null', '[1]', '"text"']) {
      const response = await app.inject({ method: 'POST', url: '/things', payload, headers: { 'content-type': 'application/json' } });
      const expected = payload === 'null' ? 'This request needs a JSON body' : "Invalid value for parameter 'request': must be object";
      expect(response.json(), payload).toEqual({ code: 'InvalidParameterValue', message: expected });
    }
  });
});
