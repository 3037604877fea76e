import { Worker } from 'node:worker_threads';
import { EngineFailedError, type EngineOperation, type EngineRequest, type EngineResult, type GenerationEngine } from '../engine.js';
import { BUILTIN_OPERATIONS, runBuiltinOperation } from './builtin-operations.js';
import type { WorkerAnswer, WorkerTask } from './builtin-worker.js';

export interface BuiltinEngineOptions {
  /**
   * Run the operations on a worker thread (the default), one at a time, so that a second of
   * pixel work never holds up the server's requests; false runs them on the caller's thread.
   */
  worker?: boolean;
}

interface Pending {
  /** The thread running it: when that thread stops, this operation fails (and no other). */
  worker: Worker;
  resolve: (result: EngineResult) => void;
  reject: (error: Error) => void;
}

/**
 * The engine that needs no model and no GPU: what classical image processing does for real.
 * Background removal (saliency-seeded GrabCut with OpenCV.js, the outline refined at full size),
 * object removal and extend (exemplar-based patch synthesis from the picture's own texture) and
 * upscaling (Lanczos resampling: sharper pixels, no invented detail). Every operation that
 * follows a prompt needs a model, and this engine declines it.
 */
export class BuiltinEngine implements GenerationEngine {
  readonly name = 'builtin';
  private readonly useWorker: boolean;
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  /** Operations run one after another: on two cores, one heavy job at a time. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(options: BuiltinEngineOptions = {}) {
    this.useWorker = options.worker ?? true;
  }

  supports(operation: EngineOperation): boolean {
    return BUILTIN_OPERATIONS.has(operation);
  }

  run(request: EngineRequest, signal?: AbortSignal): Promise<EngineResult> {
    if (!this.supports(request.operation)) return runBuiltinOperation(request);
    const turn = this.queue.then(() => {
      signal?.throwIfAborted();
      return this.useWorker ? this.runInWorker(request, signal) : runBuiltinOperation(request, signal);
    });
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  /** Stops the worker thread; a later run starts a new one. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }

  private runInWorker(request: EngineRequest, signal?: AbortSignal): Promise<EngineResult> {
    const worker = this.startedWorker();
    const id = this.nextId++;
    return new Promise<EngineResult>((resolve, reject) => {
      // An abandoned operation cannot be interrupted inside the thread: the thread goes, and the next run starts another.
      const abandon = () => {
        this.pending.delete(id);
        if (this.worker === worker) this.worker = undefined;
        void worker.terminate();
        reject(signal!.reason instanceof Error ? signal!.reason : new Error('the operation was abandoned'));
      };
      signal?.addEventListener('abort', abandon, { once: true });
      this.pending.set(id, {
        worker,
        resolve: (result) => {
          signal?.removeEventListener('abort', abandon);
          resolve(result);
        },
        reject: (error) => {
          signal?.removeEventListener('abort', abandon);
          reject(error);
        },
      });
      worker.ref();
      const task: WorkerTask = { id, request };
      worker.postMessage(task);
    });
  }

  private startedWorker(): Worker {
    if (this.worker) return this.worker;
    const fromSource = import.meta.url.endsWith('.ts');
    const worker = new Worker(new URL(fromSource ? './builtin-worker-loader.mjs' : './builtin-worker.js', import.meta.url));
    worker.on('message', (answer: WorkerAnswer) => {
      const waiting = this.pending.get(answer.id);
      this.pending.delete(answer.id);
      if (![...this.pending.values()].some((other) => other.worker === worker)) worker.unref();
      if (!waiting) return;
      if ('error' in answer) waiting.reject(revivedError(answer.error));
      else waiting.resolve({ pictures: answer.pictures.map(({ data, seed }) => ({ data: Buffer.from(data.buffer, data.byteOffset, data.byteLength), seed })) });
    });
    const failAll = (error: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const [id, waiting] of this.pending) {
        if (waiting.worker !== worker) continue;
        this.pending.delete(id);
        waiting.reject(new EngineFailedError(`the built-in engine's worker stopped: ${error.message}`));
      }
    };
    worker.on('error', failAll);
    worker.on('exit', (code) => failAll(new Error(`exit code ${code}`)));
    worker.unref();
    this.worker = worker;
    return worker;
  }
}

function revivedError({ name, message }: { name: string; message: string }): Error {
  if (name === 'EngineFailedError') return new EngineFailedError(message);
  const error = new Error(message);
  error.name = name;
  return error;
}
