import type { Logger } from 'pino';
import { uningestibleFileName } from '../catalog/ingest/folder-ingest.js';
import { mayAct } from '../back-office/staff-policy.js';
import type { StaffRole } from '../oauth/users.service.js';
import type { Clock } from '../platform/platform.js';
import { fileNameMissing, fileTooLarge, lengthRequired, notAnAssetFile, uploadNotAllowed, uploadNotFound, type TusRefusal } from './asset-uploads.errors.js';
import type { AssetUploadRow, AssetUploadsRepository } from './asset-uploads.repository.js';
import type { UploadStaging } from './upload-staging.js';


/** Who sends an upload: a signed-in member of staff. */
export interface Uploader {
  userId: number;
  /** The role as the back office read it; null for a customer. */
  role: StaffRole | null;
}

/** What came of an upload, as the page shows it beside the file. */
export interface UploadOutcome {
  id: string;
  fileName: string;
  bytes: number;
  status: 'uploading' | 'waiting' | 'ingesting' | 'done' | 'refused' | 'cancelled' | 'abandoned';
  /** The new or updated asset (done). */
  asset?: { id: string; type: 'image' | 'video' };
  /** Why ingest refused the file, in ingest's words (refused). */
  problem?: string;
  createdAt: string;
}

export interface AssetUploadsServiceOptions {
  repository: AssetUploadsRepository;
  staging: UploadStaging;
  clock: Clock;
  log: Logger;
  maxBytes: number;
  idleMs: number;
  /** Looks for ingests to run now (an upload just finished on this node). */
  wakeIngests: () => void;
}

/** Abandoned uploads removed per sweep, so that one sweep stays short. */
const SWEEP_BATCH = 100;

/**
 * The rules of the back office's uploads, with no HTTP in them: who may upload (an editor or
 * an admin, checked on every action), what may be uploaded (what ingest takes, up to the
 * configured size), whose an upload is, and what became of it. The bytes go through tus
 * (asset-uploads.routes.ts); the ingest of a finished upload is a job (upload-ingests.ts).
 */
export class AssetUploadsService {
  constructor(private readonly options: AssetUploadsServiceOptions) {}

  get maxBytes(): number {
    return this.options.maxBytes;
  }

  /** Refuses anyone but an editor or an admin. */
  requireUploader(actor: Uploader): void {
    if (!mayAct(actor.role, 'editor')) throw uploadNotAllowed();
  }

  /** Why a new upload is refused (ingest's words for a file it does not take), or undefined when it may begin. */
  refusalOfNewUpload(actor: Uploader, fileName: string | null | undefined, size: number | undefined): TusRefusal | undefined {
    this.requireUploader(actor);
    if (fileName === undefined || fileName === null || fileName.trim() === '') return fileNameMissing();
    const problem = uningestibleFileName(fileName);
    if (problem !== undefined) return notAnAssetFile(fileName, problem);
    if (size === undefined) return lengthRequired();
    if (size > this.options.maxBytes) return fileTooLarge(fileName, this.options.maxBytes);
    return undefined;
  }

  /** A new upload, the uploader's. */
  async created(actor: Uploader, uploadId: string, fileName: string, size: number): Promise<void> {
    this.requireUploader(actor);
    await this.options.repository.insert({ id: uploadId, user_id: actor.userId, file_name: fileName, byte_size: size, now: this.options.clock() });
  }

  /** The uploader's own upload; 404 for another's (staff see only the uploads they sent). */
  async owned(actor: Uploader, uploadId: string): Promise<AssetUploadRow> {
    this.requireUploader(actor);
    const row = await this.options.repository.find(uploadId);
    if (!row || row.user_id !== actor.userId) throw uploadNotFound();
    return row;
  }

  /** Bytes are coming in: the upload is not idle. */
  async receiving(actor: Uploader, uploadId: string): Promise<void> {
    await this.owned(actor, uploadId);
    await this.options.repository.touch(uploadId, this.options.clock());
  }

  /** Every byte is in: the file's ingest is queued. */
  async finished(uploadId: string): Promise<void> {
    if (await this.options.repository.markFinished(uploadId, this.options.clock())) this.options.wakeIngests();
  }

  /** The uploader stopped the upload (tus's termination): its staged bytes are gone already. */
  async cancelled(uploadId: string): Promise<void> {
    await this.options.repository.end(uploadId, 'cancelled', this.options.clock());
  }

  /** What came of the uploader's uploads of these ids (others' are left out). */
  async outcomes(actor: Uploader, ids: readonly string[]): Promise<UploadOutcome[]> {
    this.requireUploader(actor);
    return (await this.options.repository.findMany(actor.userId, ids)).map(outcomeOf);
  }

  /** The uploader's latest uploads, newest first. */
  async recent(actor: Uploader, limit = 50): Promise<UploadOutcome[]> {
    this.requireUploader(actor);
    return (await this.options.repository.listOf(actor.userId, limit)).map(outcomeOf);
  }

  /**
   * Removes the uploads that received nothing for longer than STOCKROOM_ASSET_UPLOAD_IDLE_HOURS,
   * with their staged bytes; the number removed. One whose bytes could not be removed stays
   * unfinished, so that the next sweep tries again. Any node may sweep: an upload is ended once,
   * by the node whose conditional update wins.
   */
  async sweepIdle(): Promise<number> {
    const { repository, staging, clock, log, idleMs } = this.options;
    const now = clock();
    let removed = 0;
    for (const row of await repository.idleSince(new Date(now.getTime() - idleMs), SWEEP_BATCH)) {
      if (!(await repository.end(row.id, 'abandoned', now))) continue;
      try {
        await staging.remove(row.id);
        removed += 1;
      } catch (error) {
        // Marked abandoned only once its bytes are gone: left unfinished, it is swept again next time.
        await repository.reopenAbandoned(row.id);
        log.warn({ err: error, upload: row.id }, 'the staged bytes of an abandoned upload could not be removed; the next sweep tries again');
      }
    }
    return removed;
  }
}

function outcomeOf(row: AssetUploadRow): UploadOutcome {
  const outcome: UploadOutcome = { id: row.id, fileName: row.file_name, bytes: row.byte_size, status: row.status as UploadOutcome['status'], createdAt: row.created_at };
  if (row.asset_id !== null) outcome.asset = { id: row.asset_id, type: row.asset_type === 'video' ? 'video' : 'image' };
  if (row.problem !== null) outcome.problem = row.problem;
  return outcome;
}
