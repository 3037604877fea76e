import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHUNK_LINES, decodeChunk, encodeChunk, isBatched, type ManifestChunk, type ManifestReading } from '../../src/catalog/ingest/manifest-lines.js';
import { readManifest } from '../../src/catalog/ingest/manifest-reader.js';

/*
 * A long ingest reads its manifest in a worker thread (manifest-reader.ts): the worker parses and
 * checks the lines and sends them as text. What the ingest's loop takes must be what it takes when
 * it reads the lines itself: the same items, the same line numbers, the same fields named (those
 * given as null too), the same lines left for it to refuse with their reason.
 */

let folder: string;
beforeAll(() => {
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-manifest-reader-'));
});
afterAll(() => fs.rmSync(folder, { recursive: true, force: true }));

/** Every chunk read, the worker's way or this thread's. */
async function chunksOf(file: string, reading: ManifestReading, inWorker: boolean): Promise<ManifestChunk[]> {
  const chunks: ManifestChunk[] = [];
  for await (const chunk of readManifest(file, reading, inWorker)) chunks.push(chunk);
  return chunks;
}

const image = (n: number, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ asset_type: 'image', id: `m-${n}`, title: `Picture ${n}`, date_created: '2020-02-29T10:00:00+02:00', keywords: ['harbour', { text: 'boat', keyword_id: 7 }], ...extra });

/** 2,500 lines of every kind a manifest holds, with a byte order mark, blank lines and CRLF endings. */
function mixedManifest(): { file: string; lines: string[] } {
  const lines: string[] = [];
  for (let n = 1; n <= 2_500; n++) {
    if (n % 500 === 7) lines.push('{"asset_type":"image","id":'); // not JSON
    else if (n % 500 === 8) lines.push(JSON.stringify({ asset_type: 'image', id: `m-${n}`, date_created: '2021-02-30' })); // refused by its check
    else if (n % 500 === 9) lines.push(JSON.stringify({ asset_type: 'image', id: `m-${n}`, file: 'pictures/one.jpg' })); // names a file
    else if (n % 500 === 10) lines.push('   ');
    else if (n % 500 === 11) lines.push(image(n, { caption: null, city: null })); // fields named as null
    else if (n % 500 === 12) lines.push(JSON.stringify({ asset_type: 'event', id: n, name: `Event ${n}`, start_date: '2022-06-01', keywords: ['final'] }));
    else lines.push(image(n));
  }
  const file = path.join(folder, 'mixed.jsonl');
  fs.writeFileSync(file, `\uFEFF${lines.join('\r\n')}\r\n\r\n`);
  return { file, lines };
}

describe('the manifest read in a worker thread', () => {
  it('gives the items this thread makes of the lines: parsed and checked, or left as text to be refused', async () => {
    const { file } = mixedManifest();
    const reading = { resumeAfter: 0, batchable: true };
    const here = await chunksOf(file, reading, false);
    const inWorker = await chunksOf(file, reading, true);
    expect(inWorker).toEqual(here);

    const items = here.flatMap((chunk) => chunk.items);
    // Five blank lines of 2,500 are skipped; the others keep their numbers.
    expect(items).toHaveLength(2_495);
    expect(here.map((chunk) => chunk.items.length)).toEqual([CHUNK_LINES, CHUNK_LINES, 495]);
    const byLine = new Map(items.map((item) => [item.lineNumber, item]));
    expect(byLine.has(10)).toBe(false);
    // Lines that are not JSON, that their check refuses or that name a file come as read.
    expect(byLine.get(7)).toEqual({ lineNumber: 7, text: '{"asset_type":"image","id":' });
    expect(byLine.get(508)).toEqual({ lineNumber: 508, text: JSON.stringify({ asset_type: 'image', id: 'm-508', date_created: '2021-02-30' }) });
    expect(isBatched(byLine.get(9)!)).toBe(false);
    // The first line lost its byte order mark; its date is normalised to UTC, its keywords to objects.
    const first = byLine.get(1)!;
    expect(isBatched(first) && first.record).toMatchObject({ id: 'm-1', date_created: '2020-02-29T08:00:00Z', keywords: [{ text: 'harbour' }, { text: 'boat', keyword_id: 7 }] });
    // A field given as null is named (it clears a stored value) though the record leaves it out.
    const cleared = byLine.get(511)!;
    expect(isBatched(cleared) && [...cleared.named].sort()).toEqual(['asset_type', 'caption', 'city', 'date_created', 'id', 'keywords', 'title']);
    expect(isBatched(cleared) && 'caption' in cleared.record).toBe(false);
    const event = byLine.get(1012)!;
    expect(isBatched(event) && event.record).toMatchObject({ asset_type: 'event', id: 1012, start_date: '2022-06-01T00:00:00Z' });
  });

  it('counts the lines a stopped run did, and on a dry run leaves every line as text', async () => {
    const { file } = mixedManifest();
    const resumed = await chunksOf(file, { resumeAfter: 1_203, batchable: true }, true);
    expect(resumed).toEqual(await chunksOf(file, { resumeAfter: 1_203, batchable: true }, false));
    // Lines 1 to 1,203, of which three are blank (10, 510 and 1,010): 1,200.
    expect(resumed.reduce((sum, chunk) => sum + chunk.earlier, 0)).toBe(1_200);
    expect(resumed.flatMap((chunk) => chunk.items)[0]!.lineNumber).toBe(1_204);

    const dry = (await chunksOf(file, { resumeAfter: 0, batchable: false }, true)).flatMap((chunk) => chunk.items);
    expect(dry).toHaveLength(2_495);
    expect(dry.every((item) => !isBatched(item))).toBe(true);
    expect(dry[0]).toEqual({ lineNumber: 1, text: image(1) });
  });

  it('carries a record through its text exactly, and says which fields a line named beyond the record’s', () => {
    const chunk: ManifestChunk = {
      earlier: 3,
      items: [
        { lineNumber: 4, record: { asset_type: 'image', id: 'x', title: 'Ünïcode \u2028 "quoted"', quality_rank: 0 }, named: new Set(['asset_type', 'id', 'title', 'quality_rank']) },
        { lineNumber: 5, record: { asset_type: 'image', id: 'y' }, named: new Set(['asset_type', 'id', 'caption']) },
        { lineNumber: 6, text: 'not json \u0000 at all' },
      ],
    };
    expect(decodeChunk(encodeChunk(chunk))).toEqual(chunk);
    expect(encodeChunk(chunk)).toContain('"caption"');
  });

  it('reports a manifest it cannot read, and stops its worker when the reader stops taking chunks', async () => {
    await expect(chunksOf(folder, { resumeAfter: 0, batchable: true }, true)).rejects.toThrow(`cannot read the manifest ${folder}: EISDIR`);
    const file = path.join(folder, 'long.jsonl');
    fs.writeFileSync(file, `${Array.from({ length: 10_000 }, (_, n) => image(n)).join('\n')}\n`);
    let taken = 0;
    for await (const chunk of readManifest(file, { resumeAfter: 0, batchable: true }, true)) {
      taken += chunk.items.length;
      break;
    }
    expect(taken).toBe(CHUNK_LINES);
  });
});
