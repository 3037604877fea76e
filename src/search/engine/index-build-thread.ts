import { Worker } from 'node:worker_threads';
import { encodeDocuments, type DocumentBatch } from './document-batch.js';
import type { SnapshotChunk } from './snapshot-format.js';
import type { IndexDocument, IndexSchema } from './types.js';

/** What the worker is started with. */
export interface IndexBuildWorkerData {
  schema: IndexSchema;
}

export type IndexBuildRequest = { type: 'batch'; batch: DocumentBatch } | { type: 'finish' };

export type IndexBuildReply = { type: 'taken' } | { type: 'built'; chunks: SnapshotChunk[]; documents: number };

/** The built index, as its snapshot: the byte ranges SearchIndex.toSnapshotChunks gives, now this thread's. */
export interface BuiltIndex {
  chunks: SnapshotChunk[];
  documents: number;
}

/**
 * Batches sent and not yet appended by the worker: enough that neither side waits for the
 * other's pauses, few enough that a sender faster than the worker holds some pages, not the
 * whole store. The worker pauses whenever one of its arrays grows (a copy of the whole array:
 * hundreds of megabytes at ten million documents) and the sender at each of its collections;
 * 32 pages of 500 assets (about a megabyte each) are two seconds of reading.
 */
const MAX_BATCHES_IN_FLIGHT = 32;

/**
 * Smaller buffers are copied with their message rather than transferred: Node's pool of small
 * Buffers (8 KiB slabs, shared by unrelated Buffers) cannot be handed over, and copying a few
 * kilobytes costs nothing.
 */
const MIN_TRANSFER_BYTES = 64 * 1024;

/**
 * The distinct buffers under a snapshot's chunks worth transferring (each once: several chunks
 * may view one array).
 */
export function transferableBuffers(chunks: readonly SnapshotChunk[]): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  for (const chunk of chunks) {
    if (!ArrayBuffer.isView(chunk)) continue;
    const buffer = chunk.buffer;
    if (buffer instanceof ArrayBuffer && buffer.byteLength >= MIN_TRANSFER_BYTES) buffers.add(buffer);
  }
  return [...buffers];
}

/**
 * An index built in a worker thread, fed documents from this one: a build from the store spends
 * half its time reading and making documents and half appending them and making the lists, and
 * a thread each does both halves at once on two cores. What comes back is the index's snapshot:
 * the caller writes it, or loads it.
 */
export class IndexBuildThread {
  private readonly worker: Worker;
  private inFlight = 0;
  /** the sender waiting for room, if any */
  private roomWaiter: (() => void) | undefined;
  private failure: Error | undefined;
  private built: ((built: BuiltIndex) => void) | undefined;
  private failed: ((error: Error) => void) | undefined;

  constructor(private readonly schema: IndexSchema) {
    const fromSource = import.meta.url.endsWith('.ts');
    this.worker = new Worker(new URL(fromSource ? './index-build-worker-loader.mjs' : './index-build-worker.js', import.meta.url), {
      workerData: { schema } satisfies IndexBuildWorkerData,
    });
    this.worker.on('message', (reply: IndexBuildReply) => {
      if (reply.type === 'taken') {
        this.inFlight--;
        this.wakeSender();
      } else this.built?.({ chunks: reply.chunks, documents: reply.documents });
    });
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', (code) => this.fail(new Error(`the index build's worker thread stopped (exit code ${code})`)));
  }

  /** Sends documents to be appended; resolves once there is room for more. Rejects if the worker failed. */
  async add(docs: readonly IndexDocument[]): Promise<void> {
    if (this.failure) throw this.failure;
    if (docs.length === 0) return;
    const batch = encodeDocuments(this.schema, docs);
    this.worker.postMessage({ type: 'batch', batch } satisfies IndexBuildRequest, [batch.layout.buffer as ArrayBuffer, batch.numbers.buffer as ArrayBuffer]);
    this.inFlight++;
    while (this.inFlight >= MAX_BATCHES_IN_FLIGHT && !this.failure) {
      await new Promise<void>((wake) => (this.roomWaiter = wake));
    }
    if (this.failure) throw this.failure;
  }

  /** Every document sent is in: the worker compacts the index and hands its snapshot over, then stops. */
  async finish(): Promise<BuiltIndex> {
    if (this.failure) throw this.failure;
    const built = await new Promise<BuiltIndex>((resolve, reject) => {
      this.built = resolve;
      this.failed = reject;
      this.worker.postMessage({ type: 'finish' } satisfies IndexBuildRequest);
    });
    this.failure = new Error('the index build is finished');
    await this.worker.terminate();
    return built;
  }

  /** Stops the worker (a build given up); what it held is dropped. */
  async close(): Promise<void> {
    this.failure ??= new Error('the index build was given up');
    this.wakeSender();
    await this.worker.terminate();
  }

  private fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    this.wakeSender();
    this.failed?.(error);
  }

  private wakeSender(): void {
    const wake = this.roomWaiter;
    this.roomWaiter = undefined;
    wake?.();
  }
}
