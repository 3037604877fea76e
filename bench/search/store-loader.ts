import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import type { AssetInput, AssetRecord, KeywordInput } from '../../src/catalog/catalog.records.js';
import { CatalogRepository } from '../../src/catalog/catalog.repository.js';
import { migrateToLatest, openDatabase } from '../../src/platform/db/database.js';
import { COLLECTIONS, KEYWORD_IDS, storedRecord, type SyntheticCatalogue } from './catalogue.js';
import { NOT_IN_DETAILS } from '../../src/catalog/catalog.repository.js';

/*
 * Writes the synthetic catalogue into a store that the real code created and migrated, with
 * better-sqlite3 prepared statements in large transactions: the rows CatalogRepository.upsertAsset
 * would write (assets with their `details` JSON, artists, collections, keywords, asset_keywords,
 * asset_events, events, and one change-log entry per write), at a small fraction of its cost.
 * checkAgainstRepository() proves the point on a sample: the same records written one by one
 * through the repository read back identical.
 */


/** The `details` object upsertAsset stores for these fields. */
export function detailsOf(fields: Record<string, unknown>): Record<string, unknown> {
  const details: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    if (!NOT_IN_DETAILS.has(name) && value !== undefined) details[name] = value;
  }
  return details;
}

/** The record the repository reads back for an asset of the synthetic catalogue. */
export function recordOf(input: AssetInput): AssetRecord {
  return storedRecord(input, detailsOf);
}

export interface LoadReport {
  assets: number;
  assetKeywords: number;
  keywords: number;
  artists: number;
  events: number;
  seconds: number;
  bytes: number;
}

const BATCH = 20_000;

/**
 * Rows for one table, written by a multi-row insert once `chunk` of them are waiting: one
 * statement per hundred rows instead of per row.
 */
class RowBuffer {
  private readonly many: SqliteDatabase.Statement;
  private readonly one: SqliteDatabase.Statement;
  private values: unknown[] = [];

  constructor(
    db: SqliteDatabase.Database,
    head: string,
    private readonly columns: number,
    private readonly chunk = 100,
  ) {
    const row = `(${Array.from({ length: columns }, () => '?').join(', ')})`;
    this.many = db.prepare(`${head} values ${Array.from({ length: chunk }, () => row).join(', ')}`);
    this.one = db.prepare(`${head} values ${row}`);
  }

  push(...row: unknown[]): void {
    for (const value of row) this.values.push(value);
    if (this.values.length === this.columns * this.chunk) {
      this.many.run(this.values);
      this.values = [];
    }
  }

  /** Writes what is waiting; call it before the transaction ends. */
  flush(): void {
    for (let i = 0; i < this.values.length; i += this.columns) this.one.run(this.values.slice(i, i + this.columns));
    this.values = [];
  }
}

/** Bulk-loads the catalogue into the SQLite store at `file` (created and migrated, no server running on it). */
export function loadCatalogue(file: string, catalogue: SyntheticCatalogue, onProgress?: (done: number, total: number) => void): LoadReport {
  const started = performance.now();
  const db = new SqliteDatabase(file);
  // One writer and a scratch store: no journal while loading; WAL again (as openDatabase sets it) afterwards.
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -262144');
  db.pragma('temp_store = MEMORY');
  // The rows are consistent by construction; checking every reference would double the work.
  db.pragma('foreign_keys = OFF');
  // Secondary indexes are dropped while loading and rebuilt afterwards from their own
  // definitions (a sorted build is several times faster than row-by-row upkeep).
  const indexes = db
    .prepare(
      `select name, sql from sqlite_master where type = 'index' and sql is not null
       and tbl_name in ('assets', 'artists', 'keywords', 'asset_keywords', 'asset_events', 'events', 'change_log')`,
    )
    .all() as Array<{ name: string; sql: string }>;
  for (const index of indexes) db.exec(`drop index "${index.name}"`);
  const now = () => new Date().toISOString();
  const logChange = db.prepare('insert into change_log (entity_type, entity_id, operation, changed_at) values (?, ?, ?, ?)');
  const changes = new RowBuffer(db, 'insert into change_log (entity_type, entity_id, operation, changed_at)', 4);
  const insertCollection = db.prepare(
    'insert into collections (id, code, name, asset_family, license_model, product_types) values (?, ?, ?, ?, ?, ?)',
  );
  const insertEvent = db.prepare(
    `insert into events (id, name, start_date, parent_id, type, editorial_segments, hero_image_id, city, country, state_province, venue, keywords, updated_at)
     values (?, ?, ?, null, ?, ?, null, ?, ?, ?, ?, ?, ?)`,
  );
  const insertArtist = db.prepare('insert into artists (name) values (?)');
  const insertKeyword = db.prepare(
    `insert into keywords (id, text, type, entity_uris, entity_types, translations) values (?, ?, ?, '[]', '[]', '{}')`,
  );
  const insertAsset = db.prepare(
    `insert into assets (id, asset_type, asset_family, title, caption, artist_id, collection_id, license_model, orientation,
       max_width, max_height, quality_rank, date_created, date_submitted, details, original_key, original_media_type,
       visual_signature, updated_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, null, null, null, ?)`,
  );
  const assetKeywordRows = new RowBuffer(db, 'insert into asset_keywords (asset_id, keyword_id, relevance, position)', 4);
  const insertAssetEvent = db.prepare('insert into asset_events (asset_id, event_id) values (?, ?)');

  const events = catalogue.events();
  db.transaction(() => {
    const at = now();
    for (const c of COLLECTIONS) {
      insertCollection.run(c.id, c.code, c.name, c.asset_family, c.license_model, JSON.stringify(c.product_types));
      logChange.run('collection', String(c.id), 'insert', at);
    }
    for (const e of events) {
      insertEvent.run(
        e.id,
        e.name,
        e.start_date ?? null,
        e.type ?? null,
        JSON.stringify(e.editorial_segments ?? []),
        e.location?.city ?? null,
        e.location?.country ?? null,
        e.location?.state_province ?? null,
        e.location?.venue ?? null,
        JSON.stringify(e.keywords ?? []),
        at,
      );
      logChange.run('event', String(e.id), 'insert', at);
    }
  })();

  const artistIds = new Map<string, number>();
  const keywordSeen = new Uint8Array(KEYWORD_IDS.limit);
  let keywords = 0;
  let assetKeywords = 0;
  let assets = 0;
  const writeBatch = db.transaction((batch: AssetInput[]) => {
    const at = now();
    for (const input of batch) {
      const f = input.fields;
      const artist = f.artist as string;
      let artistId = artistIds.get(artist);
      if (artistId === undefined) {
        artistId = Number(insertArtist.run(artist).lastInsertRowid);
        artistIds.set(artist, artistId);
      }
      const dimensions = f.max_dimensions as { width: number; height: number };
      insertAsset.run(
        input.id,
        input.asset_type,
        f.asset_family as string,
        f.title as string,
        f.caption as string,
        artistId,
        f.collection_id as number,
        f.license_model as string,
        f.orientation as string,
        dimensions.width,
        dimensions.height,
        f.quality_rank as number,
        f.date_created as string,
        f.date_submitted as string,
        JSON.stringify(detailsOf(f)),
        at,
      );
      const list = f.keywords as KeywordInput[];
      for (let position = 0; position < list.length; position++) {
        const k = list[position]!;
        const keywordId = k.keyword_id as number;
        if (keywordSeen[keywordId] === 0) {
          keywordSeen[keywordId] = 1;
          insertKeyword.run(keywordId, k.text, k.type ?? null);
          keywords++;
        }
        assetKeywordRows.push(input.id, keywordId, k.relevance ?? null, position);
        assetKeywords++;
      }
      for (const eventId of (f.event_ids as number[] | undefined) ?? []) insertAssetEvent.run(input.id, eventId);
      changes.push(input.asset_type, input.id, 'insert', at);
      assets++;
    }
    assetKeywordRows.flush();
    changes.flush();
  });

  let batch: AssetInput[] = [];
  for (const input of catalogue.assets()) {
    batch.push(input);
    if (batch.length === BATCH) {
      writeBatch(batch);
      batch = [];
      onProgress?.(assets, catalogue.size);
    }
  }
  if (batch.length > 0) writeBatch(batch);
  onProgress?.(assets, catalogue.size);
  for (const index of indexes) db.exec(index.sql);
  db.pragma('journal_mode = WAL');
  db.close();
  return {
    assets,
    assetKeywords,
    keywords,
    artists: artistIds.size,
    events: events.length,
    seconds: (performance.now() - started) / 1000,
    bytes: fs.statSync(file).size,
  };
}

/** JSON with object keys sorted, so that two records compare whatever order their fields came in. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

export interface FidelityReport {
  sample: number;
  identical: number;
  /** CatalogRepository.upsertAsset, one asset at a time, into a fresh store */
  repositoryAssetsPerSecond: number;
}

/**
 * Writes the first `sample` assets one by one through CatalogRepository.upsertAsset into a
 * scratch store, then reads them back from it and from the bulk-loaded store: both must equal
 * the record the benchmark indexes (storedRecord).
 */
export async function checkAgainstRepository(catalogue: SyntheticCatalogue, storeFile: string, scratchDir: string, sample: number): Promise<FidelityReport> {
  const inputs: AssetInput[] = [];
  for (const input of catalogue.assets()) {
    if (inputs.length === sample) break;
    inputs.push(input);
  }
  fs.mkdirSync(scratchDir, { recursive: true });
  const scratch = await openDatabase({ sqliteFile: path.join(scratchDir, 'stockroom.sqlite') });
  const bulk = await openDatabase({ sqliteFile: storeFile });
  try {
    await migrateToLatest(scratch);
    const repository = new CatalogRepository(scratch.db, 'sqlite');
    const started = performance.now();
    for (const input of inputs) await repository.upsertAsset(input);
    const seconds = (performance.now() - started) / 1000;
    const ids = inputs.map((i) => i.id);
    const viaRepository = new Map((await repository.findAssets('image', ids)).map((r) => [r.id, canonical(r)]));
    const viaBulk = new Map((await new CatalogRepository(bulk.db, 'sqlite').findAssets('image', ids)).map((r) => [r.id, canonical(r)]));
    let identical = 0;
    for (const input of inputs) {
      const expected = canonical(recordOf(input));
      if (viaRepository.get(input.id) === expected && viaBulk.get(input.id) === expected) identical++;
    }
    return { sample: inputs.length, identical, repositoryAssetsPerSecond: inputs.length / seconds };
  } finally {
    await scratch.close();
    await bulk.close();
  }
}

/**
 * Gathers the query planner's statistics (sqlite_stat1), which the ingest never does: a
 * BENCH_ANALYZE=1 run measures the server on a store with them. Returns the seconds it took.
 */
export function analyzeStore(file: string): number {
  const started = performance.now();
  const db = new SqliteDatabase(file);
  db.exec('analyze');
  db.close();
  return (performance.now() - started) / 1000;
}
