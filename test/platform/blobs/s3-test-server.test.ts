import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  ListPartsCommand,
  S3Client,
  UploadPartCommand,
  type S3ServiceException,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3_TEST_CREDENTIALS, startS3TestServer, type S3TestServer } from './s3-test-server.js';

/*
 * The tests' S3 server answers ListParts and AbortMultipartUpload as S3 does (s3rver alone
 * answers 405): checked with the AWS SDK's own commands, which parse the answers by the API's
 * model, so a shape the SDK would not read fails here rather than in tus's store.
 */

describe('the S3 test server’s multipart uploads', () => {
  let s3: S3TestServer;
  let client: S3Client;

  beforeAll(async () => {
    s3 = await startS3TestServer();
    client = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: S3_TEST_CREDENTIALS });
  });
  afterAll(async () => {
    client?.destroy();
    await s3?.close();
  });

  /** A multipart upload of `key` with parts of the given sizes (part n filled with byte n); its id and each part's ETag. */
  async function uploadWithParts(key: string, sizes: readonly number[]): Promise<{ uploadId: string; etags: string[] }> {
    const created = await client.send(new CreateMultipartUploadCommand({ Bucket: s3.bucket, Key: key }));
    const etags: string[] = [];
    for (const [index, size] of sizes.entries()) {
      const part = await client.send(new UploadPartCommand({ Bucket: s3.bucket, Key: key, UploadId: created.UploadId, PartNumber: index + 1, Body: Buffer.alloc(size, index + 1) }));
      etags.push(part.ETag!);
    }
    return { uploadId: created.UploadId!, etags };
  }

  const errorOf = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: S3ServiceException) => ({ name: error.name, status: error.$metadata.httpStatusCode }),
    );

  it('lists the parts uploaded, in number order, each with its size and the ETag its upload answered', async () => {
    const key = 'staging/a folder/clip one.mov';
    const { uploadId, etags } = await uploadWithParts(key, [700, 500, 300]);
    const listed = await client.send(new ListPartsCommand({ Bucket: s3.bucket, Key: key, UploadId: uploadId }));
    expect(listed.Bucket).toBe(s3.bucket);
    expect(listed.Key).toBe(key);
    expect(listed.UploadId).toBe(uploadId);
    expect(listed.IsTruncated).toBe(false);
    expect(listed.MaxParts).toBe(1000);
    expect(listed.Parts!.map((part) => [part.PartNumber, part.Size, part.ETag])).toEqual([
      [1, 700, etags[0]],
      [2, 500, etags[1]],
      [3, 300, etags[2]],
    ]);
    expect(listed.Parts![0]!.LastModified).toBeInstanceOf(Date);
  });

  it('pages with max-parts and part-number-marker: IsTruncated and NextPartNumberMarker say where the next page starts', async () => {
    const key = 'staging/paged';
    const { uploadId } = await uploadWithParts(key, [10, 20, 30, 40, 50]);
    const first = await client.send(new ListPartsCommand({ Bucket: s3.bucket, Key: key, UploadId: uploadId, MaxParts: 2 }));
    expect(first.Parts!.map((part) => part.PartNumber)).toEqual([1, 2]);
    expect(first.IsTruncated).toBe(true);
    expect(first.NextPartNumberMarker).toBe('2');
    expect(first.MaxParts).toBe(2);
    const second = await client.send(new ListPartsCommand({ Bucket: s3.bucket, Key: key, UploadId: uploadId, MaxParts: 2, PartNumberMarker: first.NextPartNumberMarker }));
    expect(second.PartNumberMarker).toBe('2');
    expect(second.Parts!.map((part) => part.PartNumber)).toEqual([3, 4]);
    expect(second.IsTruncated).toBe(true);
    const last = await client.send(new ListPartsCommand({ Bucket: s3.bucket, Key: key, UploadId: uploadId, MaxParts: 2, PartNumberMarker: second.NextPartNumberMarker }));
    expect(last.Parts!.map((part) => [part.PartNumber, part.Size])).toEqual([[5, 50]]);
    expect(last.IsTruncated).toBe(false);
  });

  it('refuses a max-parts or part-number-marker that is not a whole number in range', async () => {
    const { uploadId } = await uploadWithParts('staging/bad-query', [10]);
    const target = `${s3.endpoint}/${s3.bucket}/staging/bad-query?uploadId=${uploadId}`;
    for (const query of ['&max-parts=1001', '&max-parts=two', '&part-number-marker=-1']) {
      const answer = await fetch(`${target}${query}`);
      expect(answer.status, query).toBe(400);
      expect(await answer.text()).toContain('<Code>InvalidArgument</Code>');
    }
  });

  it('aborts an upload: its parts go, and the upload is NoSuchUpload (404) to ListParts and to another abort', async () => {
    const key = 'staging/aborted';
    const { uploadId } = await uploadWithParts(key, [100, 100]);
    await client.send(new AbortMultipartUploadCommand({ Bucket: s3.bucket, Key: key, UploadId: uploadId }));
    expect(await errorOf(client.send(new ListPartsCommand({ Bucket: s3.bucket, Key: key, UploadId: uploadId })))).toEqual({ name: 'NoSuchUpload', status: 404 });
    expect(await errorOf(client.send(new AbortMultipartUploadCommand({ Bucket: s3.bucket, Key: key, UploadId: uploadId })))).toEqual({
      name: 'NoSuchUpload',
      status: 404,
    });
    // Nothing was completed: no object.
    expect(await errorOf(client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key })))).toEqual({ name: 'NoSuchKey', status: 404 });
  });

  it('answers NoSuchUpload for a completed upload, an unknown id, and an id under another key', async () => {
    const key = 'staging/completed';
    const { uploadId, etags } = await uploadWithParts(key, [64, 32]);
    const other = await uploadWithParts('staging/other', [8]);
    expect(await errorOf(client.send(new ListPartsCommand({ Bucket: s3.bucket, Key: key, UploadId: other.uploadId })))).toEqual({ name: 'NoSuchUpload', status: 404 });
    await client.send(
      new CompleteMultipartUploadCommand({
        Bucket: s3.bucket,
        Key: key,
        UploadId: uploadId,
        MultipartUpload: { Parts: etags.map((ETag, index) => ({ ETag, PartNumber: index + 1 })) },
      }),
    );
    const object = await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
    expect((await object.Body!.transformToByteArray()).length).toBe(96);
    expect(await errorOf(client.send(new ListPartsCommand({ Bucket: s3.bucket, Key: key, UploadId: uploadId })))).toEqual({ name: 'NoSuchUpload', status: 404 });
    expect(await errorOf(client.send(new ListPartsCommand({ Bucket: s3.bucket, Key: key, UploadId: 'f'.repeat(32) })))).toEqual({ name: 'NoSuchUpload', status: 404 });
  });
});
