import fs from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FilesystemBlobStore } from '../../../src/platform/blobs/filesystem-blob-store.js';
import { VideoMedia, VideoPreparingError, VideoTranscodeFailedError } from '../../../src/media/video/video-media.js';
import { JobRunner } from '../../../src/platform/jobs/job-runner.js';
import { TranscodeJobs, TranscodeRepository } from '../../../src/media/video/video-transcodes.js';
import { openTestStore, STORES, type TestStore } from '../../helpers/test-store.js';
import { ffprobeBytes, makeClip, scratchDir, tools } from './video-fixtures.js';

const ORIGINAL = 'originals/clip-for-jobs.mp4';

describe.each(STORES)('video transcode jobs, on $name', ({ name, url }) => {
  let store: TestStore;
  let dir: string;
  let blobs: FilesystemBlobStore;
  let repository: TranscodeRepository;
  const runners: JobRunner[] = [];

  /** A node's job runner on the shared store, running transcodes; `enabled: false` is a node that runs no jobs. */
  function node(options: { enabled?: boolean; leaseMs?: number } = {}) {
    const log = pino({ level: 'silent' });
    const now = () => new Date();
    const runner = new JobRunner({ soleRunner: name === 'sqlite', log, now });
    const jobs = new TranscodeJobs({ runner, repository, blobs, tools, job: { concurrency: (options.enabled ?? true) ? 1 : 0, leaseMs: options.leaseMs ?? 60_000, pollMs: 100 }, timeoutMs: 120_000, log, now });
    runners.push(runner);
    return { node: runner.node, jobs, start: () => runner.start(), close: () => runner.close() };
  }
  const waitingUpTo = ({ jobs }: { jobs: TranscodeJobs }, waitMs: number) => new VideoMedia({ blobs, repository, jobs, waitMs, now: () => new Date() });

  beforeAll(async () => {
    store = await openTestStore(url);
    dir = scratchDir();
    blobs = new FilesystemBlobStore(path.join(dir, 'blobs'));
    repository = new TranscodeRepository(store.database.db, store.database.dialect);
    await blobs.putFile(ORIGINAL, await makeClip(dir, 'original.mp4', { width: 1280, height: 720, seconds: 2 }));
    await blobs.put('originals/a-still.mp4', Buffer.from('a still, named like a video'));
  }, 60_000);

  afterAll(async () => {
    for (const runner of runners) await runner.close();
    await store?.drop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers "being prepared" while no node runs the job, and the job runs after a restart', async () => {
    const stopped = node({ enabled: false });
    await stopped.start();
    const error = await waitingUpTo(stopped, 300).madeFile(ORIGINAL, 'SD').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(VideoPreparingError);
    expect((error as VideoPreparingError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(await repository.find(ORIGINAL, 'SD')).toMatchObject({ status: 'pending', attempts: 0 });
    await stopped.close();

    // The node comes back, running jobs: the queued job is still in the store and runs.
    const restarted = node();
    await restarted.start();
    const key = await waitingUpTo(restarted, 60_000).madeFile(ORIGINAL, 'SD');
    expect(key).toMatch(/^deliveries\/.+\/SD\.mp4$/);
    const made = await ffprobeBytes(dir, (await blobs.get(key!))!);
    expect(made).toMatchObject({ codec: 'h264', width: 640, height: 360 });
    expect(made.duration).toBeCloseTo(2, 1);
    expect(await repository.find(ORIGINAL, 'SD')).toMatchObject({ status: 'done', attempts: 1 });
    await restarted.close();
  }, 90_000);

  it('runs again a job whose node stopped in the middle of it', async () => {
    await repository.enqueue(ORIGINAL, 'HD Web', new Date());
    // A node claims the job and is gone before it finishes: its lease runs out a second later.
    const claimed = await repository.queue.claim('node-that-died', new Date(), new Date(Date.now() + 1000));
    expect(claimed).toMatchObject({ kind: 'HD Web', status: 'running', claimed_by: 'node-that-died' });
    // SQLite: the one process starting again finds it running and takes it back at once;
    // PostgreSQL: another node takes it once the lease has lapsed.
    const survivor = node();
    await survivor.start();
    const key = await waitingUpTo(survivor, 60_000).madeFile(ORIGINAL, 'HD Web');
    expect(await ffprobeBytes(dir, (await blobs.get(key!))!)).toMatchObject({ codec: 'h264', width: 1280, height: 720 });
    expect(await repository.find(ORIGINAL, 'HD Web')).toMatchObject({ status: 'done', attempts: 2, claimed_by: survivor.node });
    await survivor.close();
  }, 90_000);

  it('makes a missing file again, and reports a file that cannot be made with ffmpeg’s reason', async () => {
    const runner = node();
    await runner.start();
    const media = waitingUpTo(runner, 60_000);
    const key = (await media.madeFile(ORIGINAL, 'SD'))!;
    await blobs.delete(key);
    expect(await media.madeFile(ORIGINAL, 'SD')).toBe(key);
    expect(await blobs.size(key)).toBeGreaterThan(0);

    const failure = await media.madeFile('originals/a-still.mp4', 'SD').catch((caught: unknown) => caught);
    expect(failure).toBeInstanceOf(VideoTranscodeFailedError);
    expect((failure as Error).message).toMatch(/^the SD file could not be made: not a video ffprobe can read/);
    // A failed job stays failed: asking again does not queue it once more.
    await expect(media.madeFile('originals/a-still.mp4', 'SD')).rejects.toBeInstanceOf(VideoTranscodeFailedError);
    await runner.close();
  }, 90_000);
});
