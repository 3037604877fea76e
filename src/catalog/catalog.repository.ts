import { CompiledQuery, sql, type ExpressionBuilder, type Kysely, type Transaction } from 'kysely';
import type { Database, SqlDialect } from '../platform/db/database.js';
import { KeywordMemo } from './keyword-details.js';
import { endOfBTrees, StoreReadAhead } from '../platform/db/read-ahead.js';
import type { AssetsTable, Tables } from '../platform/db/tables.js';
import { changeEntry, recordChange } from '../platform/db/change-log.js';
import { nudityScore, parseStoredFacts, type MediaFacts } from '../media/media-facts.js';
import type {
  AssetInput,
  AssetRecord,
  AssetType,
  CollectionRecord,
  EditableAssetRecord,
  EventInput,
  EventRecord,
  KeywordInput,
  Publication,
  StoredKeyword,
} from './catalog.records.js';

type Db = Kysely<Tables> | Transaction<Tables>;

/** Spec fields that live in their own columns or tables rather than in `details`. */
export const NOT_IN_DETAILS = new Set([
  'asset_family',
  'title',
  'caption',
  'license_model',
  'orientation',
  'quality_rank',
  'date_created',
  'date_submitted',
  'max_dimensions',
  'artist',
  'collection_code',
  'collection_name',
  'collection_id',
  'keywords',
  'event_ids',
]);

const parseJson = <T>(text: string | null, fallback: T): T => (text ? (JSON.parse(text) as T) : fallback);
const nullable = <T>(value: T | undefined): T | null => (value === undefined ? null : value);

/** What a write did: inserted or updated the asset, and whether shared keywords changed with it. */
export interface AssetWrite {
  operation: 'insert' | 'update';
  keywordsChanged: boolean;
}

/** What a change of publication state found: the asset's type and its state before; undefined when there is no such asset. */
export interface PublicationChange {
  asset_type: AssetType;
  before: Publication;
  /** Whether the state was changed: false when it was already the one asked, or not one it may change from. */
  changed: boolean;
}

/** Which assets the back office lists: one state, optionally one type, optionally an id or words of a title. */
export interface EditingListFilter {
  publication: Publication;
  assetType?: AssetType | undefined;
  /** An asset id (exactly) or text found in the title. */
  text?: string | undefined;
  offset: number;
  limit: number;
}

/**
 * The change-log entry a write makes, as clients see the asset: it appears when it becomes
 * published (insert, announced New), changes while published (update), and leaves when it stops
 * being published (delete: search drops it, boards drop it, partners are told Delete). A draft or
 * a withdrawn asset changing is nothing a client can see, so it writes no entry.
 */
export function visibleOperation(before: Publication | undefined, after: Publication): 'insert' | 'update' | 'delete' | undefined {
  const wasShown = before === 'published';
  const isShown = after === 'published';
  if (wasShown && isShown) return 'update';
  if (isShown) return 'insert';
  if (wasShown) return 'delete';
  return undefined;
}

const PUBLISHED: Publication = 'published';

/** A read of the whole catalogue under way (prepareWholeRead): told how far it has come, ended when it stops. */
export interface WholeRead {
  /** `assets` of the store's assets have been read so far. */
  progress(assets: number): void;
  end(): Promise<void>;
}

const NO_READ_AHEAD: WholeRead = { progress: () => undefined, end: async () => undefined };

// Any constant: names the lock that serializes catalogue writes on PostgreSQL.
const CATALOG_WRITE_LOCK = 7_311_001;

export class CatalogRepository {
  private readonly db: Kysely<Tables>;
  private readonly dialect: SqlDialect;
  private readonly readArrays: Database['readArrays'];
  /** The SQLite file of the store, when it is one (not in memory, not PostgreSQL). */
  private readonly storeFile: string | undefined;

  constructor(database: Pick<Database, 'db' | 'dialect' | 'readArrays' | 'reopen'>) {
    this.db = database.db;
    this.dialect = database.dialect;
    this.readArrays = database.readArrays;
    this.storeFile = database.reopen?.sqliteFile;
  }

  /**
   * Catalogue writes take turns. On PostgreSQL a change-log number is drawn when the row is
   * inserted, not when its transaction commits; taking turns makes the two orders agree, so a
   * node that has read number n has seen every change before it. It also keeps two writers
   * from picking the same new keyword or collection id. SQLite already has one writer at a time.
   */
  private async takeWriteTurn(trx: Db): Promise<void> {
    if (this.dialect === 'postgres') await sql`select pg_advisory_xact_lock(${CATALOG_WRITE_LOCK})`.execute(trx);
  }

  // ── writes ────────────────────────────────────────────────────────────────

  /** Inserts or replaces one image or video, its keywords and events, and logs the change; all or nothing. */
  async upsertAsset(input: AssetInput): Promise<AssetWrite> {
    return this.db.transaction().execute(async (trx) => {
      await this.takeWriteTurn(trx);
      const f = input.fields;
      const existing = await trx
        .selectFrom('assets')
        .select(['asset_type', 'asset_family', 'publication'])
        .where('id', '=', input.id)
        .executeTakeFirst();
      if (existing && existing.asset_type !== input.asset_type) {
        throw new CatalogConflictError(`asset ${input.id} is a ${existing.asset_type}, not a ${input.asset_type}`);
      }
      const artistId = typeof f.artist === 'string' && f.artist ? await this.artistId(trx, f.artist) : null;
      const collectionId = await this.collectionIdFor(trx, f);
      const publication = input.publication ?? existing?.publication ?? PUBLISHED;
      const row = { ...assetColumns(input, artistId, collectionId, new Date().toISOString()), publication };
      if (existing) {
        await trx.updateTable('assets').set(row).where('id', '=', input.id).execute();
        await trx.deleteFrom('asset_keywords').where('asset_id', '=', input.id).execute();
        await trx.deleteFrom('asset_events').where('asset_id', '=', input.id).execute();
      } else {
        await trx.insertInto('assets').values({ id: input.id, ...row }).execute();
      }
      const keywords = (f.keywords as KeywordInput[] | undefined) ?? [];
      const seen = new Set<number>();
      let keywordsChanged = false;
      for (const [position, keyword] of keywords.entries()) {
        const { id: keywordId, changed } = await this.keywordId(trx, keyword);
        keywordsChanged ||= changed;
        if (seen.has(keywordId)) continue;
        seen.add(keywordId);
        await trx
          .insertInto('asset_keywords')
          .values({ asset_id: input.id, keyword_id: keywordId, relevance: keyword.relevance ?? null, position })
          .execute();
      }
      const eventIds = [...new Set((f.event_ids as number[] | undefined) ?? [])];
      if (eventIds.length > 0) {
        await trx
          .insertInto('asset_events')
          .values(eventIds.map((eventId) => ({ asset_id: input.id, event_id: eventId })))
          .execute();
      }
      const operation = existing ? 'update' : 'insert';
      const visible = visibleOperation(existing?.publication, publication);
      // A withdrawal is logged with the family the asset had while clients saw it.
      const family = visible === 'delete' ? existing!.asset_family : nullable(f.asset_family as string | undefined);
      if (visible !== undefined) await recordChange(trx, input.asset_type, input.id, visible, family);
      return { operation, keywordsChanged };
    });
  }

  /**
   * Inserts or replaces many images and videos (distinct ids) in one transaction: what
   * upsertAsset writes for each, in their order, but set-based — one query reads which exist,
   * the artists and keywords they name are read once, the new rows go in many to a statement, and
   * each asset still gets its change-log entry. A long manifest's ingest writes this way: a
   * statement per row and a transaction per record cost far more than the rows. All or nothing:
   * a conflict (an id of the other type, a keyword or collection that disagrees) refuses the
   * whole batch with that CatalogConflictError, and the caller writes its records one by one to
   * tell which one it was.
   */
  async upsertAssets(inputs: readonly AssetInput[]): Promise<AssetWrite[]> {
    if (inputs.length === 0) return [];
    return this.db.transaction().execute(async (trx) => {
      await this.takeWriteTurn(trx);
      const ids = inputs.map((input) => input.id);
      if (new Set(ids).size !== ids.length) throw new Error('upsertAssets takes each id once');
      const existing = new Map<string, { asset_type: string; asset_family: string | null; publication: Publication }>();
      for (const chunk of chunks(ids, IN_LIST)) {
        for (const row of await trx.selectFrom('assets').select(['id', 'asset_type', 'asset_family', 'publication']).where('id', 'in', chunk).execute()) {
          existing.set(row.id, row);
        }
      }
      for (const input of inputs) {
        const found = existing.get(input.id);
        if (found && found.asset_type !== input.asset_type) throw new CatalogConflictError(`asset ${input.id} is a ${found.asset_type}, not a ${input.asset_type}`);
      }
      const artists = await this.artistIds(trx, inputs.map((input) => input.fields.artist).filter((name): name is string => typeof name === 'string' && name !== ''));
      const keywords: KeywordRows = { byId: new Map((await this.keywordRowsById(trx, inputs)).map((row) => [row.id, row])), unwritten: new Map() };
      const collections = new Map<string, number | null>();
      const updatedAt = new Date().toISOString();
      const inserts: Array<{ id: string } & ReturnType<typeof assetColumns> & { publication: Publication }> = [];
      const links: Array<{ asset_id: string; keyword_id: number; relevance: number | null; position: number }> = [];
      const eventLinks: Array<{ asset_id: string; event_id: number }> = [];
      const changes: Array<ReturnType<typeof changeEntry>> = [];
      const writes: AssetWrite[] = [];
      const replaced: string[] = [];
      for (const input of inputs) {
        const f = input.fields;
        const before = existing.get(input.id);
        const artistId = typeof f.artist === 'string' && f.artist ? artists.get(f.artist)! : null;
        // The same collection named the same way finds the same row (and changes nothing more) every time.
        const collectionKey = JSON.stringify([f.collection_code ?? null, f.collection_name ?? null, f.collection_id ?? null]);
        let collectionId = collections.get(collectionKey);
        if (collectionId === undefined) {
          collectionId = await this.collectionIdFor(trx, f);
          collections.set(collectionKey, collectionId);
        }
        const publication = input.publication ?? before?.publication ?? PUBLISHED;
        if (before) {
          await trx.updateTable('assets').set({ ...assetColumns(input, artistId, collectionId, updatedAt), publication }).where('id', '=', input.id).execute();
          replaced.push(input.id);
        } else {
          inserts.push({ id: input.id, ...assetColumns(input, artistId, collectionId, updatedAt), publication });
        }
        const seen = new Set<number>();
        let keywordsChanged = false;
        const listed = (f.keywords as KeywordInput[] | undefined) ?? [];
        for (let position = 0; position < listed.length; position++) {
          const keyword = listed[position]!;
          const { id: keywordId, changed } = storedAsStated(keyword, keywords) ?? (await this.keywordId(trx, keyword, keywords));
          keywordsChanged ||= changed;
          if (seen.has(keywordId)) continue;
          seen.add(keywordId);
          links.push({ asset_id: input.id, keyword_id: keywordId, relevance: keyword.relevance ?? null, position });
        }
        for (const eventId of new Set((f.event_ids as number[] | undefined) ?? [])) eventLinks.push({ asset_id: input.id, event_id: eventId });
        const visible = visibleOperation(before?.publication, publication);
        const family = visible === 'delete' ? before!.asset_family : nullable(f.asset_family as string | undefined);
        if (visible !== undefined) changes.push(changeEntry(input.asset_type, input.id, visible, family, updatedAt));
        writes.push({ operation: before ? 'update' : 'insert', keywordsChanged });
      }
      await this.writeNewKeywords(trx, keywords);
      for (const chunk of chunks(replaced, IN_LIST)) {
        await trx.deleteFrom('asset_keywords').where('asset_id', 'in', chunk).execute();
        await trx.deleteFrom('asset_events').where('asset_id', 'in', chunk).execute();
      }
      // Rows of one insert must name the same columns (media facts are left out when an input has none).
      const byColumns = new Map<string, Array<Record<string, unknown>>>();
      for (const row of inserts) {
        const key = Object.keys(row).join(',');
        const rows = byColumns.get(key);
        if (rows === undefined) byColumns.set(key, [row]);
        else rows.push(row);
      }
      for (const rows of byColumns.values()) await this.insertRows(trx, 'assets', rows);
      // In keyword order, the links' entries go into the index by keyword one page after another,
      // not to a page anywhere in it for each (stable: a keyword's links keep the order of their assets).
      links.sort((a, b) => a.keyword_id - b.keyword_id);
      await this.insertRows(trx, 'asset_keywords', links);
      await this.insertRows(trx, 'asset_events', eventLinks);
      await this.insertRows(trx, 'change_log', changes);
      return writes;
    });
  }

  /**
   * Inserts rows (objects of the same columns) many per statement, each statement compiled here:
   * Kysely's builder makes a node of every value and compiles them all, which for the rows of a
   * thousand records costs more than the store's own work. Table and column names are the code's;
   * every value is a parameter.
   */
  private async insertRows(trx: Db, table: keyof Tables, rows: ReadonlyArray<Record<string, unknown>>): Promise<void> {
    if (rows.length === 0) return;
    const columns = Object.keys(rows[0]!);
    const head = `insert into "${table}" (${columns.map((column) => `"${column}"`).join(', ')}) values `;
    let start = 0;
    for (const size of insertSizes(rows.length, rowsPerInsert(rows[0]))) {
      const parameters: unknown[] = new Array(size * columns.length);
      let at = 0;
      for (let index = start; index < start + size; index++) {
        const row = rows[index]!;
        for (const column of columns) parameters[at++] = row[column];
      }
      start += size;
      await trx.executeQuery(CompiledQuery.raw(this.insertText(head, columns.length, size), parameters));
    }
  }

  /** The text of an insert of `rows` rows of `columns` values after `head`: made once for each, as the same few are written over and over. */
  private insertText(head: string, columns: number, rows: number): string {
    const key = `${this.dialect} ${rows} ${head}`;
    let text = INSERT_TEXTS.get(key);
    if (text === undefined) {
      const tuples: string[] = [];
      for (let row = 0; row < rows; row++) {
        const marks = Array.from({ length: columns }, (_, column) => (this.dialect === 'postgres' ? `$${row * columns + column + 1}` : '?'));
        tuples.push(`(${marks.join(', ')})`);
      }
      text = head + tuples.join(', ');
      INSERT_TEXTS.set(key, text);
    }
    return text;
  }

  /** Writes the keywords a batch made (KeywordRows.unwritten), a statement per many. */
  private async writeNewKeywords(trx: Db, keywords: KeywordRows): Promise<void> {
    // In id order, as the links are: each page of the table is written once, not once for each of its rows.
    await this.insertRows(trx, 'keywords', [...keywords.unwritten.values()].sort((a, b) => a.id - b.id));
    keywords.unwritten.clear();
  }

  /** The id of each artist name, those not yet stored inserted. */
  private async artistIds(trx: Db, names: readonly string[]): Promise<Map<string, number>> {
    const ids = new Map<string, number>();
    const distinct = [...new Set(names)];
    for (const chunk of chunks(distinct, IN_LIST)) {
      for (const row of await trx.selectFrom('artists').select(['id', 'name']).where('name', 'in', chunk).execute()) ids.set(row.name, row.id);
    }
    // The new ones in one insert per chunk: a long manifest brings thousands of artists, and one
    // statement compiled for each (its `returning` makes it a read, so it is not kept) cost more than
    // their rows (a profile over 30,600 lines: 1.0 s of 25).
    const missing = distinct.filter((name) => !ids.has(name));
    for (const chunk of chunks(missing, IN_LIST)) {
      const inserted = await trx
        .insertInto('artists')
        .values(chunk.map((name) => ({ name })))
        .returning(['id', 'name'])
        .execute();
      for (const row of inserted) ids.set(row.name, row.id);
    }
    return ids;
  }

  /** The stored keywords the inputs name by id, read at once. */
  private async keywordRowsById(trx: Db, inputs: readonly AssetInput[]): Promise<KeywordRow[]> {
    const wanted = new Set<number>();
    for (const input of inputs) {
      for (const keyword of (input.fields.keywords as KeywordInput[] | undefined) ?? []) if (keyword.keyword_id !== undefined) wanted.add(Number(keyword.keyword_id));
    }
    const rows: KeywordRow[] = [];
    // A text made once for each size, not by Kysely's builder: it makes and compiles a node of each of
    // the list's ids, for tens of thousands of ids a batch.
    for (const chunk of chunks([...wanted].sort((a, b) => a - b), IN_LIST)) {
      const key = `${this.dialect} keywords ${chunk.length}`;
      let text = SELECT_TEXTS.get(key);
      if (text === undefined) {
        const marks = chunk.map((_, index) => (this.dialect === 'postgres' ? `$${index + 1}` : '?'));
        text = `select * from "keywords" where "id" in (${marks.join(', ')})`;
        SELECT_TEXTS.set(key, text);
      }
      rows.push(...(await trx.executeQuery(CompiledQuery.raw(text, chunk))).rows as KeywordRow[]);
    }
    return rows;
  }

  /**
   * Stores the media facts computed for an asset's original (stockroom backfill) and logs the
   * change, so that every node's caches and search index re-read it. False when the asset is
   * gone or its original is no longer the one the facts were computed from.
   */
  async saveMediaFacts(id: string, originalKey: string, facts: MediaFacts): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      await this.takeWriteTurn(trx);
      const existing = await trx
        .selectFrom('assets')
        .select(['asset_type', 'asset_family', 'publication'])
        .where('id', '=', id)
        .where('original_key', '=', originalKey)
        .executeTakeFirst();
      if (!existing) return false;
      await trx.updateTable('assets').set(mediaFactsColumns(facts)).where('id', '=', id).execute();
      // Facts of a draft or a withdrawn asset are read when it is published; no client sees it before.
      if (existing.publication === PUBLISHED) await recordChange(trx, existing.asset_type as AssetType, id, 'update', existing.asset_family);
      return true;
    });
  }

  /**
   * One page, in id order after `afterId`, of the assets with an original whose media facts are
   * missing, of an older version than `version`, or (when `needNudity`) not classified.
   */
  async assetsNeedingMediaFacts(
    afterId: string | null,
    limit: number,
    version: number,
    needNudity: boolean,
  ): Promise<Array<{ id: string; asset_type: AssetType; original_key: string }>> {
    let query = this.db
      .selectFrom('assets')
      .select(['id', 'asset_type', 'original_key'])
      .where('original_key', 'is not', null)
      .where((eb) => needsMediaFacts(eb, version, needNudity))
      .orderBy('id')
      .limit(limit);
    if (afterId !== null) query = query.where('id', '>', afterId);
    const rows = await query.execute();
    return rows.map((r) => ({ id: r.id, asset_type: r.asset_type as AssetType, original_key: r.original_key! }));
  }

  /** How many assets assetsNeedingMediaFacts would list in all. */
  async countAssetsNeedingMediaFacts(version: number, needNudity: boolean): Promise<number> {
    const row = await this.db
      .selectFrom('assets')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('original_key', 'is not', null)
      .where((eb) => needsMediaFacts(eb, version, needNudity))
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  async deleteAsset(id: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      await this.takeWriteTurn(trx);
      const existing = await trx.selectFrom('assets').select(['asset_type', 'asset_family', 'publication']).where('id', '=', id).executeTakeFirst();
      if (!existing) return false;
      await trx.deleteFrom('asset_keywords').where('asset_id', '=', id).execute();
      await trx.deleteFrom('asset_events').where('asset_id', '=', id).execute();
      await trx.deleteFrom('assets').where('id', '=', id).execute();
      if (existing.publication === PUBLISHED) await recordChange(trx, existing.asset_type as AssetType, id, 'delete', existing.asset_family);
      return true;
    });
  }

  /**
   * Moves an asset to the state `to` when its state is one of `from`, and logs what clients see
   * change (see visibleOperation); all in one transaction, so two editors at once cannot both
   * act on the state they read. Undefined when there is no such asset.
   */
  async changePublication(id: string, to: Publication, from: readonly Publication[]): Promise<PublicationChange | undefined> {
    return this.db.transaction().execute(async (trx) => {
      await this.takeWriteTurn(trx);
      const existing = await trx.selectFrom('assets').select(['asset_type', 'asset_family', 'publication']).where('id', '=', id).executeTakeFirst();
      if (!existing) return undefined;
      const before = existing.publication;
      const assetType = existing.asset_type as AssetType;
      if (before === to || !from.includes(before)) return { asset_type: assetType, before, changed: false };
      await trx.updateTable('assets').set({ publication: to, updated_at: new Date().toISOString() }).where('id', '=', id).execute();
      const visible = visibleOperation(before, to);
      if (visible !== undefined) await recordChange(trx, assetType, id, visible, existing.asset_family);
      return { asset_type: assetType, before, changed: true };
    });
  }

  async upsertEvent(input: EventInput): Promise<'insert' | 'update'> {
    return this.db.transaction().execute(async (trx) => {
      await this.takeWriteTurn(trx);
      return this.writeEvent(trx, input);
    });
  }

  /** upsertEvent for many events, in their order, in one transaction (a long manifest's); all or nothing. */
  async upsertEvents(inputs: readonly EventInput[]): Promise<Array<'insert' | 'update'>> {
    if (inputs.length === 0) return [];
    return this.db.transaction().execute(async (trx) => {
      await this.takeWriteTurn(trx);
      const operations: Array<'insert' | 'update'> = [];
      for (const input of inputs) operations.push(await this.writeEvent(trx, input));
      return operations;
    });
  }

  private async writeEvent(trx: Db, input: EventInput): Promise<'insert' | 'update'> {
    const existing = await trx.selectFrom('events').select('id').where('id', '=', input.id).executeTakeFirst();
    // An event's keywords are the catalogue's keywords: each gets the id and type of its keyword record, as an asset's do.
    // An id of the partner's own that is no catalogue keyword id (not a whole number) is kept as given.
    const keywords = [];
    for (const keyword of input.keywords ?? []) {
      if (keyword.keyword_id != null && !(/^\d{1,10}$/.test(String(keyword.keyword_id)) && Number(keyword.keyword_id) <= 2_147_483_647)) {
        keywords.push({ keyword_id: String(keyword.keyword_id), text: keyword.text, type: keyword.type ?? null });
        continue;
      }
      const { id } = await this.keywordId(trx, {
        text: keyword.text,
        ...(keyword.keyword_id == null ? {} : { keyword_id: keyword.keyword_id }),
        ...(keyword.type == null ? {} : { type: keyword.type }),
      });
      const stored = await trx.selectFrom('keywords').select('type').where('id', '=', id).executeTakeFirst();
      keywords.push({ keyword_id: String(id), text: keyword.text, type: keyword.type ?? stored?.type ?? null });
    }
    const row = eventColumns({ ...input, keywords }, new Date().toISOString());
    if (existing) await trx.updateTable('events').set(row).where('id', '=', input.id).execute();
    else await trx.insertInto('events').values({ id: input.id, ...row }).execute();
    const operation = existing ? 'update' : 'insert';
    await recordChange(trx, 'event', String(input.id), operation);
    return operation;
  }

  private async artistId(trx: Db, name: string): Promise<number> {
    const found = await trx.selectFrom('artists').select('id').where('name', '=', name).executeTakeFirst();
    if (found) return found.id;
    const inserted = await trx.insertInto('artists').values({ name }).returning('id').executeTakeFirstOrThrow();
    return inserted.id;
  }

  /** A collection named on a record is created when new; a known code keeps its id. */
  private async collectionIdFor(trx: Db, f: Record<string, unknown>): Promise<number | null> {
    const code = f.collection_code as string | undefined;
    const name = f.collection_name as string | undefined;
    const requestedId = f.collection_id as number | undefined;
    if (!code && !name && requestedId === undefined) return null;
    let query = trx.selectFrom('collections').selectAll();
    if (code) query = query.where('code', '=', code);
    else if (requestedId !== undefined) query = query.where('id', '=', requestedId);
    else query = query.where('name', '=', name!);
    const found = await query.executeTakeFirst();
    if (found) {
      if (requestedId !== undefined && requestedId !== found.id) {
        throw new CatalogConflictError(`collection ${found.code} has id ${found.id}, not ${requestedId}`);
      }
      if (name && name !== found.name) {
        await trx.updateTable('collections').set({ name }).where('id', '=', found.id).execute();
        await recordChange(trx, 'collection', String(found.id), 'update');
      }
      return found.id;
    }
    if (requestedId !== undefined) {
      const holder = await trx.selectFrom('collections').select('code').where('id', '=', requestedId).executeTakeFirst();
      if (holder) throw new CatalogConflictError(`collection id ${requestedId} belongs to collection ${holder.code}`);
    }
    // Ids the store picks start above 1000, leaving the low ones to catalogues that number their own.
    const id = requestedId ?? Math.max(await this.nextId(trx, 'collections'), 1001);
    const derivedCode = code ?? (name ?? `collection-${id}`).replace(/[^A-Za-z0-9]+/g, '').slice(0, 12).toUpperCase();
    await trx
      .insertInto('collections')
      .values({
        id,
        code: derivedCode,
        name: name ?? derivedCode,
        asset_family: nullable(f.asset_family as string | undefined),
        license_model: nullable(f.license_model as string | undefined),
        product_types: JSON.stringify((f.product_types as string[] | undefined) ?? []),
      })
      .execute();
    await recordChange(trx, 'collection', String(id), 'insert');
    return id;
  }

  private async nextId(trx: Db, table: 'collections' | 'keywords'): Promise<number> {
    const row = await trx.selectFrom(table).select((eb) => eb.fn.max('id').as('max')).executeTakeFirst();
    return Number(row?.max ?? 0) + 1;
  }

  /**
   * A keyword is one record shared by every asset tagged with it: same id, same translations.
   * A record changes only what it states of a keyword; a change shows in every asset of it,
   * so it is logged.
   */
  private async keywordId(trx: Db, keyword: KeywordInput, known?: KeywordRows): Promise<{ id: number; changed: boolean }> {
    const stated: Partial<{ type: string | null; entity_uris: string; entity_types: string; translations: string }> = {};
    if (keyword.type !== undefined) stated.type = keyword.type;
    if (keyword.entity_uris) stated.entity_uris = JSON.stringify(keyword.entity_uris);
    if (keyword.entity_types) stated.entity_types = JSON.stringify(keyword.entity_types);
    if (keyword.translations) stated.translations = JSON.stringify(keyword.translations);

    let found: KeywordRow | undefined;
    if (keyword.keyword_id !== undefined) {
      const id = Number(keyword.keyword_id);
      found = known !== undefined ? known.byId.get(id) : await trx.selectFrom('keywords').selectAll().where('id', '=', id).executeTakeFirst();
      if (found && found.text !== keyword.text) {
        throw new CatalogConflictError(`keyword ${id} is '${found.text}', not '${keyword.text}'`);
      }
      if (!found) {
        const row = { id, ...this.newKeyword(keyword, stated) };
        if (known === undefined) {
          await trx.insertInto('keywords').values(row).execute();
        } else {
          known.byId.set(id, row);
          known.unwritten.set(id, row);
        }
        return { id, changed: false };
      }
    } else {
      // Found by its text in the store: what the batch made must be in it first.
      if (known !== undefined) await this.writeNewKeywords(trx, known);
      let query = trx.selectFrom('keywords').selectAll().where('text', '=', keyword.text);
      query = keyword.type ? query.where('type', '=', keyword.type) : query.where('type', 'is', null);
      found = await query.executeTakeFirst();
      if (!found) {
        const id = await this.nextId(trx, 'keywords');
        const row = { id, ...this.newKeyword(keyword, stated) };
        await trx.insertInto('keywords').values(row).execute();
        known?.byId.set(id, row);
        return { id, changed: false };
      }
    }
    // Made only when something differs: most records state of a keyword what is stored, and this runs for each of their keywords.
    let changes: typeof stated | undefined;
    for (const [column, value] of Object.entries(stated) as Array<[keyof typeof stated, string | null]>) {
      if (found[column] !== value) changes = { ...changes, [column]: value };
    }
    if (changes === undefined) return { id: found.id, changed: false };
    const unwritten = known?.unwritten.get(found.id);
    if (unwritten !== undefined) Object.assign(unwritten, changes);
    else await trx.updateTable('keywords').set(changes).where('id', '=', found.id).execute();
    // What the store holds now (or will once the batch's new keywords are written), for the next record of the batch to compare with.
    if (known !== undefined && unwritten === undefined) known.byId.set(found.id, { ...found, ...changes });
    await recordChange(trx, 'keyword', String(found.id), 'update');
    return { id: found.id, changed: true };
  }

  private newKeyword(keyword: KeywordInput, stated: Record<string, string | null>) {
    return {
      text: keyword.text,
      type: keyword.type ?? null,
      entity_uris: stated.entity_uris ?? '[]',
      entity_types: stated.entity_types ?? '[]',
      translations: stated.translations ?? '{}',
    };
  }

  // ── reads ─────────────────────────────────────────────────────────────────

  /*
   * Every read a client's answer is made from sees published assets only: the metadata
   * endpoints, search (its snapshot and its live follow), licensing, boards, embed, the
   * catalogue browser and the asset-change feed all read through these. The back office reads
   * drafts and withdrawn assets through the methods named "in any state".
   */

  /** The published assets of one type among ids, in no particular order; unknown ids are simply absent. */
  async findAssets(assetType: AssetType, ids: readonly string[]): Promise<AssetRecord[]> {
    if (ids.length === 0) return [];
    const rows = await this.assetRows()
      .where('assets.asset_type', '=', assetType)
      .where('assets.id', 'in', ids)
      .where('assets.publication', '=', PUBLISHED)
      .execute();
    return this.hydrate(rows);
  }

  /** Assets among ids whatever their state (of one type, or both), for the back office and ingest; unknown ids are absent. */
  async findAssetsInAnyState(assetType: AssetType | undefined, ids: readonly string[]): Promise<EditableAssetRecord[]> {
    if (ids.length === 0) return [];
    let query = this.assetRows().where('assets.id', 'in', ids);
    if (assetType !== undefined) query = query.where('assets.asset_type', '=', assetType);
    return this.hydrateEditable(await query.execute());
  }

  /** One page of the assets in one state, in id order, with how many there are in all (the back office's lists). */
  async listInState(filter: EditingListFilter): Promise<{ total: number; records: EditableAssetRecord[] }> {
    let query = this.db.selectFrom('assets').where('assets.publication', '=', filter.publication);
    if (filter.assetType !== undefined) query = query.where('assets.asset_type', '=', filter.assetType);
    const text = filter.text?.trim();
    if (text) {
      const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      query = query.where((eb) => eb.or([eb('assets.id', '=', text), sql<boolean>`lower(assets.title) like lower(${pattern}) escape '\\'`]));
    }
    const counted = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
    const ids = await query.select('assets.id').orderBy('assets.id').limit(filter.limit).offset(filter.offset).execute();
    const records = await this.findAssetsInAnyState(filter.assetType, ids.map((row) => row.id));
    const order = new Map(ids.map((row, index) => [row.id, index]));
    records.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
    return { total: Number(counted?.n ?? 0), records };
  }

  /**
   * The type of each of these assets in one of `states`; ids of other assets are left out. Usage
   * reports name assets licensed before they were withdrawn, so they ask for those too.
   */
  async assetTypes(ids: readonly string[], states: readonly Publication[] = [PUBLISHED]): Promise<Array<{ id: string; asset_type: string }>> {
    const found: Array<{ id: string; asset_type: string }> = [];
    for (let start = 0; start < ids.length; start += 500) {
      found.push(
        ...(await this.db
          .selectFrom('assets')
          .select(['id', 'asset_type'])
          .where('id', 'in', ids.slice(start, start + 500))
          .where('publication', 'in', states)
          .execute()),
      );
    }
    return found;
  }

  /**
   * The published assets whose records show one of these collections or keywords (the
   * collection's name, the keyword's type and translations are read into every record of it),
   * so that a reader following the change log re-reads just those when one of them changes.
   */
  async assetsShowing(shown: { collectionIds: readonly number[]; keywordIds: readonly number[] }): Promise<Array<{ id: string; asset_type: string }>> {
    const found = new Map<string, string>();
    // A page of ids at a time: a change page names at most a thousand, far below either store's parameter limit.
    for (let start = 0; start < shown.collectionIds.length; start += 1000) {
      const rows = await this.db
        .selectFrom('assets')
        .select(['id', 'asset_type'])
        .where('collection_id', 'in', shown.collectionIds.slice(start, start + 1000))
        .where('publication', '=', PUBLISHED)
        .execute();
      for (const row of rows) found.set(row.id, row.asset_type);
    }
    for (let start = 0; start < shown.keywordIds.length; start += 1000) {
      const rows = await this.db
        .selectFrom('asset_keywords')
        .innerJoin('assets', 'assets.id', 'asset_keywords.asset_id')
        .select(['assets.id', 'assets.asset_type'])
        .where('asset_keywords.keyword_id', 'in', shown.keywordIds.slice(start, start + 1000))
        .where('assets.publication', '=', PUBLISHED)
        .execute();
      for (const row of rows) found.set(row.id, row.asset_type);
    }
    return [...found].map(([id, asset_type]) => ({ id, asset_type }));
  }

  /**
   * Before a read of the whole catalogue: on PostgreSQL, gathers the planner's statistics of the
   * tables it reads when they have never been gathered. Right after a bulk write (an ingest, a
   * restore) and before autovacuum's first ANALYZE, the planner guesses that few assets are
   * published and answers each page of the scan by collecting and sorting every asset after the
   * page's first id — a read of the whole table per page, hours at millions of assets — where
   * with statistics it walks the primary key. SQLite plans these queries by their indexes alone.
   */
  async prepareWholeRead(): Promise<WholeRead> {
    if (this.dialect !== 'postgres') return this.readAheadOfWholeRead();
    const tables = ['assets', 'asset_keywords', 'keywords'];
    const { rows } = await sql<{ relname: string }>`
      select relname from pg_stat_user_tables
      where schemaname = current_schema() and relname in (${sql.join(tables)})
        and last_analyze is null and last_autoanalyze is null`.execute(this.db);
    for (const { relname } of rows) await sql`analyze ${sql.table(relname)}`.execute(this.db);
    return NO_READ_AHEAD;
  }

  /**
   * On a SQLite file, its pages read ahead of the scan (see StoreReadAhead), paced by the share
   * of the assets read, up to where the scan's part of the file ends (wholeReadExtent). The
   * assets' count is taken as their largest rowid: SQLite numbers rows as they are appended, and
   * it is read off the end of the table's b-tree where a count would read an index whole.
   */
  private async readAheadOfWholeRead(): Promise<WholeRead> {
    if (this.storeFile === undefined) return NO_READ_AHEAD;
    const { rows } = await sql<{ last: number | null }>`select max(rowid) as last from assets`.execute(this.db);
    const total = Number(rows[0]?.last ?? 0);
    if (total === 0) return NO_READ_AHEAD;
    const ahead = await StoreReadAhead.open(this.storeFile, undefined, await this.wholeReadExtent());
    if (ahead === undefined) return NO_READ_AHEAD;
    ahead.advance(0);
    return { progress: (assets) => ahead.advance(assets / total), end: () => ahead.close() };
  }

  /**
   * On a SQLite file, where the part of it that a scan reads ends, in bytes: the end of the
   * b-trees of the assets, their keyword and event links and those tables' keys (see
   * endOfBTrees). A bulk load makes the other indexes after its rows: a ninth of the file, past
   * this end, that a scan never reads. Undefined when not known (PostgreSQL, a store in memory,
   * a file not as SQLite lays it out).
   */
  async wholeReadExtent(): Promise<number | undefined> {
    if (this.storeFile === undefined) return undefined;
    const { rows } = await sql<{ rootpage: number }>`
      select rootpage from sqlite_schema
      where tbl_name in ('assets', 'asset_keywords', 'asset_events') and (type = 'table' or name like 'sqlite_autoindex_%')`.execute(this.db);
    return endOfBTrees(this.storeFile, rows.map((row) => Number(row.rootpage)));
  }

  /**
   * One page of every published asset, images and videos, in id order after `afterId`: for
   * building indexes. A scan passes the same memo of keywords to each of its pages.
   */
  async scanAssets(afterId: string | null, limit: number, keywords = new KeywordMemo()): Promise<AssetRecord[]> {
    let query = this.assetRows().where('assets.publication', '=', PUBLISHED).orderBy('assets.id').limit(limit);
    if (afterId !== null) query = query.where('assets.id', '>', afterId);
    // read as arrays: a scan reads every asset, and the drivers' row objects were half its read
    const rows = (await this.readArrays(query.compile())).map(selectedAssetRow);
    return this.hydrate(rows, keywords, true);
  }

  /** The assets with their artist's and collection's names; selectedAssetRow reads a row of it as an array. */
  private assetRows() {
    return this.db
      .selectFrom('assets')
      .leftJoin('artists', 'artists.id', 'assets.artist_id')
      .leftJoin('collections', 'collections.id', 'assets.collection_id')
      .select([
        'assets.id',
        'assets.asset_type',
        'assets.asset_family',
        'assets.title',
        'assets.caption',
        'assets.license_model',
        'assets.orientation',
        'assets.max_width',
        'assets.max_height',
        'assets.quality_rank',
        'assets.date_created',
        'assets.date_submitted',
        'assets.details',
        'assets.original_key',
        'assets.original_media_type',
        'assets.visual_signature',
        'assets.download_count',
        'assets.media_facts',
        'assets.publication',
        'assets.updated_at',
        'artists.name as artist',
        'collections.id as collection_id',
        'collections.code as collection_code',
        'collections.name as collection_name',
      ]);
  }

  /**
   * Rows of assetRows() with their keywords and events, as records. The keyword links are read
   * alone and each keyword's details once (see KeywordMemo): a scan passes one memo for all its
   * pages. `inIdOrder`: the rows are a scan's page, in id order, so its links are read as the
   * range of ids from its first to its last (one walk of the key's index, not a probe an id);
   * the links of the unpublished assets in that range are left out here.
   */
  private async hydrate(
    rows: readonly SelectedAssetRow[],
    memo = new KeywordMemo(),
    inIdOrder = false,
  ): Promise<AssetRecord[]> {
    if (rows.length === 0) return [];
    const found = rows.map((r) => r.id);
    const pageIds = inIdOrder ? new Set(found) : undefined;
    const ofPage = <T extends { asset_id: string }>(linked: T[]) => (pageIds === undefined ? linked : linked.filter((link) => pageIds.has(link.asset_id)));
    // Which rows of a link table the page's read takes: its range in id order, else its ids.
    const ofPageIds = (eb: ExpressionBuilder<Tables, 'asset_keywords' | 'asset_events'>) =>
      inIdOrder ? eb.between('asset_id', found[0]!, found[found.length - 1]!) : eb('asset_id', 'in', found);
    const links = inIdOrder ? await this.pageLinks(found[0]!, found[found.length - 1]!, pageIds!) : await this.linksOf(found);
    const missing = memo.missing(links.keywordIds);
    // a page of ids at a time, far below either store's parameter limit
    for (let start = 0; start < missing.length; start += 1000) {
      const details = await this.db
        .selectFrom('keywords')
        .select(['id', 'text', 'type', 'entity_uris', 'entity_types', 'translations'])
        .where('id', 'in', missing.slice(start, start + 1000))
        .execute();
      for (const row of details) memo.remember(row);
    }
    const eventRows = ofPage(
      await this.db
        .selectFrom('asset_events')
        .select(['asset_id', 'event_id'])
        .where(ofPageIds)
        .orderBy('event_id')
        .execute(),
    );
    const keywordsOf = new Map<string, StoredKeyword[]>();
    links.assetIds.forEach((assetId, a) => {
      const list: StoredKeyword[] = [];
      for (let l = links.starts[a]!; l < links.starts[a + 1]!; l++) {
        const id = links.keywordIds[l]!;
        const relevance = links.relevances[l]!;
        // a scan's records share a keyword's listings (see KeywordMemo.listing)
        const listed = memo.listing(id, relevance, inIdOrder);
        // as the join it replaces: a link to no keyword shows nothing
        if (listed !== undefined) list.push(listed);
      }
      keywordsOf.set(assetId, list);
    });
    const eventsOf = new Map<string, number[]>();
    for (const e of eventRows) {
      const list = eventsOf.get(e.asset_id) ?? [];
      list.push(e.event_id);
      eventsOf.set(e.asset_id, list);
    }
    return rows.map((r) => assetRecord(r, keywordsOf.get(r.id) ?? [], eventsOf.get(r.id) ?? []));
  }

  /**
   * The keyword links of a scan's page (the ids from `first` to `last`, in id order), as hydrate
   * reads them, of the assets in `pageIds`. Read as one row an asset, its links joined in one
   * string: a row a link made a 14-link asset cost 14 row objects, most of the read's time. The
   * links come in the key's order, each with its position, and are put in position order here:
   * SQLite ordering them within the aggregate sorted each asset's links in a temporary b-tree,
   * a third of the query's time. A relevance SQLite keeps as a real (it keeps what it is given)
   * comes through the text exactly: SQLite writes a real with 17 significant digits.
   */
  private async pageLinks(first: string, last: string, pageIds: ReadonlySet<string>): Promise<AssetLinks> {
    const joined =
      this.dialect === 'postgres'
        ? sql<string>`string_agg(position::text || ' ' || keyword_id::text || ' ' || coalesce(relevance::text, ''), ',')`
        : sql<string>`group_concat(position || ' ' || keyword_id || ' ' || ifnull(relevance, ''), ',')`;
    const query = this.db
      .selectFrom('asset_keywords')
      .select(['asset_id', joined.as('links')])
      .where('asset_id', '>=', first)
      .where('asset_id', '<=', last)
      .groupBy('asset_id')
      .orderBy('asset_id');
    const rows = (await this.readArrays(query.compile())) as Array<[assetId: string, links: string]>;
    const links: AssetLinks = { assetIds: [], starts: [0], keywordIds: [], relevances: [] };
    const positions: number[] = [];
    for (const [assetId, text] of rows) {
      if (!pageIds.has(assetId)) continue;
      const from = links.keywordIds.length;
      positions.length = 0;
      // "position id relevance,…" (an empty relevance is null), walked without splitting, each
      // link moved back past the links of later positions (a dozen or so an asset)
      for (let at = 0; at < text.length; ) {
        const space = text.indexOf(' ', at);
        const second = text.indexOf(' ', space + 1);
        let end = text.indexOf(',', second);
        if (end < 0) end = text.length;
        const position = Number(text.slice(at, space));
        const keywordId = Number(text.slice(space + 1, second));
        const relevance = end === second + 1 ? null : Number(text.slice(second + 1, end));
        let to = positions.length;
        while (to > 0 && positions[to - 1]! > position) {
          positions[to] = positions[to - 1]!;
          links.keywordIds[from + to] = links.keywordIds[from + to - 1]!;
          links.relevances[from + to] = links.relevances[from + to - 1]!;
          to--;
        }
        positions[to] = position;
        links.keywordIds[from + to] = keywordId;
        links.relevances[from + to] = relevance;
        at = end + 1;
      }
      links.assetIds.push(assetId);
      links.starts.push(links.keywordIds.length);
    }
    return links;
  }

  /** The keyword links of the assets `ids` (any order), grouped as pageLinks gives them. */
  private async linksOf(ids: readonly string[]): Promise<AssetLinks> {
    const rows = await this.db
      .selectFrom('asset_keywords')
      .select(['asset_id', 'keyword_id', 'relevance'])
      .where('asset_id', 'in', ids)
      .orderBy('asset_id')
      .orderBy('position')
      .execute();
    const links: AssetLinks = { assetIds: [], starts: [0], keywordIds: [], relevances: [] };
    rows.forEach((row, r) => {
      links.keywordIds.push(row.keyword_id);
      links.relevances.push(row.relevance);
      if (r + 1 === rows.length || rows[r + 1]!.asset_id !== row.asset_id) {
        links.assetIds.push(row.asset_id);
        links.starts.push(links.keywordIds.length);
      }
    });
    return links;
  }

  /** hydrate(), each record with its state and when it last changed. */
  private async hydrateEditable(rows: readonly SelectedAssetRow[]): Promise<EditableAssetRecord[]> {
    const records = await this.hydrate(rows);
    const byId = new Map(rows.map((r) => [r.id, r]));
    return records.map((record) => ({ ...record, publication: byId.get(record.id)!.publication, updated_at: byId.get(record.id)!.updated_at }));
  }

  /**
   * Counts one download of an asset and logs the change, so that every node's search index
   * re-reads it (most_popular ranks by the count). False when there is no such asset.
   */
  async countDownload(assetType: AssetType, id: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      await this.takeWriteTurn(trx);
      const result = await trx
        .updateTable('assets')
        .set({ download_count: sql<number>`download_count + 1` })
        .where('id', '=', id)
        .where('asset_type', '=', assetType)
        .where('publication', '=', PUBLISHED)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) return false;
      await recordChange(trx, assetType, id, 'count');
      return true;
    });
  }

  /** The blob key of a published asset's original (media renders and delivers it). */
  async findOriginalKey(id: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('assets').select('original_key').where('id', '=', id).where('publication', '=', PUBLISHED).executeTakeFirst();
    return row?.original_key ?? undefined;
  }

  /** The blob key of an asset's original whatever its state (ingest keeps it; the back office shows it to staff). */
  async findOriginalKeyInAnyState(id: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('assets').select('original_key').where('id', '=', id).executeTakeFirst();
    return row?.original_key ?? undefined;
  }

  /** The state of an asset of this type; undefined when there is none. */
  async publicationOf(assetType: AssetType, id: string): Promise<Publication | undefined> {
    const row = await this.db.selectFrom('assets').select('publication').where('id', '=', id).where('asset_type', '=', assetType).executeTakeFirst();
    return row?.publication;
  }

  async findEvents(ids: readonly number[]): Promise<EventRecord[]> {
    if (ids.length === 0) return [];
    return this.toEvents(await this.eventRows().where('events.id', 'in', ids).execute());
  }

  /** One page of every event in id order after `afterId`: for building indexes. */
  async scanEvents(afterId: number | null, limit: number): Promise<EventRecord[]> {
    let query = this.eventRows().orderBy('events.id').limit(limit);
    if (afterId !== null) query = query.where('events.id', '>', afterId);
    return this.toEvents(await query.execute());
  }

  private eventRows() {
    return this.db
      .selectFrom('events')
      .selectAll('events')
      .select((eb) => [
        eb
          .selectFrom('events as children')
          .select((c) => c.fn.countAll<number>().as('n'))
          .whereRef('children.parent_id', '=', 'events.id')
          .as('child_event_count'),
        // Driven from the event's own asset links, each checked by the asset's key: written as
        // a join, SQLite without statistics walked every image once per event instead.
        eb
          .selectFrom('asset_events')
          .select((c) => c.fn.countAll<number>().as('n'))
          .whereRef('asset_events.event_id', '=', 'events.id')
          .where(({ exists, selectFrom }) =>
            exists(
              selectFrom('assets')
                .select('assets.id')
                .whereRef('assets.id', '=', 'asset_events.asset_id')
                .where('assets.asset_type', '=', 'image')
                .where('assets.publication', '=', PUBLISHED),
            ),
          )
          .as('image_count'),
      ]);
  }

  private toEvents(rows: Awaited<ReturnType<ReturnType<CatalogRepository['eventRows']>['execute']>>): EventRecord[] {
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      start_date: r.start_date,
      parent_id: r.parent_id,
      type: r.type,
      editorial_segments: parseJson(r.editorial_segments, []),
      hero_image_id: r.hero_image_id,
      location: { city: r.city, country: r.country, state_province: r.state_province, venue: r.venue },
      keywords: parseJson(r.keywords, []),
      child_event_count: Number(r.child_event_count ?? 0),
      image_count: Number(r.image_count ?? 0),
    }));
  }

  async listCollections(): Promise<CollectionRecord[]> {
    const rows = await this.db.selectFrom('collections').selectAll().orderBy('name').execute();
    return rows.map((r) => ({ ...r, product_types: parseJson(r.product_types, []) }));
  }

  /** Every asset stored, whatever its state: whether the store is empty (a store of drafts is not). */
  async countAssets(): Promise<number> {
    const row = await this.db.selectFrom('assets').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
    return Number(row?.n ?? 0);
  }
}

/** The `details` JSON of an asset: every field of its record that has no column or table of its own. */
export function assetDetails(fields: Record<string, unknown>): Record<string, unknown> {
  const details: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    if (!NOT_IN_DETAILS.has(name) && value !== undefined) details[name] = value;
  }
  return details;
}

/**
 * The `assets` row upsertAsset writes for an input (all but its id), given the ids of its
 * artist and collection. Exported so that the benchmarks' bulk loader writes the very same
 * columns (bench/fixtures/store-loader.ts).
 */
export function assetColumns(input: AssetInput, artistId: number | null, collectionId: number | null, updatedAt: string) {
  const f = input.fields;
  const dimensions = f.max_dimensions as { width: number; height: number } | undefined;
  return {
    asset_type: input.asset_type,
    asset_family: nullable(f.asset_family as string | undefined),
    title: nullable(f.title as string | undefined),
    caption: nullable(f.caption as string | undefined),
    artist_id: artistId,
    collection_id: collectionId,
    license_model: nullable(f.license_model as string | undefined),
    orientation: nullable(f.orientation as string | undefined),
    max_width: input.original?.width ?? dimensions?.width ?? null,
    max_height: input.original?.height ?? dimensions?.height ?? null,
    quality_rank: nullable(f.quality_rank as number | undefined),
    date_created: nullable(f.date_created as string | undefined),
    date_submitted: nullable(f.date_submitted as string | undefined),
    details: JSON.stringify(assetDetails(f)),
    original_key: input.original?.key ?? null,
    original_media_type: input.original?.media_type ?? null,
    visual_signature: input.visual_signature ?? null,
    updated_at: updatedAt,
    ...(input.media_facts === undefined ? {} : mediaFactsColumns(input.media_facts)),
  };
}

/** The `events` row upsertEvent writes for an input (all but its id); exported for the benchmarks' bulk loader. */
export function eventColumns(input: EventInput, updatedAt: string) {
  return {
    name: input.name,
    start_date: input.start_date ?? null,
    parent_id: input.parent_id ?? null,
    type: input.type ?? null,
    editorial_segments: JSON.stringify(input.editorial_segments ?? []),
    hero_image_id: input.hero_image_id ?? null,
    city: input.location?.city ?? null,
    country: input.location?.country ?? null,
    state_province: input.location?.state_province ?? null,
    venue: input.location?.venue ?? null,
    keywords: JSON.stringify((input.keywords ?? []).map((k) => ({ keyword_id: k.keyword_id ?? null, text: k.text, type: k.type ?? null }))),
    updated_at: updatedAt,
  };
}

/** An asset row as the catalogue's reads select it: its own columns with its artist's name and its collection's. */
export type AssetRow = Pick<
  AssetsTable,
  | 'id'
  | 'asset_type'
  | 'asset_family'
  | 'title'
  | 'caption'
  | 'license_model'
  | 'orientation'
  | 'max_width'
  | 'max_height'
  | 'quality_rank'
  | 'date_created'
  | 'date_submitted'
  | 'details'
  | 'original_key'
  | 'original_media_type'
  | 'visual_signature'
  | 'media_facts'
> & { download_count: number; artist: string | null; collection_id: number | null; collection_code: string | null; collection_name: string | null };

/** A row as CatalogRepository's assetRows() selects it: what a record is made of, with its state and when it last changed. */
type SelectedAssetRow = AssetRow & { publication: Publication; updated_at: string };

/**
 * A row of assetRows() read as an array, its values in the select list's order. An object
 * literal of one shape for every row: V8 makes it at a fraction of the cost of a property set a
 * column (a generic loop over the names took half as long again).
 */
function selectedAssetRow(values: unknown[]): SelectedAssetRow {
  return {
    id: values[0] as string,
    asset_type: values[1] as string,
    asset_family: values[2] as string | null,
    title: values[3] as string | null,
    caption: values[4] as string | null,
    license_model: values[5] as string | null,
    orientation: values[6] as string | null,
    max_width: values[7] as number | null,
    max_height: values[8] as number | null,
    quality_rank: values[9] as number | null,
    date_created: values[10] as string | null,
    date_submitted: values[11] as string | null,
    details: values[12] as string,
    original_key: values[13] as string | null,
    original_media_type: values[14] as string | null,
    visual_signature: values[15] as string | null,
    download_count: values[16] as number,
    media_facts: values[17] as string | null,
    publication: values[18] as Publication,
    updated_at: values[19] as string,
    artist: values[20] as string | null,
    collection_id: values[21] as number | null,
    collection_code: values[22] as string | null,
    collection_name: values[23] as string | null,
  };
}

/**
 * The record of an asset row with its keywords (in order) and event ids (ascending). Exported so
 * that the benchmarks index exactly what the repository would read back.
 */
export function assetRecord(r: AssetRow, keywords: StoredKeyword[], eventIds: number[]): AssetRecord {
  const facts = parseStoredFacts(r.media_facts) ?? null;
  const parsed = parseJson<unknown>(r.details, {});
  // The columns are set on the object just parsed, which nothing else holds: the same keys in the
  // same order as spreading it into a new one, for a twentieth of the time (about 1 µs against
  // 21 an asset, measured on the benchmark's records; a boot's scan makes one a stored asset).
  const details: Record<string, unknown> = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : { ...(parsed as object) };
  // A colour type the record does not give is the one detected from the pixels.
  if (details.color_type === undefined && facts !== null) details.color_type = facts.color_type;
  const fields = details;
  fields.asset_family = r.asset_family;
  fields.title = r.title;
  fields.caption = r.caption;
  fields.license_model = r.license_model;
  fields.orientation = r.orientation;
  fields.quality_rank = r.quality_rank;
  fields.date_created = r.date_created;
  fields.date_submitted = r.date_submitted;
  fields.max_dimensions = r.max_width !== null && r.max_height !== null ? { height: r.max_height, width: r.max_width } : null;
  fields.artist = r.artist;
  fields.collection_id = r.collection_id;
  fields.collection_code = r.collection_code;
  fields.collection_name = r.collection_name;
  fields.keywords = keywords;
  fields.event_ids = eventIds;
  return {
    id: r.id,
    asset_type: r.asset_type as AssetType,
    fields,
    width: r.max_width,
    height: r.max_height,
    original: r.original_key ? { key: r.original_key, media_type: r.original_media_type ?? 'image/jpeg' } : null,
    visual_signature: r.visual_signature,
    downloads: r.download_count,
    media_facts: facts,
  };
}

/** The columns media facts are stored in: the whole as JSON, its version (the backfill's marker) and the nudity score search compares. */
function mediaFactsColumns(facts: MediaFacts | null) {
  return {
    media_facts: facts === null ? null : JSON.stringify(facts),
    media_facts_version: facts === null ? null : facts.version,
    nudity_score: facts?.nudity ? nudityScore(facts.nudity) : null,
  };
}

/** A write that contradicts what is stored (an id reused for another type, a collection id clash). */
export class CatalogConflictError extends Error {
  override name = 'CatalogConflictError';
}

/** An asset's media facts are due: never computed, computed by an older version, or without the nudity score a classifier now gives. */
function needsMediaFacts(eb: ExpressionBuilder<Tables, 'assets'>, version: number, needNudity: boolean) {
  return eb.or([eb('media_facts_version', 'is', null), eb('media_facts_version', '<', version), ...(needNudity ? [eb('nudity_score', 'is', null)] : [])]);
}

/**
 * Assets' keyword links in their order, grouped by asset: the links of `assetIds[a]` are the
 * entries from `starts[a]` to `starts[a + 1]` of the two lists (no object a link: a page holds
 * about 14 an asset).
 */
interface AssetLinks {
  assetIds: string[];
  starts: number[];
  keywordIds: number[];
  relevances: Array<number | null>;
}

/** A keyword as stored. */
type KeywordRow = { id: number; text: string; type: string | null; entity_uris: string; entity_types: string; translations: string };

/**
 * The keywords a batch of writes has read or made, by id, as the store holds them within its
 * transaction (or will): every write to a keyword in the batch goes through keywordId, which keeps
 * this up to date, so a record sees what the records before it stored, as it would one
 * transaction each. An id absent here is not stored (the batch read every id its records name).
 * The keywords the batch makes wait in `unwritten` (the same row objects) and are written together
 * before anything refers to them, or before the store is asked for a keyword by its text.
 */
interface KeywordRows {
  byId: Map<number, KeywordRow>;
  unwritten: Map<number, KeywordRow>;
}

/**
 * What keywordId answers for a keyword the batch knows by its id (read or made) that the record
 * states nothing new of: its id, unchanged. Undefined for any other, which keywordId decides.
 * Without a query or a promise: most keywords of a long manifest are such, and a batch has tens
 * of thousands of them.
 */
function storedAsStated(keyword: KeywordInput, known: KeywordRows): { id: number; changed: false } | undefined {
  if (keyword.keyword_id === undefined || keyword.entity_uris || keyword.entity_types || keyword.translations) return undefined;
  const found = known.byId.get(Number(keyword.keyword_id));
  if (found === undefined || found.text !== keyword.text || (keyword.type !== undefined && keyword.type !== found.type)) return undefined;
  return { id: found.id, changed: false };
}

/** Ids in one `in (…)` list: well under what either store takes in one statement. */
const IN_LIST = 500;
/** Bound parameters in one statement: SQLite takes 32,766, PostgreSQL 65,535. */
const PARAMETERS_PER_STATEMENT = 30_000;

/** The texts of reads by a list of ids made so far (keywordRowsById), by dialect and size. */
const SELECT_TEXTS = new Map<string, string>();

/** The texts of multi-row inserts made so far (insertText): a few sizes of a few tables' rows. */
const INSERT_TEXTS = new Map<string, string>();

/** Rows in one multi-row insert at most, whatever fits: a statement of more costs more to compile and keep than it saves. */
const ROWS_PER_INSERT = 512;

/** How many rows like `row` one multi-row insert takes: a power of two, as insertSizes needs. */
function rowsPerInsert(row: object | undefined): number {
  const fit = row === undefined ? 1 : Math.max(1, Math.floor(PARAMETERS_PER_STATEMENT / Object.keys(row).length));
  return 2 ** Math.floor(Math.log2(Math.min(fit, ROWS_PER_INSERT)));
}

/**
 * How many rows each insert of `total` takes: full statements of `most` (a power of two), then
 * the rest in powers of two (437 → 256, 128, 32, 16, 4, 1). Rows of a table are thus written by
 * a few statement texts, which SQLite compiles once and runs again (database.ts, reusingWrites),
 * instead of a new text for the last rows of every batch.
 */
export function insertSizes(total: number, most: number): number[] {
  const sizes: number[] = [];
  let left = total;
  for (let size = most; left > 0; size /= 2) {
    while (left >= size) {
      sizes.push(size);
      left -= size;
    }
  }
  return sizes;
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size) out.push(items.slice(start, start + size));
  return out;
}
