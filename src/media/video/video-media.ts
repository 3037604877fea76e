/**
 * The media side of a video asset: where its stills are kept (the poster the comps and thumb
 * are drawn from, the key frames), and the files made from it on request — the preview clip and
 * the smaller download sizes — through the transcode jobs, waiting for the file up to a limit.
 */
import type { BlobStore } from '../../platform/blobs/blob-store.js';
import { mediaTypeByExtension } from '../delivery.js';
import { PREVIEW_KIND, type TranscodeJobs, type TranscodeRepository } from './video-transcodes.js';

/** How often a waiting request looks at its job. */
const WAIT_STEP_MS = 150;

/** The file is being made; ask again later (503 with Retry-After). */
export class VideoPreparingError extends Error {
  override name = 'VideoPreparingError';
  constructor(readonly retryAfterSeconds: number) {
    super('the video file is being prepared; ask again shortly');
  }
}

/** The file could not be made; the message says why. */
export class VideoTranscodeFailedError extends Error {
  override name = 'VideoTranscodeFailedError';
}

/** Whether a stored original is a video, by the extension ingest gives it (`originals/<sha256>.mp4`). */
export function isVideoOriginal(originalKey: string): boolean {
  return mediaTypeByExtension(originalKey)?.contentType.startsWith('video/') === true || /\.(mkv|avi|ts|mpg|mxf)$/i.test(originalKey);
}

function folderOf(originalKey: string): string {
  return originalKey.replace(/_/g, '_-').replace(/\//g, '__');
}

/** The poster still of a video original, as ingest stores it. */
export function posterKey(originalKey: string): string {
  return `renditions/${folderOf(originalKey)}/poster.jpg`;
}

/** Key frame `index` (1-based) of a video original, as ingest stores it. */
export function keyFrameKey(originalKey: string, index: number): string {
  return `renditions/${folderOf(originalKey)}/key-frames/${index}.jpg`;
}

export interface VideoMediaOptions {
  blobs: BlobStore;
  repository: TranscodeRepository;
  jobs: TranscodeJobs;
  /** How long a request waits for a file being made. */
  waitMs: number;
  now: () => Date;
}

export class VideoMedia {
  constructor(private readonly options: VideoMediaOptions) {}

  /**
   * The blob key of the file `kind` of an original ('preview' or a download size's name), made
   * by a job when it is not yet; null when the original itself is that file. Waits up to the
   * configured time, then throws VideoPreparingError; VideoTranscodeFailedError when it failed.
   */
  async madeFile(originalKey: string, kind: string): Promise<string | null> {
    const { repository, jobs, blobs } = this.options;
    const deadline = Date.now() + this.options.waitMs;
    let queued = false;
    for (;;) {
      const row = await repository.find(originalKey, kind);
      if (row?.status === 'done') {
        if (row.output_key === null) return null;
        if ((await blobs.size(row.output_key)) !== undefined) return row.output_key;
        // The made file went missing from the store (cleared by hand): make it again.
        await repository.redo(originalKey, kind);
      } else if (row?.status === 'failed') {
        throw new VideoTranscodeFailedError(`the ${kind === PREVIEW_KIND ? 'preview clip' : `${kind} file`} could not be made: ${row.failure ?? 'no reason was kept'}`);
      } else if (row === undefined && !queued) {
        await repository.enqueue(originalKey, kind, this.options.now());
        queued = true;
      }
      jobs.wake();
      if (Date.now() >= deadline) throw new VideoPreparingError(Math.max(1, Math.ceil(Math.min(this.options.waitMs, 10_000) / 1000)));
      await new Promise((resolve) => setTimeout(resolve, Math.min(WAIT_STEP_MS, Math.max(1, deadline - Date.now()))));
    }
  }

  /** Queues the job of the file `kind` of an original unless it is known, without waiting for it. */
  async queue(originalKey: string, kind: string): Promise<void> {
    await this.options.repository.enqueue(originalKey, kind, this.options.now());
    this.options.jobs.wake();
  }

  /** The preview clip's key, made when it is not yet (see madeFile). */
  async previewKey(originalKey: string): Promise<string> {
    const key = await this.madeFile(originalKey, PREVIEW_KIND);
    if (key === null) throw new VideoTranscodeFailedError('the preview clip job kept no file');
    return key;
  }
}
