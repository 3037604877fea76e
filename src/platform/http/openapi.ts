import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { ErrorBody } from './schema-types.js';

/*
 * The OpenAPI 3.1 document, generated from the route schemas: a route's schema is what it
 * validates with and what the document states (the parameter kinds of parameters.ts), one schema
 * for both on every route (test/platform/parameters.test.ts holds every route to it). The
 * conformance fuzzer (test/conformance) drives the server with requests generated from this
 * document and holds the two together.
 */

/** The error shape of RFC 6749 §5.2, which the OAuth endpoints answer with. */
export const OAuthErrorBody = Type.Object(
  {
    error: Type.String({
      enum: ['invalid_request', 'invalid_client', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope', 'server_error', 'temporarily_unavailable'],
    }),
    error_description: Type.Optional(Type.String()),
  },
  { $id: 'OAuthError', description: 'RFC 6749 §5.2: a named error and a description for people.' },
);

/** A redirect answer: no body, the target in Location. */
export const Redirect = (description: string) => ({
  description,
  headers: { location: { type: 'string', format: 'uri-reference', description: 'Where to go' } },
  type: 'null',
});

const errorResponse = (description: string) => ({ ...ErrorBody, description });

/** Answers every /v3 route may give, whatever it is: no key, a bad token, too many requests. */
const API_ANSWERS = {
  401: errorResponse('Unauthorized: the bearer token is malformed, unknown, expired or revoked, or one is required'),
  // The spec's throttle answers 403 (X-Error-Detail names the limit), never 429.
  403: errorResponse(
    'Account Inactive: the Api-Key header is missing, unknown or disabled (X-Error-Detail says which); over the key’s ' +
      'per-second or per-day limit (AccountOverQueriesPerSecondLimit, AccountOverRateLimit, with Retry-After); or the token may not do this',
  ),
};
const INPUT_ANSWERS = { 400: errorResponse('A parameter is missing, unknown or has a value that is not allowed: the message names it') };
const BODY_ANSWERS = {
  413: errorResponse('The request body is too large'),
  415: errorResponse('The request body has a media type this operation does not take'),
};

interface RouteSchema extends FastifySchema {
  hide?: boolean;
  tags?: readonly string[];
  summary?: string;
  description?: string;
  security?: ReadonlyArray<Record<string, readonly string[]>>;
}

/** The schema the document is built from: the route's own, with the answers every API route shares. */
function documentSchema(schema: RouteSchema | undefined, url: string): RouteSchema | undefined {
  if (!schema) return schema;
  const merged: RouteSchema = { ...schema };
  if (!url.startsWith('/v3/')) return merged;
  const takesInput = Boolean(merged.querystring ?? merged.params ?? merged.body);
  merged.response = {
    ...API_ANSWERS,
    ...(takesInput ? INPUT_ANSWERS : {}),
    ...(merged.body ? BODY_ANSWERS : {}),
    ...(merged.response as object),
  };
  return merged;
}

type OpenApiParameter = { in?: string; schema?: { type?: unknown; deprecated?: boolean }; style?: string; explode?: boolean; deprecated?: boolean };

/** Query lists are comma-separated (`style: form, explode: false`); a deprecated spelling says so on the parameter. */
function finishParameters(document: { paths?: Record<string, Record<string, { parameters?: OpenApiParameter[] }>> }): void {
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item)) {
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in === 'query' && parameter.schema?.type === 'array') {
          parameter.style = 'form';
          parameter.explode = false;
        }
        if (parameter.schema?.deprecated) parameter.deprecated = true;
      }
    }
  }
}

/** A route as the document sees it: its method, its URL and the one schema it validates with. */
export interface RouteContract {
  readonly method: string | readonly string[];
  readonly url: string;
  readonly schema: RouteSchema | undefined;
}

const CONTRACTS = new WeakMap<FastifyInstance, RouteContract[]>();

/** Every route registered after `registerOpenApi`, with its schema: what the document is built from. */
export function routeContracts(app: FastifyInstance): readonly RouteContract[] {
  return CONTRACTS.get(app) ?? [];
}

/**
 * The OpenAPI 3.1 document, generated from the route schemas: registered before any route so
 * that every route is collected. The document is served by `registerOpenApiDocument`.
 */
export async function registerOpenApi(app: FastifyInstance, options: { publicUrl: string }): Promise<void> {
  const contracts: RouteContract[] = [];
  CONTRACTS.set(app, contracts);
  app.addHook('onRoute', (route) => {
    contracts.push({ method: route.method, url: route.url, schema: route.schema as RouteSchema | undefined });
  });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Stockroom — Stock Media Licensing API v3',
        version: '3',
        description:
          'Every /v3 request needs the `Api-Key` header. Fields that need a customer (`download_sizes`, `downloads`, ' +
          '`largest_downloads`) also need `Authorization: Bearer <token>`. Comma-separated lists may also be sent as ' +
          'repeated parameters; the values of word lists and yes/no parameters are also taken in other letter cases.',
      },
      servers: [{ url: options.publicUrl }],
      components: {
        securitySchemes: {
          ApiKey: { type: 'apiKey', in: 'header', name: 'Api-Key' },
          Bearer: { type: 'http', scheme: 'bearer' },
        },
      },
      // The key alone, or the key with a customer's token (some fields and results depend on it).
      security: [{ ApiKey: [] }, { ApiKey: [], Bearer: [] }],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    transform: ({ schema, url }) => ({ schema: documentSchema(schema as RouteSchema | undefined, url) as FastifySchema, url }),
    transformObject: (documentObject) => {
      const document = 'openapiObject' in documentObject ? documentObject.openapiObject : documentObject.swaggerObject;
      finishParameters(document as Parameters<typeof finishParameters>[0]);
      return document;
    },
  });
  app.addSchema(ErrorBody);
  app.addSchema(OAuthErrorBody);
}

/** `/v3/openapi.json` (open to every origin, no key: browser tools read it) and the interactive docs at `/docs`. */
export async function registerOpenApiDocument(app: FastifyInstance, open: FastifyInstance): Promise<void> {
  open.get('/v3/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

/** Where Swagger UI sends the browser back after an OAuth2 sign-in from the docs page (its own `oauth2RedirectUrl`). */
export function docsRedirectUri(publicUrl: string): string {
  return `${publicUrl}/docs/static/oauth2-redirect.html`;
}

interface DocsPageOptions {
  publicUrl: string;
  authUrl: string;
  /** The docs page's own OAuth client, registered for docsRedirectUri; absent: the Authorize dialog asks for one. */
  oauthClientId?: string | undefined;
}

/**
 * A Swagger UI plugin: the address under the title is the document's own (`documentAddress` of
 * the UI's config), not `/docs/json`, which the page loads only to add its guide. Sent to the
 * browser as its source text, so it refers to nothing outside itself.
 */
function showDocumentAddress() {
  return {
    statePlugins: {
      spec: {
        wrapSelectors: {
          url: (_original: unknown, system: { getConfigs: () => { documentAddress: string } }) => () => system.getConfigs().documentAddress,
        },
      },
    },
  };
}

/** Swagger UI's own plugin that loads the document, which a config's `plugins` would otherwise replace. */
function downloadUrl(system: unknown) {
  return (globalThis as unknown as { SwaggerUIBundle: { plugins: { DownloadUrl: (system: unknown) => unknown } } }).SwaggerUIBundle.plugins.DownloadUrl(system);
}

/**
 * The interactive docs at `/docs`. Like every other page of the server it may not be framed
 * (no clickjacking of its Authorize dialog): its own context adds the frame headers to all it sends.
 */
export async function registerDocsPage(app: FastifyInstance, options: DocsPageOptions): Promise<void> {
  await app.register(async (docs) => {
    docs.addHook('onSend', async (_request, reply) => {
      reply.header('x-frame-options', 'DENY');
      reply.header('content-security-policy', "frame-ancestors 'none'");
    });
    await docs.register(swaggerUi, {
      routePrefix: '/docs',
      theme: { title: 'Stockroom API — docs' },
      // The page's own copy names the document by its address, /v3/openapi.json (the same document).
      transformSpecification: (document) => withDocsPageGuide(document as Record<string, unknown>, options),
      // BaseLayout: no top bar, whose address field would name /docs/json; under the title the
      // document's own address (showDocumentAddress).
      uiConfig: {
        docExpansion: 'list',
        deepLinking: true,
        layout: 'BaseLayout',
        documentAddress: `${options.publicUrl}/v3/openapi.json`,
        plugins: [downloadUrl, showDocumentAddress],
      } as Record<string, unknown>,
      // Authorize → OAuth2: the authorization code grant with PKCE against this server, as the
      // docs page's own client (its redirect is this page's), prefilled.
      initOAuth: {
        usePkceWithAuthorizationCodeGrant: true,
        appName: 'Stockroom API docs',
        ...(options.oauthClientId !== undefined ? { clientId: options.oauthClientId } : {}),
      },
    });
  });
}

/**
 * What the docs page shows on top of the document: where to start (a key, a token, a first
 * search, a download), the document's own address, and an OAuth2 scheme for the Authorize
 * dialog (the authorization code grant with PKCE, this server's endpoints).
 */
function withDocsPageGuide(document: Record<string, unknown>, options: DocsPageOptions): Record<string, unknown> {
  const info = (document.info ?? {}) as Record<string, unknown>;
  const components = (document.components ?? {}) as { securitySchemes?: Record<string, unknown> };
  const api = `${options.publicUrl}/v3`;
  const guide = [
    '## Getting started',
    '',
    `1. **A key.** Every request sends \`Api-Key\`. A running server prints its demo key at start; an operator makes one with \`stockroom admin client create --name "My app"\` (it prints the key and the secret once).`,
    `2. **A token**, for what needs a customer (downloads, \`download_sizes\`): \`curl -u KEY:SECRET -d grant_type=password -d username=U -d password=P ${options.authUrl}/oauth2/token\`, then send \`Authorization: Bearer <access_token>\`. Or press **Authorize** here and choose OAuth2: the authorization code grant with PKCE, as this page's own client (prefilled), signing in on this server.`,
    `3. **A first search:** \`curl -H 'Api-Key: KEY' '${api}/search/images/creative?phrase=harbour&fields=id,title,thumb'\`.`,
    `4. **A download:** \`curl -X POST -H 'Api-Key: KEY' -H 'Authorization: Bearer TOKEN' '${api}/downloads/images/ID'\` answers the file's signed \`uri\`.`,
    '',
    `This document: [${api}/openapi.json](${api}/openapi.json).`,
  ].join('\n');
  return {
    ...document,
    info: { ...info, title: 'Stockroom — Stock Media Licensing API v3', description: `${String(info.description ?? '')}\n\n${guide}` },
    components: {
      ...components,
      securitySchemes: {
        ...components.securitySchemes,
        OAuth2: {
          type: 'oauth2',
          description: 'A customer’s token: the authorization code grant with PKCE (S256) against this server. The client_id is this page’s own client (prefilled), registered for this page’s redirect.',
          flows: { authorizationCode: { authorizationUrl: `${options.authUrl}/oauth2/auth`, tokenUrl: `${options.authUrl}/oauth2/token`, scopes: {} } },
        },
      },
    },
  };
}
