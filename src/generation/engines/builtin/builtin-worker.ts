/*
 * The built-in engine's worker thread: runs one operation at a time off the server's event loop
 * and answers with the pictures (their bytes transferred, not copied) or the error, by name.
 */
import { parentPort } from 'node:worker_threads';
import type { EngineRequest } from '../engine.js';
import { runBuiltinOperation } from './builtin-operations.js';

export interface WorkerTask {
  id: number;
  request: EngineRequest;
}

export type WorkerAnswer =
  | { id: number; pictures: { data: Uint8Array; seed: number }[] }
  | { id: number; error: { name: string; message: string } };

/** Pictures and masks cross the thread boundary as Uint8Array; sharp and the engine want Buffers. */
function asBuffers(request: EngineRequest): EngineRequest {
  const revived = { ...request } as Record<string, unknown>;
  for (const key of ['source', 'mask', 'reference']) {
    const image = revived[key] as { data: Uint8Array; mediaType: string } | undefined;
    if (image) revived[key] = { ...image, data: Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength) };
  }
  return revived as unknown as EngineRequest;
}

parentPort?.on('message', ({ id, request }: WorkerTask) => {
  runBuiltinOperation(asBuffers(request)).then(
    ({ pictures }) => {
      const answer: WorkerAnswer = { id, pictures: pictures.map(({ data, seed }) => ({ data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), seed })) };
      parentPort!.postMessage(answer, pictures.map(({ data }) => data.buffer as ArrayBuffer).filter((buffer, n, all) => all.indexOf(buffer) === n));
    },
    (error: unknown) => {
      const answer: WorkerAnswer = { id, error: { name: error instanceof Error ? error.name : 'Error', message: error instanceof Error ? error.message : String(error) } };
      parentPort!.postMessage(answer);
    },
  );
});
