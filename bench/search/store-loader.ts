import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import type { AssetInput, AssetRecord, KeywordInput, OriginalFile, StoredKeyword } from '../../src/catalog/catalog.records.js';
import { assetColumns, assetRecord, CatalogRepository, eventColumns } from '../../src/catalog/catalog.repository.js';
import { changeEntry } from '../../src/platform/db/change-log.js';
import { migrateToLatest, openDatabase } from '../../src/platform/db/database.js';
import { COLLECTIONS, KEYWORD_IDS, type SyntheticCatalogue } from './catalogue.js';

/*
 * Writes the synthetic catalogue into a store that the real code created and migrated, with
 * better-sqlite3 prepared statements in large transactions: the rows CatalogRepository.upsertAsset
 * would write (assets with their `details` JSON, artists, collections, keywords, asset_keywords,
 * asset_events, events, and one change-log entry per write), at a small fraction of its cost.
 * The asset, event and change-log rows are made by the repository's own functions (assetColumns,
 * eventColumns, changeEntry), so a column the write path gains is written here too.
 * checkAgainstRepository() proves the point on a sample: the same records written one by one
 * through the repository give the same rows and read back identical.
 */

const COLLECTION_OF = new Map(COLLECTIONS.map((c) => [c.id, c]));

/** The record the repository reads back for an asset of the synthetic catalogue, as loadCatalogue writes it. */
export function recordOf(input: AssetInput): AssetRecord {
  const f = input.fields;
  const collection = COLLECTION_OF.get(f.collection_id as number);
  const columns = assetColumns(input, null, collection?.id ?? null, '');
  const keywords: StoredKeyword[] = [];
  const seen = new Set<string>();
  for (const k of (f.keywords as KeywordInput[] | undefined) ?? []) {
    const id = String(k.keyword_id);
    if (seen.has(id)) continue;
    seen.add(id);
    keywords.push({ keyword_id: id, text: k.text, type: k.type ?? null, relevance: k.relevance ?? null, entity_uris: [], entity_types: [], translations: {} });
  }
  const eventIds = [...new Set((f.event_ids as number[] | undefined) ?? [])].sort((a, b) => a - b);
  return assetRecord(
    {
      id: input.id,
      ...columns,
      media_facts: (columns as { media_facts?: string | null }).media_facts ?? null,
      download_count: 0,
      artist: (f.artist as string | undefined) ?? null,
      collection_id: collection?.id ?? null,
      collection_code: collection?.code ?? null,
      collection_name: collection?.name ?? null,
    },
    keywords,
    eventIds,
  );
}

export interface LoadOptions {
  onProgress?: (done: number, total: number) => void;
  /** The original file each asset names (the catalogue itself is metadata only). */
  originalOf?: (input: AssetInput) => OriginalFile | undefined;
}

/** The inputs as loadCatalogue writes them: the catalogue's, with their originals when `originalOf` gives them. */
export function* inputsOf(catalogue: SyntheticCatalogue, options: LoadOptions = {}): Generator<AssetInput> {
  const { originalOf } = options;
  for (const input of catalogue.assets()) yield originalOf ? { ...input, original: originalOf(input) } : input;
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

/**
 * Single-row inserts into one table of rows given as objects (column → value): one prepared
 * statement per set of columns, as the repository's functions leave a column out when they
 * have nothing to say of it (media facts an input does not give).
 */
class RowInserts {
  private readonly statements = new Map<string, SqliteDatabase.Statement>();

  constructor(
    private readonly db: SqliteDatabase.Database,
    private readonly table: string,
  ) {}

  run(row: Record<string, unknown>): SqliteDatabase.RunResult {
    const columns = Object.keys(row);
    const key = columns.join(',');
    let statement = this.statements.get(key);
    if (!statement) {
      statement = this.db.prepare(`insert into ${this.table} (${columns.map((c) => `"${c}"`).join(', ')}) values (${columns.map(() => '?').join(', ')})`);
      this.statements.set(key, statement);
    }
    return statement.run(Object.values(row));
  }
}

/** The change-log columns, in changeEntry's order. */
const CHANGE_COLUMNS = Object.keys(changeEntry('image', '', 'insert', null, ''));

/** Bulk-loads the catalogue into the SQLite store at `file` (created and migrated, no server running on it). */
export function loadCatalogue(file: string, catalogue: SyntheticCatalogue, options: LoadOptions = {}): LoadReport {
  const { onProgress } = options;
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
  const changeHead = `insert into change_log (${CHANGE_COLUMNS.join(', ')})`;
  const logChange = db.prepare(`${changeHead} values (${CHANGE_COLUMNS.map(() => '?').join(', ')})`);
  const changes = new RowBuffer(db, changeHead, CHANGE_COLUMNS.length);
  const insertCollection = db.prepare(
    'insert into collections (id, code, name, asset_family, license_model, product_types) values (?, ?, ?, ?, ?, ?)',
  );
  const events = new RowInserts(db, 'events');
  const insertArtist = db.prepare('insert into artists (name) values (?)');
  const insertKeyword = db.prepare(
    `insert into keywords (id, text, type, entity_uris, entity_types, translations) values (?, ?, ?, '[]', '[]', '{}')`,
  );
  const assetRows = new RowInserts(db, 'assets');
  const assetKeywordRows = new RowBuffer(db, 'insert into asset_keywords (asset_id, keyword_id, relevance, position)', 4);
  const insertAssetEvent = db.prepare('insert into asset_events (asset_id, event_id) values (?, ?)');

  const eventInputs = catalogue.events();
  db.transaction(() => {
    const at = now();
    for (const c of COLLECTIONS) {
      insertCollection.run(c.id, c.code, c.name, c.asset_family, c.license_model, JSON.stringify(c.product_types));
      logChange.run(Object.values(changeEntry('collection', String(c.id), 'insert', null, at)));
    }
    for (const e of eventInputs) {
      events.run({ id: e.id, ...eventColumns(e, at) });
      logChange.run(Object.values(changeEntry('event', String(e.id), 'insert', null, at)));
    }
  })();

  const artistIds = new Map<string, number>();
  // the asset (its ordinal + 1) a keyword was last linked to; 0: not written yet
  const linkedTo = new Uint32Array(KEYWORD_IDS.limit);
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
      assetRows.run({ id: input.id, ...assetColumns(input, artistId, f.collection_id as number, at) });
      // As upsertAsset: a keyword listed twice is linked once, at its first position.
      const list = f.keywords as KeywordInput[];
      for (let position = 0; position < list.length; position++) {
        const k = list[position]!;
        const keywordId = Number(k.keyword_id);
        const linked = linkedTo[keywordId]!;
        if (linked === assets + 1) continue;
        if (linked === 0) {
          insertKeyword.run(keywordId, k.text, k.type ?? null);
          keywords++;
        }
        linkedTo[keywordId] = assets + 1;
        assetKeywordRows.push(input.id, keywordId, k.relevance ?? null, position);
        assetKeywords++;
      }
      for (const eventId of new Set((f.event_ids as number[] | undefined) ?? [])) insertAssetEvent.run(input.id, eventId);
      changes.push(...Object.values(changeEntry(input.asset_type, input.id, 'insert', (f.asset_family as string | undefined) ?? null, at)));
      assets++;
    }
    assetKeywordRows.flush();
    changes.flush();
  });

  let batch: AssetInput[] = [];
  for (const input of inputsOf(catalogue, options)) {
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
    events: eventInputs.length,
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

/** Rows of one table, keyed by their identity, with the columns that differ by nature (numbers drawn, times) left out. */
type Rows = Map<string, string>;

/**
 * The rows the sample's writes left in a store: its assets (the artist by name), their keyword
 * links, event links, keywords and events, and their change-log entries.
 */
function sampleRows(file: string, ids: readonly string[], eventIds: readonly number[]): Record<string, Rows> {
  const db = new SqliteDatabase(file, { readonly: true });
  try {
    const list = (n: number) => Array.from({ length: n }, () => '?').join(', ');
    const rows = (sql: string, params: readonly unknown[], key: (row: Record<string, unknown>) => string, drop: readonly string[] = []): Rows => {
      const found: Rows = new Map();
      for (const row of db.prepare(sql).all(...params) as Array<Record<string, unknown>>) {
        const id = key(row);
        for (const column of drop) delete row[column];
        found.set(id, canonical(row));
      }
      return found;
    };
    const keywordIds = (db.prepare(`select distinct keyword_id from asset_keywords where asset_id in (${list(ids.length)})`).all(...ids) as Array<{ keyword_id: number }>).map(
      (r) => r.keyword_id,
    );
    return {
      assets: rows(
        `select assets.*, artists.name as artist_name from assets left join artists on artists.id = assets.artist_id where assets.id in (${list(ids.length)})`,
        ids,
        (r) => String(r.id),
        ['artist_id', 'updated_at'],
      ),
      asset_keywords: rows(`select * from asset_keywords where asset_id in (${list(ids.length)})`, ids, (r) => `${r.asset_id} ${r.keyword_id}`),
      asset_events: rows(`select * from asset_events where asset_id in (${list(ids.length)})`, ids, (r) => `${r.asset_id} ${r.event_id}`),
      keywords: rows(`select * from keywords where id in (${list(keywordIds.length)})`, keywordIds, (r) => String(r.id)),
      events: rows(`select * from events where id in (${list(eventIds.length)})`, eventIds, (r) => String(r.id), ['updated_at']),
      change_log: rows(
        `select * from change_log where entity_type in ('image', 'video') and entity_id in (${list(ids.length)})`,
        ids,
        (r) => `${r.entity_type} ${r.entity_id} ${r.operation}`,
        ['seq', 'changed_at'],
      ),
    };
  } finally {
    db.close();
  }
}

/** What differs between the rows the repository wrote and the rows the bulk loader wrote, a line each. */
function rowDifferences(viaRepository: Record<string, Rows>, viaBulk: Record<string, Rows>): string[] {
  const differences: string[] = [];
  for (const [table, expected] of Object.entries(viaRepository)) {
    const actual = viaBulk[table]!;
    for (const key of new Set([...expected.keys(), ...actual.keys()])) {
      const want = expected.get(key);
      const got = actual.get(key);
      if (want === got) continue;
      if (want === undefined || got === undefined) {
        differences.push(`${table} ${key}: ${want === undefined ? 'only the bulk loader writes it' : 'the bulk loader does not write it'}`);
        continue;
      }
      const a = JSON.parse(want) as Record<string, unknown>;
      const b = JSON.parse(got) as Record<string, unknown>;
      const columns = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((c) => canonical(a[c]) !== canonical(b[c]));
      differences.push(`${table} ${key}: ${columns.map((c) => `${c} is ${canonical(b[c])} in bulk, ${canonical(a[c])} through the repository`).join('; ')}`);
    }
  }
  return differences;
}

/**
 * Writes the first `sample` assets (and the events they belong to) one by one through
 * CatalogRepository into a scratch store, then compares: the rows each store holds for them
 * (every column but ids drawn and times), and the records read back from each, which must
 * also equal the record the benchmark indexes (recordOf). Throws, naming what differs, unless
 * all agree; `options` must be the ones the store was loaded with.
 */
export async function checkAgainstRepository(
  catalogue: SyntheticCatalogue,
  storeFile: string,
  scratchDir: string,
  sample: number,
  options: LoadOptions = {},
): Promise<FidelityReport> {
  const inputs: AssetInput[] = [];
  for (const input of inputsOf(catalogue, options)) {
    if (inputs.length === sample) break;
    inputs.push(input);
  }
  const eventIds = new Set(inputs.flatMap((input) => (input.fields.event_ids as number[] | undefined) ?? []));
  fs.mkdirSync(scratchDir, { recursive: true });
  const scratchFile = path.join(scratchDir, 'stockroom.sqlite');
  const scratch = await openDatabase({ sqliteFile: scratchFile });
  const bulk = await openDatabase({ sqliteFile: storeFile });
  const ids = inputs.map((i) => i.id);
  let identical = 0;
  let seconds: number;
  const differences: string[] = [];
  try {
    await migrateToLatest(scratch);
    const repository = new CatalogRepository(scratch.db, 'sqlite');
    for (const event of catalogue.events()) if (eventIds.has(event.id)) await repository.upsertEvent(event);
    const started = performance.now();
    for (const input of inputs) await repository.upsertAsset(input);
    seconds = (performance.now() - started) / 1000;
    const viaRepository = new Map((await repository.findAssets('image', ids)).map((r) => [r.id, canonical(r)]));
    const viaBulk = new Map((await new CatalogRepository(bulk.db, 'sqlite').findAssets('image', ids)).map((r) => [r.id, canonical(r)]));
    for (const input of inputs) {
      const expected = canonical(recordOf(input));
      if (viaRepository.get(input.id) === expected && viaBulk.get(input.id) === expected) identical++;
      else if (differences.length < 3) {
        differences.push(`record ${input.id}:\n  indexed     ${expected}\n  repository  ${viaRepository.get(input.id)}\n  bulk loader ${viaBulk.get(input.id)}`);
      }
    }
  } finally {
    await scratch.close();
    await bulk.close();
  }
  differences.unshift(...rowDifferences(sampleRows(scratchFile, ids, [...eventIds]), sampleRows(storeFile, ids, [...eventIds])).slice(0, 10));
  if (identical !== inputs.length || differences.length > 0) {
    throw new Error(`the bulk loader and CatalogRepository disagree: ${inputs.length - identical} of ${inputs.length} records differ\n${differences.join('\n')}`);
  }
  return { sample: inputs.length, identical, repositoryAssetsPerSecond: inputs.length / seconds };
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
