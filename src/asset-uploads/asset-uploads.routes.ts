import { createHash, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../platform/http/errors.js';
import { escapeHtml } from '../platform/http/escape-html.js';
import { html } from '../web/web-html.js';
import type { TypeBoxTypeProvider } from '../platform/http/parameters.js';
import { tooManyUploadIds, uploadCsrfCheckFailed, uploadNotFound, uploadSignInRequired } from './asset-uploads.errors.js';
import { uploadPageMain } from './asset-uploads.pages.js';
import { MAX_RESULT_IDS, ResultsQuery, UploadParams } from './asset-uploads.schemas.js';
import type { AssetUploadsService, UploadOutcome, Uploader } from './asset-uploads.service.js';
import { UPLOADS_PATH, type UploadEndpoint } from './upload-endpoint.js';
import { isUploadId } from './upload-staging.js';
import type { StaffPages } from '../back-office/back-office.pages.js';

/** A signed-in person as the back office knows them, with their session's CSRF token. */
export interface StaffSession {
  uploader: Uploader;
  /** their name, shown in the back office's header */
  username: string;
  csrfToken: string;
}

/** How the upload routes learn who is behind a request: the back office's sign-in (the catalogue browser's session). */
export interface StaffGate {
  /** The signed-in person behind a request and their session's CSRF token; undefined when signed out. */
  sessionOf(request: FastifyRequest): Promise<StaffSession | undefined>;
  /** Where a signed-out person signs in and comes back to `returnTo`. */
  signInPath(returnTo: string): string;
  /** Where an asset's edit page is, `{id}` standing for its id. */
  readonly editPath: string;
}

export interface AssetUploadsRoutesOptions {
  service: AssetUploadsService;
  endpoint: UploadEndpoint;
  gate: StaffGate;
  /** The page's policy: the back office's strict Content-Security-Policy and friends. */
  pageHeaders: Record<string, string>;
  /** The back office's frame (header, sections, stylesheet) around the page. */
  staffPages: StaffPages;
}

/** The upload page's link in the back office's header, for editors and admins (after the catalogue, before the applications). */
export const UPLOADS_SECTION = { key: 'uploads', label: 'Upload', href: '/admin/uploads', role: 'editor', order: 15 } as const;

/** tus's PATCH body (and a creation's, with creation-with-upload). */
const TUS_BODY = 'application/offset+octet-stream';
const IMMUTABLE = 'public, max-age=31536000, immutable';
const hidden = { schema: { hide: true } };

interface StaticFile {
  body: Buffer;
  contentType: string;
  /** Its address with the content's version. */
  path: string;
}

function staticFile(name: string, body: Buffer, contentType: string): StaticFile {
  const version = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { body, contentType, path: `/admin/uploads/static/${name}?v=${version}` };
}

/** The page's files: its stylesheet and script, and tus's browser client as its package ships it. */
function pageFiles(): { stylesheet: StaticFile; script: StaticFile; tusClient: StaticFile } {
  const own = (name: string) => fs.readFileSync(new URL(`./static/${name}`, import.meta.url));
  const tusClient = fs.readFileSync(createRequire(import.meta.url).resolve('tus-js-client/dist/tus.min.js'));
  return {
    stylesheet: staticFile('uploads.css', own('uploads.css'), 'text/css; charset=utf-8'),
    script: staticFile('uploads.js', own('uploads.js'), 'text/javascript; charset=utf-8'),
    tusClient: staticFile('tus.min.js', tusClient, 'text/javascript; charset=utf-8'),
  };
}

/** Equal tokens, compared in constant time (as digests, so the lengths do not show either). */
function sameToken(given: string, expected: string): boolean {
  const left = createHash('sha256').update(given).digest();
  const right = createHash('sha256').update(expected).digest();
  return given !== '' && timingSafeEqual(left, right);
}

/**
 * The back office's uploads at /admin/uploads: the page, tus's endpoint under `files` (the
 * requests handed to tus whole, their bodies streamed, never buffered), what came of each
 * upload under `results`, and the page's static files.
 */
export async function assetUploadsRoutes(app: FastifyInstance, options: AssetUploadsRoutesOptions): Promise<void> {
  const { service, endpoint, gate, pageHeaders, staffPages } = options;
  const files = pageFiles();
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  // The body is tus's to read from the raw request, as it arrives: Fastify leaves it unread.
  app.addContentTypeParser(TUS_BODY, (_request, _payload, done) => done(null, undefined));
  app.setErrorHandler(async (error, request, reply) => {
    const status = error instanceof ApiError ? error.statusCode : ((error as { statusCode?: number }).statusCode ?? 500);
    if (status >= 500) request.log.error({ err: error }, 'an upload request failed');
    const message = status < 500 && error instanceof Error ? error.message : 'The upload could not be handled. Try again in a moment.';
    const code = error instanceof ApiError ? error.code : status < 500 ? 'InvalidRequest' : 'InternalError';
    if (request.method === 'GET' && request.url.split('?')[0] === '/admin/uploads') {
      return reply.code(status).headers(pageHeaders).send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Upload — refused</title></head><body><main><h1>${status}</h1><p>${escapeHtml(message)}</p></main></body></html>`);
    }
    return reply.code(status).header('cache-control', 'no-store').send({ code, message });
  });

  /** The signed-in editor or admin behind a request; 401 signed out, 403 for anyone else. */
  const uploaderOf = async (request: FastifyRequest, { stateChanging }: { stateChanging: boolean }): Promise<Uploader> => {
    const session = await gate.sessionOf(request);
    if (!session) throw uploadSignInRequired();
    service.requireUploader(session.uploader);
    const given = request.headers['x-csrf-token'];
    if (stateChanging && (typeof given !== 'string' || !sameToken(given, session.csrfToken))) throw uploadCsrfCheckFailed();
    return session.uploader;
  };

  /** Hands a checked request to tus: from here on tus answers on the raw response. */
  const toTus = async (request: FastifyRequest, reply: FastifyReply, uploader: Uploader) => {
    reply.hijack();
    await endpoint.handle(request.raw, reply.raw, uploader);
  };

  for (const file of Object.values(files)) {
    app.get(file.path.split('?')[0]!, hidden, async (_request, reply) =>
      reply.headers({ 'content-type': file.contentType, 'cache-control': IMMUTABLE, 'x-content-type-options': 'nosniff' }).send(file.body),
    );
  }

  app.get('/admin/uploads', hidden, async (request, reply) => {
    const session = await gate.sessionOf(request);
    if (!session) return reply.header('cache-control', 'no-store').redirect(gate.signInPath('/admin/uploads'), 303);
    const frame = (title: string, files?: { stylesheets: string[]; scripts: string[] }) => ({
      actor: { id: session.uploader.userId, username: session.username, role: session.uploader.role },
      csrfToken: session.csrfToken,
      title,
      section: UPLOADS_SECTION.key,
      path: request.url,
      ...(files ? { files } : {}),
    });
    let recent: UploadOutcome[];
    try {
      recent = await service.recent(session.uploader);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      // A customer: the back office's refusal page, in its frame (without its sections).
      const refusal = html`<h1>Not allowed</h1><p class="problem" role="alert">${error.message}</p><p class="code">Code: <code>${error.code}</code></p><p><a href="/">Back to the catalogue</a></p>`;
      return reply.code(error.statusCode).headers(pageHeaders).send(staffPages.page(frame('Not allowed'), refusal));
    }
    const main = uploadPageMain({ csrfToken: session.csrfToken, maxBytes: service.maxBytes, recent, endpoint: UPLOADS_PATH, editPath: gate.editPath });
    const page = staffPages.page(frame('Upload', { stylesheets: [files.stylesheet.path], scripts: [files.tusClient.path, files.script.path] }), main);
    return reply.code(200).headers(pageHeaders).send(page);
  });

  api.get('/admin/uploads/results', { schema: { hide: true, querystring: ResultsQuery } }, async (request, reply) => {
    const uploader = await uploaderOf(request, { stateChanging: false });
    const ids = request.query.ids.split(',').map((id) => id.trim()).filter(isUploadId);
    if (ids.length > MAX_RESULT_IDS) throw tooManyUploadIds(MAX_RESULT_IDS);
    return reply.header('cache-control', 'no-store').send({ uploads: await service.outcomes(uploader, ids) });
  });

  // Creation (tus's creation extension): the file's name and size are checked in tus's hook.
  app.post(UPLOADS_PATH, hidden, async (request, reply) => toTus(request, reply, await uploaderOf(request, { stateChanging: true })));

  /** An upload's own requests: the person's own upload only (404 for another's, as for none). */
  const ownUpload = async (request: FastifyRequest, id: string, stateChanging: boolean): Promise<Uploader> => {
    const uploader = await uploaderOf(request, { stateChanging });
    if (!isUploadId(id)) throw uploadNotFound();
    if (request.method === 'PATCH') await service.receiving(uploader, id);
    else await service.owned(uploader, id);
    return uploader;
  };
  const uploadRoute = { schema: { hide: true, params: UploadParams } };
  api.head(`${UPLOADS_PATH}/:id`, uploadRoute, async (request, reply) => toTus(request, reply, await ownUpload(request, request.params.id, false)));
  api.patch(`${UPLOADS_PATH}/:id`, uploadRoute, async (request, reply) => toTus(request, reply, await ownUpload(request, request.params.id, true)));
  api.delete(`${UPLOADS_PATH}/:id`, uploadRoute, async (request, reply) => toTus(request, reply, await ownUpload(request, request.params.id, true)));
}
