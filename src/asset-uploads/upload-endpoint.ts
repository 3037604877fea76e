import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server, ServerOptions } from '@tus/server';
import type { Logger } from 'pino';
import type { AssetUploadsService, Uploader } from './asset-uploads.service.js';
import { isUploadId, newUploadId, type UploadStaging } from './upload-staging.js';

/** Where the tus endpoint lives: uploads are created here, and each is `<path>/<id>`. */
export const UPLOADS_PATH = '/admin/uploads/files';

/** The request as tus's hooks see it (srvx's request over Node's), reduced to what they read. */
type TusRequest = Parameters<NonNullable<ServerOptions['onUploadCreate']>>[0];

/** The Node request behind a tus hook's request: the key its uploader was filed under. */
function nodeRequestOf(request: TusRequest): IncomingMessage | undefined {
  return (request as unknown as { runtime?: { node?: { req?: IncomingMessage } } }).runtime?.node?.req;
}

/**
 * The tus 1.0 server of the back office (creation, PATCH, HEAD, termination), over the staging
 * store. The Fastify route checks the person first and files them here under the raw request,
 * so the creation hook knows whose the upload is.
 */
export class UploadEndpoint {
  private tus: Promise<Server> | undefined;
  private readonly uploaders = new WeakMap<IncomingMessage, Uploader>();

  constructor(
    private readonly service: AssetUploadsService,
    private readonly staging: UploadStaging,
    private readonly log: Logger,
  ) {}

  /**
   * The tus server, made at the first upload request (its store makes the staging then). tus and
   * its stores are loaded then too, not at start: a node that never takes an upload (a search
   * node) does not hold them. The first upload request of a process waits for the load.
   */
  private server(): Promise<Server> {
    if (this.tus === undefined) {
      const made = this.makeServer(this.service, this.staging, this.log);
      // A failed load, or a staging that cannot be made, is tried again by the next request.
      made.catch(() => {
        if (this.tus === made) this.tus = undefined;
      });
      this.tus = made;
    }
    return this.tus;
  }

  private async makeServer(service: AssetUploadsService, staging: UploadStaging, log: Logger): Promise<Server> {
    const { Server, MemoryLocker } = await import('@tus/server');
    const datastore = await staging.datastore();
    const uploaderOf = (request: TusRequest): Uploader => {
      const node = nodeRequestOf(request);
      const uploader = node === undefined ? undefined : this.uploaders.get(node);
      // The route files every request before tus sees it: a request without one is a bug, refused.
      if (uploader === undefined) throw new Error('an upload request reached tus without its checked uploader');
      return uploader;
    };
    const server = new Server({
      path: UPLOADS_PATH,
      datastore,
      // A PATCH holds its upload's lock on this node; another node resumes from what is stored.
      locker: new MemoryLocker(),
      maxSize: service.maxBytes,
      // The page is on this site: no other origin is let in.
      allowedOrigins: () => false,
      namingFunction: () => staging.storeId(newUploadId()),
      // Relative: the client resolves it against the endpoint it used, whatever host or proxy is in front.
      generateUrl: (_request, { path, id }) => `${path}/${staging.uploadIdOf(id)}`,
      getFileIdFromRequest: (_request, lastPath) => (lastPath !== undefined && isUploadId(lastPath) ? staging.storeId(lastPath) : undefined),
      async onUploadCreate(request, upload) {
        const fileName = upload.metadata?.filename;
        const refusal = service.refusalOfNewUpload(uploaderOf(request), fileName, upload.size);
        if (refusal !== undefined) throw refusal;
        await service.created(uploaderOf(request), staging.uploadIdOf(upload.id), fileName!.trim(), upload.size!);
        return {};
      },
      async onUploadFinish(_request, upload) {
        await service.finished(staging.uploadIdOf(upload.id));
        return {};
      },
      onResponseError(_request, error) {
        if (!('status_code' in error)) log.error({ err: error }, 'an upload request failed');
        return undefined;
      },
    });
    server.on('POST_TERMINATE', (_request: TusRequest, _response: Response, id: string) => {
      void service.cancelled(staging.uploadIdOf(id)).catch((error: unknown) => log.warn({ err: error }, 'a cancelled upload could not be recorded'));
    });
    return server;
  }

  /** Hands a checked request to tus, which answers it on the raw response. */
  async handle(raw: IncomingMessage, response: ServerResponse, uploader: Uploader): Promise<void> {
    this.uploaders.set(raw, uploader);
    await (await this.server()).handle(raw, response);
  }
}
