import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { FIRST_EVENT_ID, FIRST_IMAGE_ID, FIRST_VIDEO_ID, seedDemo } from '../../src/catalog/demo/demo-catalog.js';
import { createTestApp } from '../helpers/test-app.js';
import { insertUser } from '../licensing/licensing-fixtures.js';
import { FOREIGN_WORD, invalidTexts, malformedTexts, resolverOf, validValue, type JsonSchema } from './schema-arbitraries.js';

/*
 * The conformance fuzzer: every operation of the server's own /v3/openapi.json is driven with
 * requests generated from its schemas — valid ones, and ones with a single part broken — sent
 * with a customer's token and without. For every answer: no 5xx; the status is documented; a
 * JSON body validates against the documented schema; a 4xx body is the documented error shape.
 * A valid request must not be refused with 400 (the document would be looser than the server),
 * save for the rules the table below names; a broken one must get a 4xx.
 *
 * CI runs a fixed seed; `npm run fuzz` runs longer with a random seed, printed so that a
 * failure can be replayed: FUZZ_SEED=<seed> npm run fuzz. FUZZ_RUNS sets the runs per operation.
 */

const LONG = process.env.FUZZ_LONG === '1';
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : LONG ? Math.floor(Math.random() * 2 ** 31) : 42;
const RUNS = process.env.FUZZ_RUNS ? Number(process.env.FUZZ_RUNS) : LONG ? 400 : 30;

/** A 400 a request valid by the document may still get: a rule the document states in words only. */
interface RuleBeyondTheSchema {
  /** the error's named code; null for an HTML page, whose text `message` is matched against */
  readonly code: string | null;
  readonly message: RegExp;
  readonly why: string;
}

const DATE_ORDER: RuleBeyondTheSchema = {
  code: 'InvalidParameterValue',
  message: /'date_to': is before date_from|'date_from': (must not be after|date_from is after) date_to/,
  why: 'date_from after date_to: a rule over two parameters',
};
const CLIP_ORDER: RuleBeyondTheSchema = {
  code: 'InvalidParameterValue',
  message: /'max_clip_length': \d+ is less than min_clip_length/,
  why: 'min_clip_length above max_clip_length: a rule over two parameters',
};
const ONE_SOURCE: RuleBeyondTheSchema[] = [
  { code: 'InvalidParameterValue', message: /Exactly one of the parameters 'asset_id' and 'image_url'/, why: 'asset_id or image_url: one of two parameters' },
  { code: 'InvalidParameterValue', message: /parameter 'image_url'/, why: "image_url must name one of this key's uploads: data, not form" },
  { code: 'InvalidParameterValue', message: /parameter 'asset_id': asset \S+ has no visual signature/, why: 'an asset without a picture: data, not form' },
];
const DOWNLOAD_SIZE: RuleBeyondTheSchema[] = [
  { code: 'InvalidParameterValue', message: /parameter '(height|size)': .* has no download size/, why: "the asset's own download sizes: data, not form" },
  { code: 'FileTypeNotAvailable', message: /parameter 'file_type': image \S+ has no EPS file/, why: "whether the image has an EPS file: data, not form" },
  { code: 'InvalidParameterValue', message: /parameter 'height': an EPS file has one size/, why: 'height and file_type=eps: two parameters that do not go together' },
];

const OAUTH_GRANTS: RuleBeyondTheSchema[] = ['invalid_client', 'invalid_grant', 'unauthorized_client'].map((code) => ({
  code,
  message: /./,
  why: 'client credentials, codes, refresh tokens and passwords are checked against the store: data, not form',
}));
const AUTHORIZATION_PAGE: RuleBeyondTheSchema = {
  code: null,
  message: /client_id does not name|redirect_uri|may not sign users in/,
  why: 'client_id and redirect_uri must name an application and one of its redirect URIs: data, not form',
};

/**
 * The one 5xx that is an answer, not a failure: an operation no configured engine can do says
 * which setting connects one (a model server for prompt-driven generation). It must be documented.
 */
const ENGINE_NOT_CONFIGURED = 'GenerationEngineUnavailable';

/** A catalogue image a generative edit may start from: creative, and for some a photograph. */
const GENERATIVE_REFERENCE: RuleBeyondTheSchema = {
  code: 'InvalidParameterValue',
  message: /parameter 'reference_asset_id': image \S+ is (not a creative image|an illustration|a vector)/,
  why: 'a reference image must be creative (and a photograph for refine and extend): data, not form',
};
const OWN_UPLOAD: RuleBeyondTheSchema = {
  code: 'InvalidParameterValue',
  message: /parameter '(mask_url|url)'/,
  why: "a mask or file must be one of the sender's own uploads: data, not form",
};
const HELD_AI_PRODUCT: RuleBeyondTheSchema = {
  code: 'InvalidProduct',
  message: /Product -?\d+ is not an active AI generation product of this user/,
  why: "product_id must name one of the user's AI generation products: data, not form",
};
const PROJECT_CODE: RuleBeyondTheSchema = {
  code: 'InvalidParameterValue',
  message: /parameter 'project_code': (product \d+ takes no project_code|'.*' is not one of the project codes of product)/,
  why: "a product's project codes (or none): data, not form",
};
/** What the AI generation product held decides: data, not form. */
const AI_PRODUCT: readonly RuleBeyondTheSchema[] = [HELD_AI_PRODUCT, PROJECT_CODE];
const HISTORY_DATES: RuleBeyondTheSchema = {
  code: 'InvalidParameterValue',
  message: /date_start is after date_end/,
  why: 'date_start after date_end: a rule over two parameters',
};

/**
 * Rules JSON Schema cannot state of separate query parameters, or that depend on the data: the
 * 400s a request valid by the document may still get from one operation, and why. Each is said
 * in that operation's description.
 */
const RULES_BEYOND_THE_SCHEMA: Readonly<Record<string, readonly RuleBeyondTheSchema[]>> = {
  'GET /v3/search/events': [
    { code: 'SearchPhraseOrEditorialSegmentRequired', message: /./, why: 'phrase or editorial_segment: one of two parameters' },
    DATE_ORDER,
  ],
  'GET /v3/search/images/creative/by-image': ONE_SOURCE,
  'GET /v3/search/videos/creative/by-image': [...ONE_SOURCE, CLIP_ORDER],
  'GET /v3/search/images/editorial': [DATE_ORDER],
  'GET /v3/search/videos': [CLIP_ORDER],
  'GET /v3/search/videos/creative': [CLIP_ORDER],
  'GET /v3/search/videos/editorial': [DATE_ORDER, CLIP_ORDER],
  'GET /v3/downloads': [DATE_ORDER],
  'GET /v3/purchased-images': [DATE_ORDER],
  'GET /v3/purchased-assets': [DATE_ORDER],
  'POST /v3/downloads/images/{id}': DOWNLOAD_SIZE,
  'POST /v3/downloads/images/{id}/post': DOWNLOAD_SIZE,
  'POST /v3/downloads/{id}': DOWNLOAD_SIZE,
  'POST /v3/downloads/videos/{id}': DOWNLOAD_SIZE,
  ...Object.fromEntries(
    ['/v3', '/beta'].flatMap((prefix) => [
      [`POST ${prefix}/ai/image-generations/refine`, [GENERATIVE_REFERENCE, OWN_UPLOAD, ...AI_PRODUCT]],
      [`POST ${prefix}/ai/image-generations/extend`, [GENERATIVE_REFERENCE, ...AI_PRODUCT]],
      [`POST ${prefix}/ai/image-generations/background-removal`, [GENERATIVE_REFERENCE, ...AI_PRODUCT]],
      [`POST ${prefix}/ai/image-generations/object-removal`, [GENERATIVE_REFERENCE, OWN_UPLOAD, ...AI_PRODUCT]],
      [`POST ${prefix}/ai/image-generations/influence-color-by-image`, [GENERATIVE_REFERENCE, ...AI_PRODUCT]],
      [`POST ${prefix}/ai/image-generations/influence-composition-by-image`, [GENERATIVE_REFERENCE, ...AI_PRODUCT]],
    ]),
  ),
  ...Object.fromEntries(
    [
      ...['/v3', '/beta'].flatMap((prefix) => [
        `POST ${prefix}/ai/image-generations`,
        `POST ${prefix}/ai/image-generations/{generationRequestId}/images/{index}/variations`,
        `PUT ${prefix}/ai/image-generations/{generationRequestId}/images/{index}/download`,
        `POST ${prefix}/ai/redownloads`,
      ]),
      'POST /beta/ai/image-generations/background-generations',
    ].map((key) => [key, AI_PRODUCT]),
  ),
  'POST /beta/ai/file-registrations': [OWN_UPLOAD],
  'GET /v3/ai/generation-history': [HISTORY_DATES],
  'GET /beta/ai/generation-history': [HISTORY_DATES],
  'PUT /v3/usage-batches/{id}': [{ code: 'InvalidRequest', message: /\.usage_date /, why: 'a usage date names one day of the calendar that has come' }],
  ...Object.fromEntries(['/oauth2', '/v4/oauth2', '/auth/oauth2'].flatMap((prefix) => [
    [`POST ${prefix}/token`, OAUTH_GRANTS],
    [`GET ${prefix}/auth`, [AUTHORIZATION_PAGE]],
  ])),
};

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
const METHODS: readonly Method[] = ['get', 'post', 'put', 'patch', 'delete'];

interface Parameter {
  name: string;
  in: 'query' | 'path' | 'header' | 'cookie';
  required?: boolean;
  deprecated?: boolean;
  style?: string;
  explode?: boolean;
  schema: JsonSchema;
}

interface MediaType {
  schema?: JsonSchema;
}

interface Operation {
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, MediaType> };
  responses: Record<string, { description?: string; content?: Record<string, MediaType>; headers?: Record<string, unknown> }>;
  security?: Array<Record<string, string[]>>;
  description?: string;
}

interface OpenApiDocument {
  paths: Record<string, Partial<Record<Method, Operation>>>;
  security?: Array<Record<string, string[]>>;
  components: { schemas: Record<string, JsonSchema> };
}

/** One request as generated: values by parameter, before they are written into a URL. */
interface GeneratedRequest {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
  body?: { contentType: string; value: unknown };
  /** What was broken, for the failure message; absent on a valid request. */
  broken?: string;
}

/**
 * The whole fuzzer against one store: its own application, catalogue and customer, and one test
 * an operation. A test file calls it once (conformance.test.ts on SQLite, conformance.postgres.test.ts
 * on PostgreSQL), so that the two stores run side by side in two workers.
 */
export async function defineConformanceSuite(store: { name: string; url: string | undefined }): Promise<void> {
  // ---- The application, a small catalogue and a customer ---------------------------------------

  const t = await createTestApp({ databaseUrl: store.url });
  await seedDemo({ catalog: t.services.catalog, blobs: t.services.blobs }, { images: 8, videos: 3, events: 4 });
  const customerId = await insertUser(t.services.database.db, { firstName: 'Fuzz', lastName: 'Tester', partnerCredit: true });
  await t.services.products.grant({ userId: customerId, type: 'premiumaccess' });
  await t.services.products.grant({ userId: customerId, type: 'creditpack', credits: 100_000 });
  const customerToken = (await t.services.tokens.issue({ clientId: t.clientId, userId: customerId, grantType: 'password', lifetimeSeconds: 3600 }))
    .token;
  const oauthClient = await t.services.clients.create({ name: 'Fuzzed application', confidential: true, redirectUris: ['https://app.test/callback'] });
  const signInUser = { username: 'fuzz-user', password: 'correct horse battery staple' };
  await t.services.users.create(signInUser);

  const sampleFiles: Readonly<Record<string, Buffer>> = {
    'image/jpeg': await sharp({ create: { width: 32, height: 24, channels: 3, background: '#3a6ea5' } }).jpeg().toBuffer(),
    'image/png': await sharp({ create: { width: 32, height: 24, channels: 3, background: '#a53a6e' } }).png().toBuffer(),
  };

  const imageIds = Array.from({ length: 8 }, (_, i) => String(FIRST_IMAGE_ID + i));
  const videoIds = Array.from({ length: 3 }, (_, i) => `v${FIRST_VIDEO_ID + i}`);
  const eventIds = Array.from({ length: 4 }, (_, i) => String(FIRST_EVENT_ID + i));
  const artistNames = (await t.services.catalog.findAssets('image', imageIds)).found
    .map((record) => record.fields.artist)
    .filter((artist): artist is string => typeof artist === 'string');
  const ASSET_IDS = [...imageIds, ...videoIds];
  // Boards: the customer's own, with assets and a comment, and another user's whose links the customer holds.
  const customerBoard = (await t.services.boards.create(customerId, { name: 'Fuzzed board' })).id;
  await t.services.boards.addAssets(customerId, customerBoard, imageIds.slice(0, 3));
  const boardComment = (await t.services.boards.addComment(customerId, customerBoard, { text: 'A comment' })).id;
  const boardHost = await insertUser(t.services.database.db, { firstName: 'Board', lastName: 'Host' });
  const hostLinks = (await t.services.boards.get(boardHost, (await t.services.boards.create(boardHost, { name: 'Shared board' })).id)).links;
  const linkToken = (link: string | null) => link!.split('/').pop()!;
  // Asset changes: a channel of the test client over the catalogue above, so that its list and hand-outs answer with bodies.
  await t.services.assetChanges.createChannel({ clientId: t.clientId, assetFamily: 'both', assetType: 'image' });
  // Reporting and orders: the test client may report usage and read orders, and the customer has bought an asset (an order).
  await t.services.clients.setPermissions(String(t.clientId), { usageReporting: true, orderMetadata: true });
  const purchase = await t.services.downloads.download({
    grant: { clientId: t.clientId, userId: customerId, issuedAt: new Date() },
    assetType: 'image',
    assetId: imageIds[7]!,
    useTeamCredits: false,
  });
  const customerOrder = (await t.services.database.db.selectFrom('downloads').select('order_id').where('id', '=', purchase.downloadId).executeTakeFirstOrThrow()).order_id;
  // Generation: a finished request of the customer whose result downloads. Its AI product has no
  // generations left, so the fuzzer's generative requests are checked in full but queue no job.
  const aiProduct = await t.services.products.grant({ userId: customerId, type: 'aigen', generations: 0 });
  const generationId = 'f0'.repeat(16);
  {
    const created = new Date();
    const picture = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#6ea53a' } }).png().toBuffer();
    await t.services.blobs.put(`generation/results/${generationId}/0.png`, picture);
    await t.services.blobs.put(`generation/results/${generationId}/0-preview.jpg`, await sharp(picture).jpeg().toBuffer());
    await t.services.database.db
      .insertInto('generation_requests')
      .values({
        id: generationId,
        user_id: customerId,
        client_id: t.clientId,
        team: null,
        product_id: aiProduct.id,
        generation_type: 'text_to_image',
        job: JSON.stringify({ operation: 'generate', params: {}, pictures: {} }),
        status: 'done',
        prompt: 'a fuzzed field',
        seed: 1,
        charge: 'charged',
        engine: 'drawing',
        attempts: 1,
        created_at: created.toISOString(),
        finished_at: created.toISOString(),
        expires_at: new Date(created.getTime() + 86_400_000).toISOString(),
      })
      .execute();
    await t.services.database.db
      .insertInto('generation_results')
      .values({
        request_id: generationId,
        result_index: 0,
        is_blocked: 0,
        seed: 1,
        image_key: `generation/results/${generationId}/0.png`,
        preview_key: `generation/results/${generationId}/0-preview.jpg`,
        width: 64,
        height: 48,
        preview_width: 64,
        preview_height: 48,
      })
      .execute();
  }
  // The customer has downloaded that result at 1k (a prepared file and a download in the history),
  // so that GET …/download answers about it and a redownload finds it.
  {
    const grant = { clientId: t.clientId, userId: customerId, issuedAt: new Date() };
    const first = await t.services.generationDownloads.download(grant, t.clientId, generationId, 0, { size_name: '1k' });
    for (let waited = 0; first.status === 202 && waited < 30_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      if ((await t.services.generationDownloads.status(grant, generationId, 0)).status === 200) break;
    }
  }
  /** Integers that make lookups hit: the seeded generation's result index, and the AI product a redownload names. */
  const KNOWN_INTEGERS: Readonly<Record<string, readonly number[]>> = {
    index: [0],
    product_id: [aiProduct.id],
  };
  /** Values that make lookups hit, by the name of the parameter or property they are tried for; ids anywhere else. */
  const KNOWN_STRINGS: Readonly<Record<string, readonly string[]>> = {
    artist_name: artistNames,
    artists: artistNames,
    ids: [...ASSET_IDS, ...eventIds],
    event_ids: eventIds,
    client_id: [oauthClient.apiKey],
    client_secret: [oauthClient.apiSecret],
    username: [signInUser.username],
    password: [signInUser.password],
    redirect_uri: ['https://app.test/callback'],
    board_id: [customerBoard],
    comment_id: [boardComment],
    invitation_token: [linkToken(hostLinks.invitation)],
    share_token: [linkToken(hostLinks.share)],
    usage_date: ['2024-03-09', '2024-03-09T10:00:00Z', '9 March 2024'],
    generationRequestId: [generationId],
    generation_request_id: [generationId],
    generated_asset_id: [`${generationId}-0`],
  };
  const ANY_NAME = [...ASSET_IDS, ...eventIds, String(customerOrder)];

  const document = (await t.app.inject({ method: 'GET', url: '/v3/openapi.json' })).json() as OpenApiDocument;
  const resolve = resolverOf(document);

  // ---- Validating answers against the document -------------------------------------------------

  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  addFormats.default(ajv);
  ajv.addFormat('binary', true);

  /** The document's `#/components/schemas/X` become references into one registered schema. */
  function rehomed(value: unknown): unknown {
    if (Array.isArray(value)) return value.map(rehomed);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [
        key,
        key === '$ref' && typeof inner === 'string' ? inner.replace('#/components/schemas/', 'components#/$defs/') : rehomed(inner),
      ]),
    );
  }
  ajv.addSchema({ $id: 'components', $defs: rehomed(document.components.schemas) as JsonSchema });
  const validators = new Map<JsonSchema, ValidateFunction>();
  function validatorOf(schema: JsonSchema): ValidateFunction {
    let validate = validators.get(schema);
    if (!validate) {
      validate = ajv.compile(rehomed(schema) as JsonSchema);
      validators.set(schema, validate);
    }
    return validate;
  }

  const pool = {
    strings(schema: JsonSchema, name?: string): readonly string[] {
      const validate = validatorOf(schema);
      return ((name !== undefined && KNOWN_STRINGS[name]) || ANY_NAME).filter((value) => validate(value));
    },
    integers(schema: JsonSchema, name?: string): readonly number[] {
      const validate = validatorOf(schema);
      return ((name !== undefined && KNOWN_INTEGERS[name]) || []).filter((value) => validate(value));
    },
    accepts(schema: JsonSchema, value: unknown): boolean {
      return validatorOf(schema)(value);
    },
  };

  // ---- Generating requests ---------------------------------------------------------------------

  function securityOf(operation: Operation): Array<Record<string, string[]>> {
    return operation.security ?? document.security ?? [];
  }

  function requestArbitrary(operation: Operation): fc.Arbitrary<GeneratedRequest> {
    const parts: Record<'path' | 'query' | 'headers', fc.Arbitrary<Record<string, unknown>>> = {
      path: fc.constant({}),
      query: fc.constant({}),
      headers: fc.constant({}),
    };
    for (const location of ['path', 'query', 'header'] as const) {
      const parameters = (operation.parameters ?? []).filter((parameter) => parameter.in === location && !parameter.deprecated);
      const model = Object.fromEntries(parameters.map((parameter) => [parameter.name, validValue(parameter.schema, resolve, pool, parameter.name)]));
      const required = parameters.filter((parameter) => parameter.required || location === 'path').map((parameter) => parameter.name);
      parts[location === 'header' ? 'headers' : location] = fc.record(model, { requiredKeys: required });
    }
    const content = Object.entries(operation.requestBody?.content ?? {});
    const body: fc.Arbitrary<GeneratedRequest['body']> =
      content.length === 0
        ? fc.constant(undefined)
        : fc.oneof(
            ...content.map(([contentType, media]) =>
              (sampleFiles[contentType] ? fc.constant(sampleFiles[contentType]) : validValue(media.schema ?? {}, resolve, pool)).map(
                (value) => ({ contentType, value }),
              ),
            ),
          );
    return fc
      .record({ ...parts, body })
      // A path segment of '.' or '..' (even escaped) is resolved away by any URL parser before it is sent.
      .filter((request) => Object.values(request.path).every((value) => value !== '.' && value !== '..'));
  }

  /** Requests with one part broken: a required parameter left out, or a value its schema refuses. */
  function brokenArbitraries(operation: Operation): Array<fc.Arbitrary<GeneratedRequest>> {
    const valid = requestArbitrary(operation);
    const broken: Array<fc.Arbitrary<GeneratedRequest>> = [];
    for (const parameter of operation.parameters ?? []) {
      if (parameter.in === 'cookie' || parameter.deprecated) continue;
      const part = parameter.in === 'header' ? 'headers' : parameter.in;
      if (parameter.required && parameter.in !== 'path') {
        broken.push(
          valid.map((request) => {
            const { [parameter.name]: _left, ...rest } = request[part];
            return { ...request, [part]: rest, broken: `${parameter.name} left out` };
          }),
        );
      }
      const schema = resolve(parameter.schema);
      const isList = schema.type === 'array';
      const candidates = invalidTexts(isList ? ((schema.items as JsonSchema | undefined) ?? {}) : schema, resolve);
      if (candidates.length > 0) {
        broken.push(
          fc.tuple(valid, fc.constantFrom(...candidates)).map(([request, text]) => ({
            ...request,
            [part]: { ...request[part], [parameter.name]: isList ? [text] : text },
            broken: `${parameter.name}=${text}`,
          })),
        );
      }
      // A NUL in any path or query parameter, whatever its type: refused before any route reads it.
      if (parameter.in === 'path' || parameter.in === 'query') {
        broken.push(
          fc.tuple(valid, fc.constantFrom(...malformedTexts('url'))).map(([request, text]) => ({
            ...request,
            [part]: { ...request[part], [parameter.name]: isList ? [text] : text },
            broken: `${parameter.name}=${JSON.stringify(text)}`,
          })),
        );
      }
      if (isList && typeof schema.maxItems === 'number') {
        const item = validValue((schema.items as JsonSchema | undefined) ?? {}, resolve, pool);
        const tooMany = schema.maxItems + 1;
        broken.push(
          fc.tuple(valid, fc.array(item, { minLength: tooMany, maxLength: tooMany })).map(([request, items]) => ({
            ...request,
            [part]: { ...request[part], [parameter.name]: items },
            broken: `${parameter.name} with ${tooMany} items`,
          })),
        );
      }
    }
    if (operation.requestBody?.required) {
      broken.push(valid.map((request) => ({ ...request, body: undefined, broken: 'no body' })));
    }
    for (const [contentType, media] of Object.entries(operation.requestBody?.content ?? {})) {
      const schema = resolve(media.schema ?? {});
      if (!schema.properties) continue;
      const properties = schema.properties as Record<string, JsonSchema>;
      const withBody = (request: GeneratedRequest, change: (value: Record<string, unknown>) => void, what: string): GeneratedRequest => {
        const value = { ...(request.body?.value as Record<string, unknown> | undefined) };
        change(value);
        return { ...request, body: { contentType, value }, broken: `body ${what}` };
      };
      for (const name of (schema.required ?? []) as string[]) {
        broken.push(valid.map((request) => withBody(request, (value) => delete value[name], `${name} left out`)));
      }
      for (const [name, property] of Object.entries(properties)) {
        if (contentType === 'application/json') {
          const validate = validatorOf(property);
          const wrongType = [12345, FOREIGN_WORD, { [FOREIGN_WORD]: true }, [FOREIGN_WORD]].find((candidate) => !validate(candidate));
          if (wrongType !== undefined) {
            broken.push(valid.map((request) => withBody(request, (value) => (value[name] = wrongType), `${name}=${JSON.stringify(wrongType)}`)));
          }
        }
        // A NUL (and, in JSON, a lone surrogate) in any property: refused before any route reads it.
        const carrier = contentType === 'application/json' ? 'json' : contentType === 'application/x-www-form-urlencoded' ? 'form' : undefined;
        if (carrier) {
          broken.push(
            fc.tuple(valid, fc.constantFrom(...malformedTexts(carrier))).map(([request, text]) =>
              withBody(request, (value) => (value[name] = resolve(property).type === 'array' ? [text] : text), `${name}=${JSON.stringify(text)}`),
            ),
          );
        }
        const candidates = invalidTexts(property, resolve);
        if (candidates.length > 0 && contentType !== 'application/json') {
          broken.push(
            fc.tuple(valid, fc.constantFrom(...candidates)).map(([request, text]) => withBody(request, (value) => (value[name] = text), `${name}=${text}`)),
          );
        }
      }
    }
    return broken;
  }

  // ---- Sending them ----------------------------------------------------------------------------

  function asText(value: unknown): string {
    return typeof value === 'string' ? value : JSON.stringify(value);
  }

  function injectOptions(method: Method, template: string, operation: Operation, request: GeneratedRequest, withToken: boolean): InjectOptions {
    const path = template.replace(/\{([^}]+)\}/g, (_match, name: string) => encodeURIComponent(asText(request.path[name])));
    const search = new URLSearchParams();
    for (const parameter of operation.parameters ?? []) {
      if (parameter.in !== 'query' || !(parameter.name in request.query)) continue;
      const value = request.query[parameter.name];
      if (Array.isArray(value) && parameter.explode === false) search.append(parameter.name, value.map(asText).join(','));
      else if (Array.isArray(value)) for (const item of value) search.append(parameter.name, asText(item));
      else search.append(parameter.name, asText(value));
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      const textValue = asText(value);
      if (/^[\x20-\x7e]*$/.test(textValue)) headers[name] = textValue;
    }
    const schemes = new Set(securityOf(operation).flatMap((requirement) => Object.keys(requirement)));
    if (schemes.has('ApiKey')) headers['api-key'] = t.apiKey;
    if (withToken && schemes.has('Bearer')) headers.authorization = `Bearer ${customerToken}`;
    const query = search.toString();
    const options: InjectOptions = { method: method.toUpperCase() as InjectOptions['method'], url: query ? `${path}?${query}` : path, headers };
    if (request.body) {
      headers['content-type'] = request.body.contentType;
      const { value } = request.body;
      if (Buffer.isBuffer(value)) options.payload = value;
      else if (request.body.contentType === 'application/x-www-form-urlencoded') {
        options.payload = new URLSearchParams(Object.entries((value ?? {}) as Record<string, unknown>).map(([key, item]): [string, string] => [key, asText(item)])).toString();
      } else options.payload = JSON.stringify(value);
    }
    return options;
  }

  function documentedResponse(operation: Operation, status: number) {
    return operation.responses[String(status)] ?? operation.responses[`${Math.floor(status / 100)}XX`] ?? operation.responses.default;
  }

  function describeExchange(options: InjectOptions, response: LightMyRequestResponse, request: GeneratedRequest): string {
    const sent = `${options.method} ${options.url}${options.payload ? ` body=${String(options.payload).slice(0, 200)}` : ''}`;
    return `${sent}${request.broken ? ` (broken: ${request.broken})` : ''} -> ${response.statusCode} ${response.body.slice(0, 300)}`;
  }

  /** RFC 6749 §4.1.2.1: once the client and its redirect URI are known, a refusal is a redirect carrying `error`. */
  function isErrorRedirect(response: LightMyRequestResponse): boolean {
    const location = response.headers.location;
    return response.statusCode >= 300 && response.statusCode < 400 && typeof location === 'string' && /[?#&]error=/.test(location);
  }

  /** The named code of an error body: the API's `code`, or RFC 6749's `error`. */
  function errorCodeOf(body: unknown): string | undefined {
    if (body === null || typeof body !== 'object') return undefined;
    const { code, error } = body as { code?: unknown; error?: unknown };
    return typeof code === 'string' ? code : typeof error === 'string' ? error : undefined;
  }

  function checkAnswer(key: string, operation: Operation, options: InjectOptions, response: LightMyRequestResponse, request: GeneratedRequest): void {
    const status = response.statusCode;
    const what = () => `${key}: ${describeExchange(options, response, request)}`;
    if (status >= 500 && !(status === 503 && errorCodeOf(response.json()) === ENGINE_NOT_CONFIGURED)) throw new Error(`5xx — ${what()}`);
    const documented = documentedResponse(operation, status);
    if (!documented) throw new Error(`status ${status} is not documented — ${what()}`);

    for (const header of Object.keys(documented.headers ?? {})) {
      if (response.headers[header.toLowerCase()] === undefined) throw new Error(`no ${header} header, which the document promises — ${what()}`);
    }
    const mediaType = String(response.headers['content-type'] ?? '').split(';')[0]!.trim();
    const hasBody = response.rawPayload.length > 0 && options.method !== 'HEAD';
    let body: unknown;
    if (hasBody) {
      const content = documented.content ?? {};
      if (!(mediaType in content)) throw new Error(`answered ${mediaType || 'a body'}, documented ${Object.keys(content).join(', ') || 'none'} — ${what()}`);
      if (mediaType === 'application/json') {
        body = response.json();
        const schema = content[mediaType]?.schema;
        if (schema) {
          const validate = validatorOf(schema);
          if (!validate(body)) throw new Error(`body does not match the documented schema: ${ajv.errorsText(validate.errors)} — ${what()}`);
        }
      }
    }
    if (status >= 400 && status < 500 && mediaType === 'application/json') {
      const schema = resolve(documented.content?.[mediaType]?.schema ?? {});
      const required = (schema.required ?? []) as string[];
      const isApiError = required.includes('message') && required.includes('code');
      const isOAuthError = required.includes('error');
      if (!isApiError && !isOAuthError) throw new Error(`a ${status} documented without {message, code} or RFC 6749's {error} — ${what()}`);
    }
    if (request.broken === undefined && status === 400) {
      const code = mediaType === 'text/html' ? null : errorCodeOf(body);
      const { message: apiMessage, error_description: oauthMessage } = (body ?? {}) as { message?: unknown; error_description?: unknown };
      const message = mediaType === 'text/html' ? response.body : String(apiMessage ?? oauthMessage ?? '');
      if (!RULES_BEYOND_THE_SCHEMA[key]?.some((rule) => rule.code === code && rule.message.test(message))) {
        throw new Error(`a request valid by the document was refused (the document is looser than the server) — ${what()}`);
      }
    }
    if (request.broken !== undefined && !(status >= 400 && status < 500) && !isErrorRedirect(response)) {
      throw new Error(`a request the document forbids was answered ${status} (the document is stricter than the server) — ${what()}`);
    }
  }

  // ---- The operations ----------------------------------------------------------------------------

  const operations = Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({ key: `${method.toUpperCase()} ${path}`, method, path, operation: item[method]! })),
  );
  let cases = 0;
  /** How often each operation answered each status, valid and broken apart: FUZZ_STATUSES=1 prints it (is the fuzzer reaching the 200s?). */
  const answers = new Map<string, number>();

  afterAll(async () => {
    if (process.env.FUZZ_STATUSES) console.log([...answers].map(([answer, count]) => `${answer} ×${count}`).join('\n'));
    console.log(`conformance (${store.name}): ${operations.length} operations, ${cases} cases, seed ${SEED}`);
    await t.close();
  });

  describe(`the OpenAPI document and the server agree (${store.name})`, () => {
    operations.forEach(({ key, method, path, operation }, index) => {
      it(key, async () => {
        const send = async (request: GeneratedRequest) => {
          for (const withToken of [true, false]) {
            const options = injectOptions(method, path, operation, request, withToken);
            const response = await t.app.inject(options);
            cases += 1;
            const answer = `${key} ${request.broken ? 'broken' : 'valid'} ${response.statusCode}`;
            answers.set(answer, (answers.get(answer) ?? 0) + 1);
            checkAnswer(key, operation, options, response, request);
          }
        };
        await fc.assert(fc.asyncProperty(requestArbitrary(operation), send), { seed: SEED + index, numRuns: RUNS });
        const broken = brokenArbitraries(operation);
        if (broken.length > 0) {
          await fc.assert(fc.asyncProperty(fc.oneof(...broken), send), { seed: SEED + index + 100_000, numRuns: Math.ceil(RUNS / 2) });
        }
        expect(cases).toBeGreaterThan(0);
      }, 300_000);
    });
  });
}
