import type { Logger } from 'pino';
import { assetTypeOfFileName, fileFailureReason, ingestOneFile, SkippedFileError } from '../catalog/ingest/folder-ingest.js';
import type { IngestService, RecordOutcome } from '../catalog/ingest/ingest.service.js';
import { isStoreUnavailable } from '../platform/http/error-handler.js';
import type { JobHandler, JobLease, JobRunner, JobSettings, RegisteredJobKind } from '../platform/jobs/job-runner.js';
import type { LeaseQueue } from '../platform/jobs/lease-queue.js';
import type { AssetUploadRow, AssetUploadsRepository } from './asset-uploads.repository.js';
import type { UploadStaging } from './upload-staging.js';

/** The name upload ingests are registered under with the node's job runner. */
export const UPLOAD_INGEST = 'upload-ingest';

export interface UploadIngestsOptions {
  runner: JobRunner;
  repository: AssetUploadsRepository;
  staging: UploadStaging;
  /** The one ingest of the catalogue, as `stockroom ingest` runs it. */
  ingest: IngestService;
  /** How this node runs the ingests: how many at once (0: none; another node does), the lease, the poll. */
  job: JobSettings;
  log: Logger;
  now: () => Date;
}

/**
 * The ingest of a finished upload, as a job any node may run: the staged file is ingested
 * exactly as `stockroom ingest ./folder` ingests a file of its folder (folder-ingest.ts's
 * ingestOneFile: its embedded metadata, the same rules and messages, its renditions, the
 * original streamed into the blob store), and what came of it is recorded: the asset, or the
 * problem in ingest's words. The staged bytes are removed either way. A node that stops in the
 * middle leaves the job and its staged bytes to the next node.
 */
export class UploadIngests implements JobHandler<'asset_uploads'> {
  readonly queue: LeaseQueue<'asset_uploads'>;
  private readonly kind: RegisteredJobKind;

  constructor(private readonly options: UploadIngestsOptions) {
    this.queue = options.repository.queue;
    this.kind = options.runner.register(UPLOAD_INGEST, this, options.job);
  }

  /** Looks for work now (an upload just finished here). */
  wake(): void {
    this.kind.wake();
  }

  async run(upload: AssetUploadRow, lease: JobLease): Promise<void> {
    const { staging, ingest } = this.options;
    let outcome: RecordOutcome | undefined;
    let problem: string | undefined;
    await staging.withLocalFile(upload.id, async (file) => {
      try {
        // A new asset waits for review as a draft; a file already in the catalogue (the same bytes, the same id) keeps its state.
        outcome = await ingestOneFile(ingest, { name: upload.file_name, path: file }, { publicationOfNew: 'draft' });
      } catch (error) {
        // The store gone is nobody's fault: the job runs again, its staged bytes kept for it.
        if (isStoreUnavailable(error)) throw error;
        // Worded while the file is still there: the words may depend on its first bytes.
        problem = error instanceof SkippedFileError ? error.message : await fileFailureReason({ name: upload.file_name, path: file }, error);
      }
    });
    const now = this.options.now().toISOString();
    const recorded = outcome
      ? await this.queue.finish(upload, lease.node, { status: 'done', asset_id: outcome.id, asset_type: assetTypeOfFileName(upload.file_name) ?? 'image', finished_at: now })
      : await this.queue.finish(upload, lease.node, { status: 'refused', problem: problem ?? 'it could not be ingested', finished_at: now });
    if (recorded) await this.removeStaged(upload);
  }

  async fail(upload: AssetUploadRow, error: unknown, lease: JobLease): Promise<void> {
    const reason = error instanceof Error ? error.message : String(error);
    const recorded = await this.queue.finish(upload, lease.node, {
      status: 'refused',
      problem: `it could not be ingested: ${reason}`,
      finished_at: this.options.now().toISOString(),
    });
    this.options.log.warn({ err: error, upload: upload.id }, 'an upload could not be ingested');
    if (recorded) await this.removeStaged(upload);
  }

  private async removeStaged(upload: AssetUploadRow): Promise<void> {
    try {
      await this.options.staging.remove(upload.id);
    } catch (error) {
      this.options.log.warn({ err: error, upload: upload.id }, 'the staged bytes of an ingested upload could not be removed');
    }
  }
}
