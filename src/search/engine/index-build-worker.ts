import { parentPort, workerData } from 'node:worker_threads';
import { decodeDocuments } from './document-batch.js';
import { SearchIndex } from './search-index.js';
import { transferableBuffers, type IndexBuildReply, type IndexBuildRequest, type IndexBuildWorkerData } from './index-build-thread.js';

/**
 * The thread of an IndexBuildThread: appends each batch of documents it is sent to an index of
 * its own, and when told the input is complete compacts the index and hands back its snapshot
 * (the arrays' buffers transferred, not copied). A failure ends the thread: its owner sees it.
 */
const port = parentPort;
if (port === null) throw new Error('index-build-worker runs as a worker thread');
const { schema } = workerData as IndexBuildWorkerData;
const index = new SearchIndex(schema);

port.on('message', (request: IndexBuildRequest) => {
  if (request.type === 'batch') {
    // a build's documents: a whole read of the store, each id once
    index.appendNew(decodeDocuments(schema, request.batch));
    port.postMessage({ type: 'taken' } satisfies IndexBuildReply);
    return;
  }
  index.compact();
  const chunks = index.toSnapshotChunks();
  port.postMessage({ type: 'built', chunks, documents: index.size } satisfies IndexBuildReply, transferableBuffers(chunks));
});
