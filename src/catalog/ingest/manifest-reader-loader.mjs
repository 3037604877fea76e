// Starts the manifest reader's worker from TypeScript source, as `stockroom ingest` runs: a worker
// thread does not inherit the parent's tsx loader, so it registers its own.
import { register } from 'tsx/esm/api';

register();
await import('./manifest-reader-worker.ts');
