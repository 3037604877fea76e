import { createRequire } from 'node:module';
import type * as S3ClientSdk from '@aws-sdk/client-s3';
import type * as S3StorageSdk from '@aws-sdk/lib-storage';

/*
 * The AWS SDK, loaded when a bucket is first used, not when the process starts: most deployments
 * keep their blobs in a folder, and the SDK's modules held about 20 MB of a server's memory that
 * such a node never used (measured on a fresh data folder, docs/benchmarks.md). Both packages are
 * CommonJS, so `require` loads them synchronously and S3BlobStore's constructor keeps its
 * signature; the first bucket made in a process pays the load (about 0.2 s) once.
 */

const requireFromHere = createRequire(import.meta.url);
let clientSdk: typeof S3ClientSdk | undefined;
let storageSdk: typeof S3StorageSdk | undefined;

/** `@aws-sdk/client-s3`, loaded at the first call. */
export function s3ClientSdk(): typeof S3ClientSdk {
  clientSdk ??= requireFromHere('@aws-sdk/client-s3') as typeof S3ClientSdk;
  return clientSdk;
}

/** `@aws-sdk/lib-storage` (multipart uploads), loaded at the first call. */
export function s3StorageSdk(): typeof S3StorageSdk {
  storageSdk ??= requireFromHere('@aws-sdk/lib-storage') as typeof S3StorageSdk;
  return storageSdk;
}
