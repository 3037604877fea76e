import { Worker } from 'node:worker_threads';
import type { NudityScores } from './media-facts.js';
import type { NudityAnswer, NudityTask } from './nudity-worker.js';

/** A classifier that could not judge a picture (it does not decode, or the worker stopped). */
export class NudityClassifierError extends Error {
  override name = 'NudityClassifierError';
}

interface Pending {
  resolve: (scores: NudityScores) => void;
  reject: (error: Error) => void;
}

/**
 * How likely a picture is to show nudity, by nsfwjs's MobileNetV2 (five classes: drawing,
 * hentai, neutral, porn, sexy) on TensorFlow.js's WebAssembly backend, run on a worker thread
 * of its own so that the ~60 ms of a picture never holds up the caller's event loop. The
 * thread and its model (about 3.5 MB, loaded from the nsfwjs package) start on the first
 * picture; the thread does not keep the process alive while idle.
 */
export class NudityClassifier {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  classify(image: Buffer): Promise<NudityScores> {
    const worker = this.startedWorker();
    const id = this.nextId++;
    return new Promise<NudityScores>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.ref();
      // A copy crosses to the thread: the caller keeps its buffer (it stores the same bytes).
      worker.postMessage({ id, image: new Uint8Array(image) } satisfies NudityTask);
    });
  }

  /** Stops the worker thread; a later picture starts a new one. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }

  private startedWorker(): Worker {
    if (this.worker) return this.worker;
    const fromSource = import.meta.url.endsWith('.ts');
    const worker = new Worker(new URL(fromSource ? './nudity-worker-loader.mjs' : './nudity-worker.js', import.meta.url));
    worker.on('message', (answer: NudityAnswer) => {
      const waiting = this.pending.get(answer.id);
      this.pending.delete(answer.id);
      if (this.pending.size === 0) worker.unref();
      if (!waiting) return;
      if ('error' in answer) waiting.reject(new NudityClassifierError(answer.error.message));
      else waiting.resolve(answer.scores);
    });
    const failAll = (error: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const [id, waiting] of this.pending) {
        this.pending.delete(id);
        waiting.reject(new NudityClassifierError(`the nudity classifier's worker stopped: ${error.message}`));
      }
    };
    worker.on('error', failAll);
    worker.on('exit', (code) => failAll(new Error(`exit code ${code}`)));
    worker.unref();
    this.worker = worker;
    return worker;
  }
}
