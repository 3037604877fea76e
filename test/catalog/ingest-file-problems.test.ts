import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { unreadableReason } from '../../src/catalog/ingest/file-problems.js';
import { titleFromFileName } from '../../src/catalog/ingest/folder-ingest.js';
import { unfitProductTypes } from '../../src/catalog/ingest/product-type-fit.js';

/* The words a folder ingest reports a file in, the titles it makes from file names, and the product types it warns of. */

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-file-problems-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(name: string, data: Buffer | string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, data);
  return file;
}

describe('why a file could not be ingested, in words', () => {
  it.each([
    ['a PNG cut short', async () => {
      const png = await sharp({ create: { width: 200, height: 100, channels: 3, background: '#a52' } }).png().toBuffer();
      return { file: write('cut.png', png.subarray(0, png.length / 2)), expected: 'image' as const, reason: 'the file is cut short' };
    }],
    ['a GIF named .jpg', () => ({
      file: write('old.jpg', Buffer.from('GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;', 'latin1')),
      expected: 'image' as const,
      reason: 'not an image or video file we can read (it looks like a GIF picture, which is not taken: convert it to PNG or JPEG)',
    })],
    ['a file of zero bytes only', () => ({ file: write('zeros.mov', Buffer.alloc(300)), expected: 'video' as const, reason: 'the file holds nothing but zero bytes (a failed copy or download?)' })],
    ['a text file named .mp4', () => ({ file: write('notes.mp4', 'Good morning, shot list follows\n'), expected: 'video' as const, reason: 'not an image or video file we can read (it looks like a text file)' })],
    ['a picture named .mp4', async () => {
      const jpeg = await sharp({ create: { width: 20, height: 20, channels: 3, background: '#000' } }).jpeg().toBuffer();
      return { file: write('still.mp4', jpeg), expected: 'video' as const, reason: "it is a JPEG picture, not a video: give it a picture's extension" };
    }],
  ])('%s', async (_case, make) => {
    const { file, expected, reason } = await make();
    expect(await unreadableReason(file, expected, new Error('the decoder’s own words'))).toBe(reason);
  });

  it('names a file system refusal: permission denied, a file gone', async () => {
    const file = write('any.jpg', 'x');
    const denied = Object.assign(new Error('EACCES: permission denied, open'), { code: 'EACCES' });
    expect(await unreadableReason(file, 'image', new Error('could not be read', { cause: denied }))).toBe('permission denied');
    const gone = await fs.promises.readFile(path.join(dir, 'no-such.jpg')).catch((error: unknown) => error);
    expect(await unreadableReason(path.join(dir, 'no-such.jpg'), 'image', gone)).toBe('the file is gone (removed while the folder was read)');
  });
});

describe('a title from a file name', () => {
  it.each([
    ['harbour-at-dawn_0031.jpg', 'Harbour at dawn 0031'],
    ['trip/day 2/field.png', 'Field'],
    ['IMG_0042.JPG', 'IMG 0042'],
    ['old.town..square.tif', 'Old town square'],
    ['___.jpg', undefined],
  ])('%s → %s', (file, title) => {
    expect(titleFromFileName(file)).toBe(title);
  });
});

describe('product types that can never license an asset', () => {
  it('says why, from the licensing rules', () => {
    expect(unfitProductTypes({ assetType: 'video', family: 'creative', licenseModel: 'rightsmanaged', productTypes: ['imagepack', 'easyaccess', 'premiumaccess', 'creditpack'] })).toEqual([
      { productType: 'imagepack', reason: 'imagepack licenses images only, and the asset is a video' },
      { productType: 'easyaccess', reason: 'easyaccess licenses royaltyfree assets only, and the asset is rightsmanaged' },
    ]);
    expect(unfitProductTypes({ assetType: 'image', family: null, licenseModel: null, productTypes: ['creditpack', 'editorialsubscription'] })).toEqual([]);
  });
});
