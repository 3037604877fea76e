/** A bucket and a key prefix inside it, as written `s3://bucket/prefix`. */
export interface S3Location {
  readonly bucket: string;
  /** Slash-separated words without leading or trailing slashes; empty for the bucket's top. */
  readonly prefix: string;
}

/** S3's rule for bucket names (those that work with path-style and virtual-hosted addressing alike). */
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const PREFIX_PART = /^[A-Za-z0-9_.-]+$/;

/**
 * Reads `s3://bucket` or `s3://bucket/some/prefix`; answers a sentence saying what is wrong
 * otherwise, for the caller to put after the setting's or option's name.
 */
export function parseS3Location(text: string): S3Location | string {
  const match = /^s3:\/\/([^/]*)(?:\/(.*))?$/.exec(text.trim());
  if (!match) return `must be s3://bucket or s3://bucket/prefix, got '${text}'`;
  const bucket = match[1]!;
  if (!BUCKET_NAME.test(bucket) || bucket.includes('..')) {
    return `names a bucket that S3 does not allow ('${bucket}': 3 to 63 lower-case letters, digits, dots and hyphens)`;
  }
  const prefix = (match[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (prefix !== '' && prefix.split('/').some((part) => !PREFIX_PART.test(part) || part === '.' || part === '..')) {
    return `has a prefix that is not slash-separated words of letters, digits, _ . - ('${prefix}')`;
  }
  return Object.freeze({ bucket, prefix });
}

export function formatS3Location(location: S3Location): string {
  return `s3://${location.bucket}${location.prefix ? `/${location.prefix}` : ''}`;
}

/**
 * Where the back office stages unfinished uploads in the blobs' bucket: beside the blobs'
 * prefix, never under it (`media/stockroom.upload-staging/` for `s3://media/stockroom`), so that
 * a listing of the blobs (a backup, a migration) leaves them out; at the bucket's top,
 * `upload-staging/`, which the listing skips.
 */
export function uploadStagingPrefix(location: S3Location): string {
  return location.prefix ? `${location.prefix}.upload-staging` : 'upload-staging';
}
