import fs from 'node:fs';
import path from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { loadConfig } from '../../config/config.js';
import { migrateBlobs } from '../../platform/blobs/blob-migration.js';
import { FilesystemBlobStore } from '../../platform/blobs/filesystem-blob-store.js';
import { S3BlobStore } from '../../platform/blobs/s3-blob-store.js';
import { formatS3Location, parseS3Location, type S3Location } from '../../platform/blobs/s3-location.js';
import { positive } from '../options.js';
import { progressBar } from '../progress.js';

function s3Location(value: string): S3Location {
  const location = parseS3Location(value);
  if (typeof location === 'string') throw new InvalidArgumentError(location);
  return location;
}

const megabytes = (bytes: number) => `${(bytes / 1_000_000).toFixed(1)} MB`;

export function addBlobsCommands(program: Command): void {
  const blobs = program.command('blobs').description('the blob store: originals, renditions and other files');
  blobs
    .command('migrate')
    .description(
      'copy a folder store into an S3-compatible bucket, verifying each copy by SHA-256; run it again to resume (what is already there is skipped); then set STOCKROOM_BLOBS',
    )
    .requiredOption('--to <s3-url>', 's3://bucket or s3://bucket/prefix (endpoint, region and credentials from AWS_ENDPOINT_URL_S3, AWS_REGION, AWS_ACCESS_KEY_ID, …)', s3Location)
    .option('--from <dir>', 'the folder store to copy (default: blobs/ under STOCKROOM_DATA_DIR)')
    .option('--path-style', 'path-style addressing (MinIO and most S3-compatible servers); default: STOCKROOM_BLOBS_PATH_STYLE')
    .option('--concurrency <n>', 'blobs copied at once', positive, 4)
    .action(async (options: { to: S3Location; from?: string; pathStyle?: boolean; concurrency: number }) => {
      const config = loadConfig();
      const folder = path.resolve(options.from ?? path.join(config.dataDir, 'blobs'));
      if (!fs.existsSync(folder) || !fs.statSync(folder).isDirectory()) throw new Error(`--from: ${folder} is not a folder`);
      const pathStyle = options.pathStyle ?? (config.blobs.kind === 's3' ? config.blobs.pathStyle : false);
      const target = new S3BlobStore(options.to, { pathStyle });
      try {
        await target.checkReachable('--to');
        const bar = progressBar('Copying blobs');
        let report;
        try {
          report = await migrateBlobs(new FilesystemBlobStore(folder), target, { concurrency: options.concurrency, onProgress: bar.update });
        } finally {
          bar.stop();
        }
        for (const { key, reason } of report.failed) process.stderr.write(`${key}: ${reason}\n`);
        process.stdout.write(
          `${formatS3Location(options.to)}: ${report.copied} copied (${megabytes(report.bytesCopied)}), ${report.alreadyThere} already there, ${report.failed.length} failed, of ${report.total} blobs in ${folder}; every copy read back and its SHA-256 compared\n`,
        );
        if (report.failed.length > 0) process.exitCode = 1;
      } finally {
        target.close();
      }
    });
}
