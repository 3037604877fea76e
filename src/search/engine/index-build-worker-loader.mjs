// Starts the index build's worker from TypeScript source, as `npm start` runs the server from
// source: a worker thread does not inherit the parent's tsx loader, so it registers its own.
import { register } from 'tsx/esm/api';

register();
await import('./index-build-worker.ts');
