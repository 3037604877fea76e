/*
 * The manifest reader's worker thread (manifest-reader.ts): reads the manifest, parses and checks
 * each line (manifest-lines.ts), and sends the chunks as text, as many ahead as the reader allows.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { encodeChunk, manifestChunks, type ManifestReading } from './manifest-lines.js';

export interface ReaderTask extends ManifestReading {
  file: string;
  /** Chunks sent before the first is taken; each one taken allows one more. */
  ahead: number;
}

/** What the worker sends: a chunk's text, the end of the manifest, or why it stopped. */
export type ReaderMessage = { chunk: string } | { end: true } | { error: string };

const port = parentPort!;
const task = workerData as ReaderTask;
let allowed = task.ahead;
let wake: (() => void) | undefined;
port.on('message', () => {
  allowed += 1;
  wake?.();
  wake = undefined;
});

async function send(): Promise<void> {
  for await (const chunk of manifestChunks(task.file, task)) {
    while (allowed === 0) await new Promise<void>((resolve) => (wake = resolve));
    allowed -= 1;
    port.postMessage({ chunk: encodeChunk(chunk) } satisfies ReaderMessage);
  }
  port.postMessage({ end: true } satisfies ReaderMessage);
}

send().catch((error: unknown) => port.postMessage({ error: error instanceof Error ? error.message : String(error) } satisfies ReaderMessage));
