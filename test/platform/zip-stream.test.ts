import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { zipStream, type ZipEntry } from '../../src/platform/zip-stream.js';

async function zipOf(entries: ZipEntry[]): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of zipStream(entries)) parts.push(part);
  return Buffer.concat(parts);
}

async function* chunksOf(bytes: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let start = 0; start < bytes.length; start += size) yield bytes.subarray(start, start + size);
}

/** Python's zipfile reads the archive back: names, sizes, and testzip's CRC check of every entry. */
function readBack(zip: Buffer): { bad: string | null; entries: Array<{ name: string; size: number; sha: string }> } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zip-stream-'));
  try {
    const file = path.join(dir, 'test.zip');
    fs.writeFileSync(file, zip);
    const script = [
      'import sys, zipfile, json, hashlib',
      'z = zipfile.ZipFile(sys.argv[1])',
      'print(json.dumps({"bad": z.testzip(), "entries": [{"name": i.filename, "size": i.file_size, "sha": hashlib.sha256(z.read(i)).hexdigest()} for i in z.infolist()]}))',
    ].join('\n');
    return JSON.parse(execFileSync('python3', ['-c', script, file], { encoding: 'utf8' })) as ReturnType<typeof readBack>;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('zipStream', () => {
  it('writes stored entries that a zip reader lists and whose CRCs check', async () => {
    const big = Buffer.alloc(300_000);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7919) % 251;
    const text = Buffer.from('asset_id,title\n"1","Café à Paris"\n', 'utf8');
    const zip = await zipOf([
      { name: 'pictures/one.bin', modified: new Date('2024-05-06T07:08:10Z'), data: chunksOf(big, 65_536) },
      { name: 'empty.txt', modified: new Date('2024-05-06T07:08:10Z'), data: Buffer.alloc(0) },
      { name: 'manifest – credits.csv', modified: new Date('2024-05-06T07:08:10Z'), data: text },
    ]);
    const read = readBack(zip);
    expect(read.bad).toBeNull();
    expect(read.entries).toEqual([
      { name: 'pictures/one.bin', size: big.length, sha: sha(big) },
      { name: 'empty.txt', size: 0, sha: sha(Buffer.alloc(0)) },
      { name: 'manifest – credits.csv', size: text.length, sha: sha(text) },
    ]);
  });

  it('writes an empty archive as an end record alone', async () => {
    const zip = await zipOf([]);
    expect(zip.length).toBe(22);
    expect(readBack(zip)).toEqual({ bad: null, entries: [] });
  });

  it('refuses a name twice, an absolute path and a way out of the folder', async () => {
    const at = new Date();
    await expect(zipOf([{ name: 'a', modified: at, data: Buffer.from('1') }, { name: 'a', modified: at, data: Buffer.from('2') }])).rejects.toThrow(/two entries/);
    await expect(zipOf([{ name: '/etc/passwd', modified: at, data: Buffer.from('1') }])).rejects.toThrow(/relative/);
    await expect(zipOf([{ name: 'a/../../b', modified: at, data: Buffer.from('1') }])).rejects.toThrow(/relative/);
  });
});
