import { Worker } from 'node:worker_threads';
import { decodeChunk, manifestChunks, type ManifestChunk, type ManifestReading } from './manifest-lines.js';
import type { ReaderMessage, ReaderTask } from './manifest-reader-worker.js';

/**
 * Chunks a worker reads ahead of the one being taken: with a chunk of a thousand lines and a batch
 * of five thousand, the next batch's lines are parsed and checked while this one is written, and
 * no more than a few megabytes of text wait.
 */
const CHUNKS_AHEAD = 3;

/**
 * The manifest's chunks (manifest-lines.ts), made in this thread or, `inWorker`, in a worker
 * thread while this one goes on with what it took before: on two cores the parsing and checking of
 * the lines and the writing of the batches overlap instead of taking turns. The items are the same
 * either way. The worker stops when the caller stops taking chunks (a run that fails).
 */
export async function* readManifest(file: string, reading: ManifestReading, inWorker: boolean): AsyncGenerator<ManifestChunk> {
  if (!inWorker) {
    yield* manifestChunks(file, reading);
    return;
  }
  const fromSource = import.meta.url.endsWith('.ts');
  const task: ReaderTask = { file, resumeAfter: reading.resumeAfter, batchable: reading.batchable, ahead: CHUNKS_AHEAD };
  const worker = new Worker(new URL(fromSource ? './manifest-reader-loader.mjs' : './manifest-reader-worker.js', import.meta.url), { workerData: task });
  const arrived: ReaderMessage[] = [];
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const woken = () => {
    wake?.();
    wake = undefined;
  };
  worker.on('message', (message: ReaderMessage) => {
    arrived.push(message);
    woken();
  });
  worker.on('error', (error) => {
    failure ??= error;
    woken();
  });
  worker.on('exit', (code) => {
    failure ??= new Error(`the manifest reader stopped (exit code ${code}) before the end of the manifest`);
    woken();
  });
  try {
    for (;;) {
      const message = arrived.shift();
      if (message === undefined) {
        if (failure !== undefined) throw failure;
        await new Promise<void>((resolve) => (wake = resolve));
        continue;
      }
      if ('end' in message) return;
      if ('error' in message) throw new Error(`cannot read the manifest ${file}: ${message.error}`);
      worker.postMessage('more');
      yield decodeChunk(message.chunk);
    }
  } finally {
    worker.removeAllListeners();
    await worker.terminate();
  }
}
