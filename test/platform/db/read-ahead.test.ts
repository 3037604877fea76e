import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StoreReadAhead } from '../../../src/platform/db/read-ahead.js';

const MiB = 1024 * 1024;

describe("a store file's read-ahead", () => {
  let dir: string;
  let file: string;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'read-ahead-'));
    file = path.join(dir, 'store.sqlite');
    // 40 MiB and a little: the last read is a short one
    fs.writeFileSync(file, Buffer.alloc(40 * MiB + 4096, 7));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads the margin ahead of the share read, never further, and the file to its end at most', async () => {
    const ahead = (await StoreReadAhead.open(file, 10 * MiB))!;
    expect(ahead.bytesRead).toBe(0);
    ahead.advance(0);
    await vi.waitFor(() => expect(ahead.bytesRead).toBe(10 * MiB));
    ahead.advance(0.5);
    const half = Math.floor(0.5 * (40 * MiB + 4096));
    await vi.waitFor(() => expect(ahead.bytesRead).toBe(half + 10 * MiB));
    // a smaller share does not move it back, and nothing is read twice
    ahead.advance(0.25);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(ahead.bytesRead).toBe(half + 10 * MiB);
    ahead.advance(1);
    await vi.waitFor(() => expect(ahead.bytesRead).toBe(40 * MiB + 4096));
    await ahead.close();
  });

  it('stops reading when closed, after the reads in flight', async () => {
    const ahead = (await StoreReadAhead.open(file, 40 * MiB))!;
    ahead.advance(0);
    await ahead.close();
    const read = ahead.bytesRead;
    expect(read).toBeLessThan(40 * MiB);
    ahead.advance(1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(ahead.bytesRead).toBe(read);
  });

  it('is not there for a file that cannot be opened', async () => {
    expect(await StoreReadAhead.open(path.join(dir, 'missing.sqlite'))).toBeUndefined();
  });
});
