import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_TRANSFER_BYTES, openSnapshotFile, readFully, writeFully, writeSnapshotFile } from '../../src/search/search-snapshot.js';

/*
 * A snapshot's sections outgrow what one read or write call can move (2 GiB for Node's read,
 * whose length is a 32-bit integer; a little less for Linux): every transfer goes in pieces.
 * The pieces are tested at a small size, the same loop as at a gigabyte.
 */
describe('snapshot file transfers', () => {
  let folder: string;
  beforeEach(() => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'snapshot-transfers-'));
  });
  afterEach(() => {
    vi.restoreAllMocks();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  const bytes = (length: number) => Uint8Array.from({ length }, (_, i) => (i * 7 + 3) & 0xff);

  it('are needed: a read of 4 GiB and more is taken as a small one by Node, and one of 2 GiB refused', () => {
    const file = path.join(folder, 'small');
    fs.writeFileSync(file, bytes(16));
    const fd = fs.openSync(file, 'r');
    try {
      // 2^32 + 1 bytes asked, one read: the length wrapped to 1
      expect(fs.readSync(fd, Buffer.alloc(16), 0, 2 ** 32 + 1, 0)).toBe(1);
      expect(() => fs.readSync(fd, Buffer.alloc(16), 0, 2 ** 31, 0)).toThrow(RangeError);
    } finally {
      fs.closeSync(fd);
    }
    expect(MAX_TRANSFER_BYTES).toBeLessThan(2 ** 31 - 4096);
  });

  it('read a section in pieces of at most the limit', () => {
    const file = path.join(folder, 'data');
    const content = bytes(1000);
    fs.writeFileSync(file, content);
    const reads = vi.spyOn(fs, 'readSync');
    const fd = fs.openSync(file, 'r');
    try {
      const target = new Uint8Array(900);
      readFully(fd, target, 100, 64);
      expect(target).toEqual(content.subarray(100));
      expect(reads.mock.calls.length).toBe(Math.ceil(900 / 64));
      expect(Math.max(...reads.mock.calls.map((call) => (call as unknown[])[3] as number))).toBe(64);
      expect(() => readFully(fd, new Uint8Array(10), 995, 64)).toThrow(/cut short/);
    } finally {
      fs.closeSync(fd);
    }
  });

  it('write in pieces of at most the limit and go on after a short write', async () => {
    const written: number[] = [];
    const received: number[] = [];
    // a file that takes at most 5 bytes a call, whatever is asked
    const handle = {
      write: async (buffer: Uint8Array, offset: number, length: number) => {
        written.push(length);
        const taken = Math.min(5, length);
        received.push(...buffer.subarray(offset, offset + taken));
        return { bytesWritten: taken, buffer };
      },
    };
    const content = bytes(103);
    await writeFully(handle as never, content, 16);
    expect(Uint8Array.from(received)).toEqual(content);
    expect(Math.max(...written)).toBe(16);
    await expect(writeFully({ write: async (buffer: Uint8Array) => ({ bytesWritten: 0, buffer }) } as never, content)).rejects.toThrow(/no bytes/);
  });

  it('give back a file of many chunks exactly, section by section', async () => {
    const file = path.join(folder, 'index.snapshot');
    const first = [bytes(13), bytes(1), bytes(300)];
    const second = [bytes(8)];
    await writeSnapshotFile(file, { storeId: 's', seq: 42, documents: 'd' }, new Map([['first', first], ['second', second], ['empty', []]]));
    const opened = openSnapshotFile(file)!;
    try {
      expect(opened.header).toEqual({ storeId: 's', seq: 42, documents: 'd' });
      expect(new Uint8Array(opened.sections.get('first')!.bytes())).toEqual(Uint8Array.from([...first[0]!, ...first[1]!, ...first[2]!]));
      expect(new Uint8Array(opened.sections.get('second')!.bytes())).toEqual(second[0]);
      expect(opened.sections.get('empty')!.length).toBe(0);
      const part = new Uint8Array(10);
      opened.sections.get('first')!.read(12, part);
      expect(part).toEqual(Uint8Array.from([...first[0]!, ...first[1]!, ...first[2]!]).subarray(12, 22));
    } finally {
      opened.close();
    }
  });

  it('of one file written twice at once by one process give one whole snapshot, and leave no temporary', async () => {
    const file = path.join(folder, 'index.snapshot');
    // large enough that the two writes interleave over many calls
    const write = (seq: number, fill: number) =>
      writeSnapshotFile(file, { storeId: 's', seq, documents: 'd' }, new Map([['body', Array.from({ length: 64 }, () => new Uint8Array(65_536).fill(fill))]]));
    await Promise.all([write(1, 1), write(2, 2)]);
    const opened = openSnapshotFile(file)!;
    try {
      const fill = opened.header.seq;
      const body = new Uint8Array(opened.sections.get('body')!.bytes());
      expect(body.length).toBe(64 * 65_536);
      expect(body.every((byte) => byte === fill)).toBe(true);
    } finally {
      opened.close();
    }
    expect(fs.readdirSync(folder)).toEqual(['index.snapshot']);
  });

  it('that fail midway leave the last snapshot as it was, and no temporary', async () => {
    const file = path.join(folder, 'index.snapshot');
    await writeSnapshotFile(file, { storeId: 's', seq: 1, documents: 'd' }, new Map([['body', [bytes(10)]]]));
    const released = {
      length: 10,
      read() {
        throw new Error('a read of snapshot bytes already released');
      },
      release() {},
    };
    await expect(writeSnapshotFile(file, { storeId: 's', seq: 2, documents: 'd' }, new Map([['body', [released as never]]]))).rejects.toThrow(/released/);
    expect(fs.readdirSync(folder)).toEqual(['index.snapshot']);
    const opened = openSnapshotFile(file)!;
    expect(opened.header.seq).toBe(1);
    opened.close();
  });
});
