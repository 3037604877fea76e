import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ingestOneFile } from '../../src/catalog/ingest/folder-ingest.js';
import { makeJpeg } from '../helpers/catalog-fixtures.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/*
 * An upload from the back office stores a NEW asset as a draft, but the same bytes uploaded again
 * (the same id: folder ingest names an asset after its content) must not take a published asset
 * out of the catalogue, nor bring back a withdrawn one: `publicationOfNew` is for new assets only.
 */

describe('ingest: the state of a new asset only (publicationOfNew)', () => {
  let t: TestApp;
  let dir: string;

  beforeEach(async () => {
    t = await createTestApp();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-publication-of-new-'));
  });
  afterEach(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function upload(name: string, bytes: Buffer) {
    const file = path.join(dir, name);
    fs.writeFileSync(file, bytes);
    return ingestOneFile(t.services.ingest, { name, path: file }, { publicationOfNew: 'draft' });
  }
  const stateOf = async (id: string) => (await t.services.catalog.findAssetsInAnyState('image', [id]))[0]?.publication;

  it('rule: a new file becomes a draft; the same file uploaded again keeps a published or withdrawn asset as it is', async () => {
    const bytes = await makeJpeg(200, 150, '#884422');
    const first = await upload('harbour.jpg', bytes);
    expect(first.operation).toBe('insert');
    expect(await stateOf(first.id)).toBe('draft');

    await t.services.catalogEditing.update(first.id, { title: 'Harbour, reviewed' });
    await t.services.catalogEditing.publish([first.id]);
    const again = await upload('harbour-copy.jpg', bytes);
    expect([again.id, again.operation]).toEqual([first.id, 'update']);
    expect(await stateOf(first.id)).toBe('published');
    expect((await t.services.catalog.findAssets('image', [first.id])).found.map((asset) => asset.fields.title)).toEqual(['Harbour, reviewed']);

    await t.services.catalogEditing.withdraw([first.id]);
    await upload('harbour-third.jpg', bytes);
    expect(await stateOf(first.id)).toBe('withdrawn');

    // A draft uploaded again stays a draft.
    const other = await upload('field.jpg', await makeJpeg(200, 150, '#228844'));
    await upload('field-again.jpg', await makeJpeg(200, 150, '#228844'));
    expect(await stateOf(other.id)).toBe('draft');
  });

  it('`publication`, when given, still sets the state of a stored asset (the draft of the editing tests)', async () => {
    const bytes = await makeJpeg(120, 90);
    const file = path.join(dir, 'pier.jpg');
    fs.writeFileSync(file, bytes);
    const stored = await ingestOneFile(t.services.ingest, { name: 'pier.jpg', path: file });
    expect(await stateOf(stored.id)).toBe('published');
    await ingestOneFile(t.services.ingest, { name: 'pier.jpg', path: file }, { publication: 'draft', publicationOfNew: 'published' });
    expect(await stateOf(stored.id)).toBe('draft');
  });
});
