import fs from 'node:fs';
import fsp from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestFolder } from '../../src/catalog/ingest/folder-ingest.js';
import { IngestService } from '../../src/catalog/ingest/ingest.service.js';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { S3BlobStore } from '../../src/platform/blobs/s3-blob-store.js';
import { uploadStagingPrefix } from '../../src/platform/blobs/s3-location.js';
import { backOfficeFixture, COOKIE, type BackOfficeFixture, type Person } from '../back-office/back-office-fixtures.js';
import { jpegWithMetadata } from '../media/embedded-metadata-fixtures.js';
import { POSTGRES_URL } from '../helpers/test-store.js';
import { startS3TestServer, type S3TestServer } from '../platform/blobs/s3-test-server.js';

/*
 * The back office's resumable uploads, through a listening server and a real HTTP client: the
 * tus protocol round trip with a dropped connection in the middle, the upload becoming a draft
 * whose fields are those folder ingest reads from the same file, ingest's refusals, who may
 * upload, the CSRF header, and both staging stores (a folder, and an S3 bucket through s3rver).
 */

const ENV = { STOCKROOM_NUDITY_CLASSIFIER: 'false' };
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request to the listening server; `cutAfter` sends that many body bytes, then drops the connection. */
function send(base: string, method: string, target: string, headers: Record<string, string>, body?: Buffer, cutAfter?: number): Promise<Answer | 'dropped'> {
  return new Promise((resolve, reject) => {
    const request = http.request(new URL(target, base), { method, headers: { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    if (cutAfter !== undefined && body) {
      request.on('error', () => resolve('dropped'));
      request.write(body.subarray(0, cutAfter), () => setTimeout(() => request.destroy(), 200));
      return;
    }
    request.on('error', reject);
    request.end(body);
  });
}

async function answered(promise: Promise<Answer | 'dropped'>): Promise<Answer> {
  const answer = await promise;
  if (answer === 'dropped') throw new Error('the connection dropped');
  return answer;
}

function suite(name: string, setup: () => Promise<{ env: Record<string, string>; databaseUrl?: string; close?: () => Promise<void>; s3?: S3TestServer }>) {
  describe(name, () => {
    let f: BackOfficeFixture;
    let base: string;
    let extra: Awaited<ReturnType<typeof setup>>;
    const cookies = {} as Record<Person, string>;
    const csrf = {} as Record<Person, string>;
    /** How far the app's clock runs ahead of the system's (to let an upload sit idle for a day). */
    let clockAhead = 0;

    beforeAll(async () => {
      extra = await setup();
      f = await backOfficeFixture({ databaseUrl: extra.databaseUrl, env: { ...ENV, ...extra.env }, clock: () => new Date(Date.now() + clockAhead) });
      for (const person of ['customer', 'editor'] as const) {
        cookies[person] = await f.signIn(person);
        csrf[person] = await f.csrfOf(cookies[person]);
      }
      await f.t.app.listen({ port: 0, host: '127.0.0.1' });
      const address = f.t.app.server.address() as { port: number };
      base = `http://127.0.0.1:${address.port}`;
    }, 120_000);
    afterAll(async () => {
      await f?.t.close();
      await extra?.close?.();
    });

    const tus = (person: Person | undefined, extraHeaders: Record<string, string> = {}, withCsrf = true) => ({
      'tus-resumable': '1.0.0',
      ...(person ? { cookie: `${COOKIE}=${cookies[person]}` } : {}),
      ...(person && withCsrf ? { 'x-csrf-token': csrf[person] } : {}),
      ...extraHeaders,
    });
    const create = (person: Person | undefined, fileName: string, size: number, withCsrf = true) =>
      answered(send(base, 'POST', '/admin/uploads/files', tus(person, { 'upload-length': String(size), 'upload-metadata': `filename ${b64(fileName)},filetype ${b64('image/jpeg')}` }, withCsrf)));
    const patch = (person: Person, location: string, offset: number, bytes: Buffer, cutAfter?: number) =>
      send(base, 'PATCH', location, tus(person, { 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream' }), bytes, cutAfter);

    /** Waits for the upload's ingest to end; its outcome. */
    async function outcomeOf(person: Person, id: string): Promise<{ status: string; asset?: { id: string; type: string }; problem?: string }> {
      for (let attempt = 0; attempt < 300; attempt++) {
        const answer = await answered(send(base, 'GET', `/admin/uploads/results?ids=${id}`, { cookie: `${COOKIE}=${cookies[person]}` }));
        expect(answer.status, answer.body).toBe(200);
        const outcome = (JSON.parse(answer.body) as { uploads: Array<{ status: string; asset?: { id: string; type: string }; problem?: string }> }).uploads[0];
        if (outcome && (outcome.status === 'done' || outcome.status === 'refused')) return outcome;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error('the upload was never ingested');
    }

    /** Uploads a whole file in one PATCH; its upload id. */
    async function upload(fileName: string, data: Buffer): Promise<string> {
      const created = await create('editor', fileName, data.length);
      expect(created.status, created.body).toBe(201);
      const location = created.headers.location!;
      const done = await answered(patch('editor', location, 0, data));
      expect(done.status, `${done.body} ${extra.s3 ? extra.s3.requests.slice(-6).map((r) => `${r.method} ${r.url}`).join(' | ') : ''}`).toBe(204);
      return location.split('/').pop()!;
    }

    const viaTestS3 = name.includes('S3');
    /** The objects left under the bucket's staging prefix (the staging of the S3 variant). */
    async function stagedKeys(): Promise<string[]> {
      const blobs = f.t.services.blobs as S3BlobStore;
      const prefix = `${uploadStagingPrefix(blobs.location)}/`;
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await blobs.client.send(new ListObjectsV2Command({ Bucket: blobs.location.bucket, Prefix: prefix, ContinuationToken: token }));
        for (const object of page.Contents ?? []) keys.push(object.Key!);
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token !== undefined);
      return keys;
    }
    /** Whether anything of an upload is still staged: its file in the folder, or any object of it in the bucket. */
    async function isStaged(id: string): Promise<boolean> {
      if (!viaTestS3) return fs.existsSync(path.join(f.t.dataDir, 'upload-staging', id));
      return (await stagedKeys()).some((key) => key.includes(id));
    }
    /**
     * isStaged once the ingest job has had its moment to remove the bytes: the job records the
     * outcome first and removes the staged bytes right after (an outcome is kept even when the
     * removal fails), so a test that saw the outcome may look a moment too soon.
     */
    async function isStagedAfterIngest(id: string): Promise<boolean> {
      for (let attempt = 0; attempt < 100; attempt++) {
        if (!(await isStaged(id))) return false;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return isStaged(id);
    }

    it('takes a file in several PATCHes, tells the offset after a dropped connection, resumes, and makes a draft with the fields folder ingest reads from the same file', async () => {
      const picture = await jpegWithMetadata(
        { xmp: { title: 'Harbour at dawn', description: 'Fishing boats at the quay', subjects: ['harbour', 'boats'], creator: 'Ines Ortega', city: 'Vigo', countryCode: 'ES' } },
        { width: 900, height: 600 },
      );
      const created = await create('editor', 'harbour-dawn.jpg', picture.length);
      expect(created.status, created.body).toBe(201);
      const location = created.headers.location!;
      expect(location).toMatch(/^\/admin\/uploads\/files\/[0-9a-f]{32}$/);

      const first = await answered(patch('editor', location, 0, picture.subarray(0, 1000)));
      expect(first.status, first.body).toBe(204);
      expect(first.headers['upload-offset']).toBe('1000');

      // The connection drops in the middle of the second PATCH: what arrived is kept, HEAD says how much.
      const rest = picture.subarray(1000);
      expect(await patch('editor', location, 1000, rest, Math.floor(rest.length / 2))).toBe('dropped');
      let offset = 0;
      for (let attempt = 0; attempt < 50; attempt++) {
        const head = await answered(send(base, 'HEAD', location, tus('editor')));
        expect(head.status).toBe(200);
        expect(head.headers['upload-length']).toBe(String(picture.length));
        offset = Number(head.headers['upload-offset']);
        // The server lets go of the dropped request's lock once it has seen the drop.
        if (offset > 1000) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(offset).toBeGreaterThanOrEqual(1000);
      expect(offset).toBeLessThan(picture.length);

      let resumed: Answer | undefined;
      for (let attempt = 0; attempt < 50 && resumed?.status !== 204; attempt++) {
        resumed = await answered(patch('editor', location, offset, picture.subarray(offset)));
        // 423: the dropped request still holds the upload's lock for a moment.
        if (resumed.status !== 204) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(resumed!.status, resumed!.body).toBe(204);
      expect(resumed!.headers['upload-offset']).toBe(String(picture.length));

      const outcome = await outcomeOf('editor', location.split('/').pop()!);
      expect(outcome.status, outcome.problem).toBe('done');
      // Ingested, the upload leaves nothing staged (in a bucket: no object, no info, no leftover part).
      expect(await isStagedAfterIngest(location.split('/').pop()!)).toBe(false);
      const [draft] = await f.t.services.catalog.findAssetsInAnyState('image', [outcome.asset!.id]);
      expect(draft!.publication).toBe('draft');
      expect(draft!.fields.title).toBe('Harbour at dawn');
      expect(draft!.fields.caption).toBe('Fishing boats at the quay');
      // Not searchable, not readable through the API: a draft.
      expect((await f.t.services.catalog.findAssets('image', [outcome.asset!.id])).found).toEqual([]);

      // The same file ingested from a folder changes no field: the upload read it exactly as folder ingest does.
      const folder = await fsp.mkdtemp(path.join(os.tmpdir(), 'stockroom-upload-compare-'));
      try {
        await fsp.writeFile(path.join(folder, 'harbour-dawn.jpg'), picture);
        const ingest = new IngestService({ catalog: f.t.services.catalog, blobs: f.t.services.blobs });
        const report = await ingestFolder(ingest, folder, { dryRun: true });
        expect(report.failed).toEqual([]);
        expect(report.updated).toEqual([{ file: 'harbour-dawn.jpg', id: outcome.asset!.id, changes: [] }]);
      } finally {
        await fsp.rm(folder, { recursive: true, force: true });
      }
    }, 60_000);

    it('refuses a file ingest refuses, with the message folder ingest gives, and removes its staged bytes', async () => {
      const notAPicture = Buffer.from('This is a note, not a photograph.\n'.repeat(20));
      const id = await upload('notes.jpg', notAPicture);
      const outcome = await outcomeOf('editor', id);
      expect(outcome.status).toBe('refused');
      const folder = await fsp.mkdtemp(path.join(os.tmpdir(), 'stockroom-upload-compare-'));
      try {
        await fsp.writeFile(path.join(folder, 'notes.jpg'), notAPicture);
        const report = await ingestFolder(new IngestService({ catalog: f.t.services.catalog, blobs: f.t.services.blobs }), folder, { dryRun: true });
        expect(report.failed).toEqual([{ file: 'notes.jpg', reason: outcome.problem }]);
        expect(outcome.problem).toMatch(/not an image or video file we can read/);
      } finally {
        await fsp.rm(folder, { recursive: true, force: true });
      }
      // The staged bytes are gone: the upload is no more.
      const head = await answered(send(base, 'HEAD', `/admin/uploads/files/${id}`, tus('editor')));
      expect(head.status).toBe(404);
      expect(await isStagedAfterIngest(id)).toBe(false);
    }, 60_000);

    it('refuses at creation a file that is no picture or video, in ingest’s words', async () => {
      const created = await create('editor', 'minutes.txt', 100);
      expect(created.status).toBe(415);
      expect(created.body).toContain('minutes.txt: not an image or video (.txt)');
    });

    it('refuses a signed-out visitor, a customer, and a request without the CSRF header', async () => {
      expect((await create(undefined, 'a.jpg', 10)).status).toBe(401);
      const customer = await create('customer', 'a.jpg', 10);
      expect(customer.status).toBe(403);
      expect(JSON.parse(customer.body).code).toBe('StaffOnly');
      const noToken = await create('editor', 'a.jpg', 10, false);
      expect(noToken.status).toBe(403);
      expect(JSON.parse(noToken.body).code).toBe('CsrfCheckFailed');
      const page = await answered(send(base, 'GET', '/admin/uploads', {}));
      expect(page.status).toBe(303);
      expect(page.headers.location).toBe('/signin?return=%2Fadmin%2Fuploads');
      const customerPage = await answered(send(base, 'GET', '/admin/uploads', { cookie: `${COOKIE}=${cookies.customer}` }));
      expect(customerPage.status).toBe(403);
      // The back office's refusal page, in its frame but with none of its sections, and no upload form.
      expect(customerPage.body).toContain('<code>StaffOnly</code>');
      expect(customerPage.body).toContain('<a class="brand" href="/admin">');
      expect(customerPage.body).not.toContain('class="sections"');
      expect(customerPage.body).not.toContain('id="files"');
      const editorPage = await answered(send(base, 'GET', '/admin/uploads', { cookie: `${COOKIE}=${cookies.editor}` }));
      expect(editorPage.status).toBe(200);
      expect(editorPage.headers['content-security-policy']).toContain("script-src 'self'");
      expect(editorPage.body).not.toMatch(/<script>|<script(?![^>]*src=)/);
      // Framed as every back-office page is: its header and sections (this one marked current), the account, its stylesheet.
      expect(editorPage.body).toMatch(/<link rel="stylesheet" href="\/admin\/static\/back-office\.css\?v=[0-9a-f]+">/);
      expect(editorPage.body).toContain('<a href="/admin/uploads" aria-current="page">Upload</a>');
      expect(editorPage.body).toContain('eddie <span class="role">(editor)</span>');
      expect(editorPage.body).toMatch(/<script src="\/admin\/uploads\/static\/uploads\.js\?v=[0-9a-f]+" defer><\/script>/);
    });

    it('removes an upload that received nothing for longer than the idle time, with its staged bytes; a recent one stays', async () => {
      const created = await create('editor', 'left-behind.jpg', 5000);
      expect(created.status, created.body).toBe(201);
      const location = created.headers.location!;
      const id = location.split('/').pop()!;
      expect((await answered(patch('editor', location, 0, Buffer.alloc(1000, 0xff)))).status).toBe(204);
      const editor = { userId: f.ids.editor, role: 'editor' as const };

      // Within the idle time (a day by default), nothing is removed.
      await f.t.services.assetUploads.sweepIdle();
      expect((await f.t.services.assetUploads.outcomes(editor, [id]))[0]!.status).toBe('uploading');
      const head = await answered(send(base, 'HEAD', location, tus('editor')));
      expect(head.status).toBe(200);
      expect(head.headers['upload-offset']).toBe('1000');
      expect(await isStaged(id)).toBe(true);

      clockAhead = 25 * 3600_000;
      try {
        const removed = await f.t.services.assetUploads.sweepIdle();
        expect(removed).toBeGreaterThanOrEqual(1);
      } finally {
        clockAhead = 0;
      }
      expect((await f.t.services.assetUploads.outcomes(editor, [id]))[0]!.status).toBe('abandoned');
      expect((await answered(send(base, 'HEAD', location, tus('editor')))).status).toBe(404);
      // Nothing of it is left staged: in a bucket, its multipart upload aborted and its info and leftover part deleted.
      expect(await isStaged(id)).toBe(false);
      // An abandoned upload takes no more bytes.
      expect((await answered(patch('editor', location, 1000, Buffer.alloc(100, 0xff)))).status).toBe(404);
    });

    if (viaTestS3) {
      it('stages in the same bucket beside the blobs, and leaves nothing staged once ingested', async () => {
        const picture = await jpegWithMetadata({ xmp: { title: 'Bucket picture' } }, { width: 400, height: 300 });
        const id = await upload('bucket-picture.jpg', picture);
        const outcome = await outcomeOf('editor', id);
        expect(outcome.status, outcome.problem).toBe('done');
        const blobs = f.t.services.blobs as S3BlobStore;
        expect(blobs).toBeInstanceOf(S3BlobStore);
        // A draft: its original is found in any state.
        const original = await f.t.services.catalog.findOriginalInAnyState(outcome.asset!.id);
        expect(await blobs.size(original!.originalKey)).toBe(picture.length);
        const staged = extra.s3!.requests.filter((request) => request.url.includes('.upload-staging/'));
        expect(staged.length).toBeGreaterThan(0);
        const keys: string[] = [];
        for await (const blob of blobs.list()) keys.push(blob.key);
        expect(keys.some((key) => key.includes('upload-staging'))).toBe(false);
        expect(await stagedKeys()).toEqual([]);
      }, 60_000);
    }
  });
}

suite('back-office uploads, staged in a folder', async () => ({ env: {} }));
if (POSTGRES_URL) suite('back-office uploads, staged in a folder, on PostgreSQL', async () => ({ env: {}, databaseUrl: POSTGRES_URL }));
suite('back-office uploads, staged in an S3 bucket', async () => {
  const s3 = await startS3TestServer();
  const { STOCKROOM_BLOBS, STOCKROOM_BLOBS_PATH_STYLE, ...awsEnv } = s3.env('node-blobs');
  const saved = { ...process.env };
  Object.assign(process.env, awsEnv);
  return {
    env: { STOCKROOM_BLOBS: STOCKROOM_BLOBS!, STOCKROOM_BLOBS_PATH_STYLE: STOCKROOM_BLOBS_PATH_STYLE! },
    s3,
    close: async () => {
      await s3.close();
      process.env = saved;
    },
  };
});
