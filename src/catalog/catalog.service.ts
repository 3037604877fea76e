import { setImmediate as turnOfTheEventLoop } from 'node:timers/promises';
import type { Change } from '../platform/db/change-log.js';
import type { FieldSelection } from '../platform/http/fields.js';
import type { CatalogRepository, EditingListFilter, PublicationChange } from './catalog.repository.js';
import { ASSET_ID } from './catalog.records.js';
import { assetNotFound, eventNotFound } from './catalog.errors.js';
import type {
  AssetInput,
  AssetRecord,
  AssetType,
  CollectionRecord,
  EditableAssetRecord,
  EventInput,
  EventRecord,
  Publication,
  StoredKeyword,
} from './catalog.records.js';
import { localizedText } from './localize.js';
import { epsOriginalOf } from './eps-original.js';
import { KeywordMemo, SCAN_CAPACITY } from './keyword-details.js';
import { EPS_MEDIA_TYPE } from '../media/eps-file.js';
import type { MediaFacts } from '../media/media-facts.js';

/** What the caller is: the language it reads and whether a valid bearer token came with the request. */
export interface ReadContext {
  language: string;
  authorized: boolean;
  /** The customer the token speaks for (none for a client-credentials token): whose download links to show. */
  userId?: number | null;
}

export interface DisplaySizeView {
  name: string;
  width: number;
  height: number;
  is_watermarked: boolean;
  uri: string;
}

/** The media module's part in a read: signed display URIs for an asset's renditions. */
export interface DisplaySizeProvider {
  displaySizes(
    asset: { id: string; width: number | null; height: number | null; hasOriginal: boolean; originalMediaType?: string | null | undefined },
    names: readonly string[],
  ): DisplaySizeView[];
  /** A video's key_frames: `count` stills ingest kept at its scene changes (none when not given). */
  keyFrames?(asset: { id: string; width: number | null; height: number | null; hasOriginal: boolean }, count: number): DisplaySizeView[];
}

export interface DownloadLink {
  product_id: string | null;
  product_type: string;
  uri: string;
  agreement_name: string | null;
}

/** The download links one customer may use for one size of an asset. */
export interface CustomerDownloadLinks {
  linksFor(asset: AssetRecord, size: Record<string, unknown>): DownloadLink[];
  /** The product type a download of the asset would use without product_id (download_product); null when none licenses it. */
  downloadProductFor(asset: AssetRecord): string | null;
}

/** One license the asset can be bought under and its price in credits (partner_licenses). */
export interface PartnerLicenseView {
  license_type: string;
  credits: number;
}

/** The licensing module's prices: what partner_licenses shows of an asset whose record lists none. */
export interface PartnerLicensePrices {
  partnerLicensesOf(asset: AssetRecord): PartnerLicenseView[];
}

/**
 * The licensing module's part in a read: what the customer holds is loaded once per read,
 * then asked synchronously for every size of every asset.
 */
export interface DownloadLinkProvider {
  forCustomer(userId: number): Promise<CustomerDownloadLinks>;
}

/** The embed module's part in a read: an asset's `uri_oembed`, null where it may not be embedded. */
export interface OEmbedUriProvider {
  oembedUri(record: AssetRecord): string | null;
}

const NO_LINKS: CustomerDownloadLinks = { linksFor: () => [], downloadProductFor: () => null };
const noDownloadLinks: DownloadLinkProvider = { forCustomer: async () => NO_LINKS };

/** Records kept in memory by default: each takes a few kilobytes of heap (6 KB with 14 keywords). */
export const DEFAULT_RECORD_CACHE_SIZE = 10_000;

/**
 * Assets a page of a scan. Each page's records (rows, parsed details, keyword lists) live while
 * the page is worked on, and the young generation's collections copy whatever lives: with pages
 * of 2,000 a build's reading thread spent a sixth of its time collecting. A build of the index
 * from a million assets took 96–103 s with pages of 2,000, 81–88 s with 500, 102 s with 250.
 */
const SCAN_PAGE_SIZE = 500;

/** Reads and writes the catalogue: images, videos, events and collections. */
export class CatalogService {
  private readonly assetCache = new Map<string, AssetRecord>();
  private readonly downloads: DownloadLinkProvider;

  constructor(
    private readonly repository: CatalogRepository,
    private readonly media: DisplaySizeProvider,
    downloads?: DownloadLinkProvider,
    /** records kept in memory, oldest dropped first */
    private readonly cacheSize = DEFAULT_RECORD_CACHE_SIZE,
    /** `uri_oembed` of each asset; without it, none is embeddable */
    private readonly embedding?: OEmbedUriProvider,
    /** partner_licenses of an asset whose record lists none; without it, [] */
    private readonly prices?: PartnerLicensePrices,
  ) {
    this.downloads = downloads ?? noDownloadLinks;
  }

  // ── writes ────────────────────────────────────────────────────────────────

  async upsertAsset(input: AssetInput): Promise<'insert' | 'update'> {
    const { operation, keywordsChanged } = await this.repository.upsertAsset(input);
    // A changed keyword shows in every asset that has it.
    if (keywordsChanged) this.assetCache.clear();
    else this.assetCache.delete(cacheKey(input.asset_type, input.id));
    return operation;
  }

  /**
   * upsertAsset for many records of distinct ids, in one transaction (see
   * CatalogRepository.upsertAssets): each one's operation, in their order. All or nothing.
   */
  async upsertAssets(inputs: readonly AssetInput[]): Promise<Array<'insert' | 'update'>> {
    const writes = await this.repository.upsertAssets(inputs);
    if (writes.some((write) => write.keywordsChanged)) this.assetCache.clear();
    else for (const input of inputs) this.assetCache.delete(cacheKey(input.asset_type, input.id));
    return writes.map((write) => write.operation);
  }

  async deleteAsset(assetType: AssetType, id: string): Promise<boolean> {
    this.assetCache.delete(cacheKey(assetType, id));
    return this.repository.deleteAsset(id);
  }

  /**
   * Moves an asset to the state `to` when it is in one of `from` (see CatalogRepository.changePublication);
   * undefined when there is no such asset. The back office's editing service is the caller.
   */
  async changePublication(id: string, to: Publication, from: readonly Publication[]): Promise<PublicationChange | undefined> {
    const change = await this.repository.changePublication(id, to, from);
    if (change) this.assetCache.delete(cacheKey(change.asset_type, id));
    return change;
  }

  /** Stores facts computed from an asset's original (see CatalogRepository.saveMediaFacts). */
  async saveMediaFacts(assetType: AssetType, id: string, originalKey: string, facts: MediaFacts): Promise<boolean> {
    const saved = await this.repository.saveMediaFacts(id, originalKey, facts);
    this.assetCache.delete(cacheKey(assetType, id));
    return saved;
  }

  /** The assets whose media facts are still to compute, a page at a time in id order (see CatalogRepository.assetsNeedingMediaFacts). */
  assetsNeedingMediaFacts(afterId: string | null, limit: number, version: number, needNudity: boolean) {
    return this.repository.assetsNeedingMediaFacts(afterId, limit, version, needNudity);
  }

  countAssetsNeedingMediaFacts(version: number, needNudity: boolean): Promise<number> {
    return this.repository.countAssetsNeedingMediaFacts(version, needNudity);
  }

  upsertEvent(input: EventInput): Promise<'insert' | 'update'> {
    return this.repository.upsertEvent(input);
  }

  /** upsertEvent for many events, in one transaction (see CatalogRepository.upsertEvents); all or nothing. */
  upsertEvents(inputs: readonly EventInput[]): Promise<Array<'insert' | 'update'>> {
    return this.repository.upsertEvents(inputs);
  }

  /** Drops cached records that another process changed; fed by the change log. */
  applyChanges(changes: readonly Change[]): void {
    for (const change of changes) {
      if (change.entity_type === 'image' || change.entity_type === 'video') {
        this.assetCache.delete(cacheKey(change.entity_type, change.entity_id));
      } else if ((change.entity_type === 'collection' && change.operation !== 'insert') || change.entity_type === 'keyword') {
        // A renamed collection or a changed keyword shows in every asset that has it. A new
        // collection is in no cached record yet: the assets that name it are logged themselves.
        this.assetCache.clear();
      }
    }
  }

  /**
   * The published assets, by type, whose records show one of these collections or keywords: what
   * a follower of the change log re-reads when a collection is renamed or a keyword changes.
   */
  async assetsShowing(shown: { collectionIds: readonly number[]; keywordIds: readonly number[] }): Promise<Record<AssetType, string[]>> {
    const byType: Record<AssetType, string[]> = { image: [], video: [] };
    if (shown.collectionIds.length === 0 && shown.keywordIds.length === 0) return byType;
    for (const { id, asset_type } of await this.repository.assetsShowing(shown)) byType[asset_type as AssetType].push(id);
    return byType;
  }

  /**
   * Every published asset, a page at a time, straight from the store (the cache is not filled by
   * a scan). The next page is asked for before this one is handed over, so that on PostgreSQL the
   * server reads it while the caller works on this one (on SQLite the read is synchronous and
   * nothing changes).
   */
  async *scanAssets(pageSize = SCAN_PAGE_SIZE): AsyncGenerator<AssetRecord[]> {
    const whole = await this.repository.prepareWholeRead();
    const keywords = new KeywordMemo(SCAN_CAPACITY);
    const pageAfter = (after: string | null) => {
      const read = this.repository.scanAssets(after, pageSize, keywords);
      // a caller that stops early never awaits the page read ahead: its failure is not unhandled
      read.catch(() => undefined);
      return read;
    };
    let scanned = 0;
    try {
      let next = pageAfter(null);
      for (;;) {
        const page = await next;
        if (page.length === 0) return;
        scanned += page.length;
        whole.progress(scanned);
        next = pageAfter(page[page.length - 1]!.id);
        yield page;
        // SQLite reads synchronously, so without a turn of the event loop nothing else would run
        // until the whole store is read: not the log's writes (at ten million assets no progress
        // line reached the log during the half-hour read), nor timers, signals and the store's
        // read-ahead.
        await turnOfTheEventLoop();
      }
    } finally {
      await whole.end();
    }
  }

  /** Every event, a page at a time. */
  async *scanEvents(pageSize = 2000): AsyncGenerator<EventRecord[]> {
    let after: number | null = null;
    for (;;) {
      const page = await this.repository.scanEvents(after, pageSize);
      if (page.length === 0) return;
      yield page;
      after = page[page.length - 1]!.id;
    }
  }

  /** Every asset stored, whatever its state: whether the store is empty. */
  countAssets(): Promise<number> {
    return this.repository.countAssets();
  }

  /** One more download of an asset (licensing calls it; search's most_popular ranks by the count). */
  async countDownload(assetType: AssetType, id: string): Promise<void> {
    await this.repository.countDownload(assetType, id);
    this.assetCache.delete(cacheKey(assetType, id));
  }

  /** Where the original file of a published asset is, for the media module (it renders and delivers only those). */
  async findOriginal(assetId: string): Promise<{ originalKey: string } | undefined> {
    const key = await this.repository.findOriginalKey(assetId);
    return key ? { originalKey: key } : undefined;
  }

  /** Where an asset's original is whatever its state: for ingest, which keeps it, and the back office, which shows it to staff. */
  async findOriginalInAnyState(assetId: string): Promise<{ originalKey: string } | undefined> {
    const key = await this.repository.findOriginalKeyInAnyState(assetId);
    return key ? { originalKey: key } : undefined;
  }

  /**
   * Whether the catalogue withdrew this asset: a client asking for it is told so rather than
   * that it never existed. A draft is not withdrawn (nothing about it is shown to a client).
   */
  async wasWithdrawn(assetType: AssetType, id: string): Promise<boolean> {
    if (!ASSET_ID.test(id)) return false;
    return (await this.repository.publicationOf(assetType, id)) === 'withdrawn';
  }

  /** Where an image's EPS (vector) original is in the blob store, if it has one (media delivers it). */
  async findEpsOriginal(assetId: string): Promise<{ key: string } | undefined> {
    const record = (await this.findAssets('image', [assetId])).found[0];
    const eps = record === undefined ? undefined : epsOriginalOf(record.fields);
    return eps === undefined ? undefined : { key: eps.key };
  }

  // ── reads ─────────────────────────────────────────────────────────────────

  /*
   * Every read below answers published assets only, so no module can show a client a draft or
   * a withdrawn asset by forgetting to check. The reads of other states are named so.
   */

  /** Records of one type in the order asked, each id once; unknown ids come back in notFound. */
  async findAssets(assetType: AssetType, ids: readonly string[]): Promise<{ found: AssetRecord[]; notFound: string[] }> {
    const unique = [...new Set(ids)];
    const byId = new Map<string, AssetRecord>();
    const missing: string[] = [];
    for (const id of unique) {
      // An id no asset can have is not looked up (a NUL byte would even upset PostgreSQL).
      if (!ASSET_ID.test(id)) continue;
      const cached = this.assetCache.get(cacheKey(assetType, id));
      if (cached) byId.set(id, cached);
      else missing.push(id);
    }
    if (missing.length > 0) {
      for (const record of await this.repository.findAssets(assetType, missing)) {
        byId.set(record.id, record);
        this.remember(record);
      }
    }
    const found: AssetRecord[] = [];
    const notFoundIds: string[] = [];
    for (const id of unique) {
      const record = byId.get(id);
      if (record) found.push(record);
      else notFoundIds.push(id);
    }
    return { found, notFound: notFoundIds };
  }

  /**
   * The type of each published (and, when asked, withdrawn) asset among `ids`, read from the store
   * by key alone: for checking many ids at once (usage batches) without filling the record cache
   * the metadata reads live on.
   */
  async assetTypesOf(ids: readonly string[], options: { includeWithdrawn?: boolean } = {}): Promise<Map<string, AssetType>> {
    const valid = [...new Set(ids)].filter((id) => ASSET_ID.test(id));
    const states: Publication[] = options.includeWithdrawn ? ['published', 'withdrawn'] : ['published'];
    const rows = valid.length === 0 ? [] : await this.repository.assetTypes(valid, states);
    return new Map(rows.map((row) => [row.id, row.asset_type as AssetType]));
  }

  /**
   * Published and withdrawn assets among ids (never drafts, which nobody bought): what the records
   * of past sales name, such as a royalty statement's artists. Straight from the store.
   */
  async findSoldOrSellableAssets(assetType: AssetType, ids: readonly string[]): Promise<AssetRecord[]> {
    const valid = [...new Set(ids)].filter((id) => ASSET_ID.test(id));
    return (await this.repository.findAssetsInAnyState(assetType, valid)).filter((record) => record.publication !== 'draft');
  }

  /** Assets among ids whatever their state, with it (the back office and ingest); straight from the store, unknown ids absent. */
  async findAssetsInAnyState(assetType: AssetType | undefined, ids: readonly string[]): Promise<EditableAssetRecord[]> {
    const valid = [...new Set(ids)].filter((id) => ASSET_ID.test(id));
    return this.repository.findAssetsInAnyState(assetType, valid);
  }

  /** One page of the assets in one state (the back office's review queue and lists). */
  listInState(filter: EditingListFilter): Promise<{ total: number; records: EditableAssetRecord[] }> {
    return this.repository.listInState(filter);
  }

  async getAssets(assetType: AssetType, ids: readonly string[], selection: FieldSelection, context: ReadContext) {
    const { found, notFound: missing } = await this.findAssets(assetType, ids);
    const links = found.length > 0 ? await this.linksOf(selection, context) : NO_LINKS;
    return { assets: found.map((record) => this.project(record, selection, context, links)), notFound: missing };
  }

  async getAsset(assetType: AssetType, id: string, selection: FieldSelection, context: ReadContext) {
    const { found } = await this.findAssets(assetType, [id]);
    const record = found[0];
    if (!record) throw assetNotFound(assetType, id);
    return this.project(record, selection, context, await this.linksOf(selection, context));
  }

  /** The thumb display URI of each asset that has one, by id (download history and purchases show it). */
  async thumbUris(assetType: AssetType, ids: readonly string[]): Promise<Map<string, string>> {
    const { found } = await this.findAssets(assetType, ids);
    const uris = new Map<string, string>();
    for (const record of found) {
      const thumb = this.media.displaySizes(
        { id: record.id, width: record.width, height: record.height, hasOriginal: record.original !== null },
        ['thumb'],
      )[0];
      if (thumb) uris.set(record.id, thumb.uri);
    }
    return uris;
  }

  async getEvents(ids: readonly number[], selection: FieldSelection, context: ReadContext) {
    const unique = [...new Set(ids)];
    const records = await this.repository.findEvents(unique);
    const byId = new Map(records.map((r) => [r.id, r]));
    const events = [];
    const missing: number[] = [];
    for (const id of unique) {
      const record = byId.get(id);
      if (record) events.push(await this.projectEvent(record, selection, context));
      else missing.push(id);
    }
    return { events, notFound: missing };
  }

  /** Event records as stored, for indexes; unknown ids are absent. */
  findEventRecords(ids: readonly number[]): Promise<EventRecord[]> {
    return this.repository.findEvents(ids);
  }

  async getEvent(id: number, selection: FieldSelection, context: ReadContext) {
    const { events } = await this.getEvents([id], selection, context);
    const event = events[0];
    if (!event) throw eventNotFound(id);
    return event;
  }

  listCollections(): Promise<CollectionRecord[]> {
    return this.repository.listCollections();
  }

  // ── shaping ───────────────────────────────────────────────────────────────

  private remember(record: AssetRecord): void {
    if (this.cacheSize === 0) return;
    if (this.assetCache.size >= this.cacheSize) {
      // Oldest first: a Map iterates in insertion order.
      const oldest = this.assetCache.keys().next().value;
      if (oldest !== undefined) this.assetCache.delete(oldest);
    }
    this.assetCache.set(cacheKey(record.asset_type, record.id), record);
  }

  /** The customer's download links, loaded only when a selected field shows them. */
  private async linksOf(selection: FieldSelection, context: ReadContext): Promise<CustomerDownloadLinks> {
    const shown = selection.fields.has('downloads') || selection.fields.has('largest_downloads') || selection.fields.has('download_product');
    if (!shown || !context.authorized || context.userId == null) return NO_LINKS;
    return this.downloads.forCustomer(context.userId);
  }

  /** The response object: id, then exactly the selected fields, null where the record has no value. */
  private project(
    record: AssetRecord,
    selection: FieldSelection,
    context: ReadContext,
    links: CustomerDownloadLinks,
  ): Record<string, unknown> {
    const out: Record<string, unknown> = { id: record.id };
    const fields = record.fields;
    for (const name of selection.fields) {
      switch (name) {
        case 'id':
          break;
        case 'keywords':
          out.keywords = localizeKeywords(fields.keywords as StoredKeyword[], context.language);
          break;
        case 'download_sizes':
        case 'downloads':
        case 'largest_downloads':
          if (context.authorized) this.addDownloads(out, record, name, links);
          break;
        case 'display_sizes':
          break;
        case 'key_frames':
          // Stills at the scene changes ingest found in the video file (media signs their URLs).
          out.key_frames = this.media.keyFrames?.(
            { id: record.id, width: record.width, height: record.height, hasOriginal: record.original !== null },
            typeof fields.key_frame_count === 'number' ? fields.key_frame_count : 0,
          ) ?? [];
          break;
        case 'uri_oembed':
          out.uri_oembed = this.embedding?.oembedUri(record) ?? null;
          break;
        case 'prestige':
          // Only the curated top tier says so; every other asset is not prestige content.
          out.prestige = fields.prestige === true;
          break;
        case 'download_product':
          // For a signed-in customer, the product their download would use; else what ingest said.
          out.download_product = context.authorized && context.userId != null ? links.downloadProductFor(record) : ((fields.download_product as string | undefined) ?? null);
          break;
        case 'partner_licenses':
          out.partner_licenses = Array.isArray(fields.partner_licenses) && fields.partner_licenses.length > 0 ? fields.partner_licenses : (this.prices?.partnerLicensesOf(record) ?? []);
          break;
        case 'entity_details':
          out.entity_details = Array.isArray(fields.entity_details) && fields.entity_details.length > 0 ? fields.entity_details : entityDetailsOf(fields.keywords as StoredKeyword[] | undefined, context.language);
          break;
        default:
          out[name] = fields[name] ?? null;
      }
    }
    if (selection.displaySizes.length > 0) {
      out.display_sizes = this.media.displaySizes(
        { id: record.id, width: record.width, height: record.height, hasOriginal: record.original !== null, originalMediaType: record.original?.media_type },
        selection.displaySizes,
      );
    }
    return out;
  }

  private addDownloads(out: Record<string, unknown>, record: AssetRecord, name: string, links: CustomerDownloadLinks): void {
    const sizes = (record.fields.download_sizes as Array<Record<string, unknown>> | undefined) ?? [];
    if (name === 'download_sizes') {
      // download_sizes lists the sizes without links; `downloads` adds them.
      if (!('download_sizes' in out)) out.download_sizes = sizes.map((size) => withoutDownloads(size));
      return;
    }
    const withLinks = sizes.map((size) => ({ ...size, downloads: links.linksFor(record, size) }));
    if (name === 'downloads') out.download_sizes = withLinks;
    else out.largest_downloads = withLinks.length > 0 ? [largest(withLinks)] : [];
  }

  private async projectEvent(record: EventRecord, selection: FieldSelection, context: ReadContext) {
    const out: Record<string, unknown> = { id: record.id };
    for (const name of selection.fields) {
      switch (name) {
        case 'id':
          break;
        case 'hero_image':
          out.hero_image = await this.heroImage(record.hero_image_id);
          break;
        case 'keywords':
          out.keywords = record.keywords;
          break;
        default:
          out[name] = (record as unknown as Record<string, unknown>)[name] ?? null;
      }
    }
    void context;
    return out;
  }

  private async heroImage(id: string | null) {
    if (!id) return null;
    const { found } = await this.findAssets('image', [id]);
    const hero = found[0];
    if (!hero) return { id, display_sizes: [] };
    const sizes = this.media.displaySizes(
      { id, width: hero.width, height: hero.height, hasOriginal: hero.original !== null },
      ['comp', 'preview', 'thumb'],
    );
    return { id, display_sizes: sizes.map(({ name, is_watermarked, uri }) => ({ name, is_watermarked, uri })) };
  }
}

function cacheKey(assetType: AssetType, id: string): string {
  return `${assetType}:${id}`;
}

function localizeKeywords(keywords: readonly StoredKeyword[] | undefined, language: string) {
  if (!keywords) return [];
  return keywords.map((k) => ({
    keyword_id: k.keyword_id,
    text: localizedText(k.text, k.translations, language),
    type: k.type,
    relevance: k.relevance,
    entity_uris: k.entity_uris,
    entity_types: k.entity_types,
  }));
}

/**
 * The entities an asset's keywords name (a keyword's entity_uris, such as a Wikidata item), each
 * once, in keyword order: what entity_details shows when ingest gave no details of its own.
 */
function entityDetailsOf(keywords: readonly StoredKeyword[] | undefined, language: string) {
  const details: Array<{ entity_uri: string; entity_types: string[]; name: string; keyword_id: string }> = [];
  const seen = new Set<string>();
  for (const keyword of keywords ?? []) {
    for (const uri of keyword.entity_uris) {
      if (seen.has(uri)) continue;
      seen.add(uri);
      details.push({ entity_uri: uri, entity_types: keyword.entity_types, name: localizedText(keyword.text, keyword.translations, language), keyword_id: keyword.keyword_id });
    }
  }
  return details;
}

function withoutDownloads(size: Record<string, unknown>): Record<string, unknown> {
  const { downloads: _ignored, ...rest } = size;
  return rest;
}

function largest(sizes: Array<Record<string, unknown>>): Record<string, unknown> {
  const area = (size: Record<string, unknown>) => Number(size.width ?? 0) * Number(size.height ?? 0) || Number(size.bytes ?? 0);
  // The largest raster size: an EPS's bounding box is in points, not pixels, and it has a link of its own.
  const raster = sizes.filter((size) => size.media_type !== EPS_MEDIA_TYPE);
  return (raster.length > 0 ? raster : sizes).reduce((best, size) => (area(size) > area(best) ? size : best));
}
