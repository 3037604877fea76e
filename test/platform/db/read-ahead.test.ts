import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { endOfBTrees, StoreReadAhead } from '../../../src/platform/db/read-ahead.js';

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

  it('reads no further than the end it is given, the share counted within it', async () => {
    const ahead = (await StoreReadAhead.open(file, 10 * MiB, 16 * MiB))!;
    ahead.advance(0);
    await vi.waitFor(() => expect(ahead.bytesRead).toBe(10 * MiB));
    // half of the part up to the end is behind the reader: 8 MiB, and the margin past it stops at the end
    ahead.advance(0.5);
    await vi.waitFor(() => expect(ahead.bytesRead).toBe(16 * MiB));
    ahead.advance(1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(ahead.bytesRead).toBe(16 * MiB);
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

describe("where a SQLite file's b-trees end", () => {
  let dir: string;
  let file: string;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'btree-ends-'));
    file = path.join(dir, 'store.sqlite');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** A store laid out as a bulk load leaves one: two tables' rows interleaved, then a third table and an index made after them. */
  function writeStore(): { roots: Record<string, number>; lastLeaf: Record<string, number>; pageSize: number } {
    const db = new Database(file);
    db.exec('create table assets (id text primary key, body text); create table links (asset_id text, n integer, primary key (asset_id, n))');
    const asset = db.prepare('insert into assets values (?, ?)');
    const link = db.prepare('insert into links values (?, ?)');
    db.transaction(() => {
      for (let i = 0; i < 3000; i++) {
        const id = `a${String(i).padStart(6, '0')}`;
        asset.run(id, 'x'.repeat(200 + (i % 50)));
        for (let n = 0; n < 5; n++) link.run(id, n);
      }
    })();
    db.exec("create table later (body text); create index links_n on links (n)");
    db.prepare('insert into later values (?)').run('y'.repeat(100_000));
    const roots = Object.fromEntries((db.prepare('select name, rootpage from sqlite_schema where rootpage > 0').all() as Array<{ name: string; rootpage: number }>).map((r) => [r.name, r.rootpage]));
    const lastLeaf = Object.fromEntries(
      (db.prepare("select name, max(pageno) as page from dbstat where pagetype = 'leaf' group by name").all() as Array<{ name: string; page: number }>).map((r) => [r.name, r.page]),
    );
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    db.close();
    return { roots, lastLeaf, pageSize };
  }

  it("is the end of the last rightmost leaf, read off the file: before what was written after the trees' rows", async () => {
    const { roots, lastLeaf, pageSize } = writeStore();
    const size = fs.statSync(file).size;
    // down from the root, an interior page, to the assets' last leaf
    expect(await endOfBTrees(file, [roots.assets!])).toBe(lastLeaf.assets! * pageSize);
    expect(await endOfBTrees(file, [roots.sqlite_autoindex_links_1!])).toBe(lastLeaf.sqlite_autoindex_links_1! * pageSize);
    const both = await endOfBTrees(file, [roots.assets!, roots.links!, roots.sqlite_autoindex_links_1!]);
    expect(both).toBe(Math.max(lastLeaf.assets!, lastLeaf.links!, lastLeaf.sqlite_autoindex_links_1!) * pageSize);
    expect(both).toBeLessThan(size - 20 * pageSize);
    // the schema's own tree begins on page 1, after the file's header
    expect(await endOfBTrees(file, [1])).toBe(lastLeaf.sqlite_schema! * pageSize);
  });

  it('is not there for what is not a b-tree of a SQLite file', async () => {
    const { roots } = writeStore();
    const pages = fs.statSync(file).size / 4096;
    expect(await endOfBTrees(file, [pages + 1])).toBeUndefined();
    expect(await endOfBTrees(file, [0])).toBeUndefined();
    expect(await endOfBTrees(file, [])).toBeUndefined();
    expect(await endOfBTrees(path.join(dir, 'missing.sqlite'), [roots.assets!])).toBeUndefined();
    const notSqlite = path.join(dir, 'other.bin');
    fs.writeFileSync(notSqlite, Buffer.alloc(64 * 1024, 5));
    expect(await endOfBTrees(notSqlite, [2])).toBeUndefined();
    // a page that is no b-tree page (an overflow page of the large row)
    const db = new Database(file, { readonly: true });
    const overflow = (db.prepare("select pageno from dbstat where name = 'later' and pagetype = 'overflow' limit 1").get() as { pageno: number }).pageno;
    db.close();
    expect(await endOfBTrees(file, [overflow])).toBeUndefined();
  });
});
