import type { BoardsService } from '../boards/boards.service.js';
import type { AssetRecord, AssetType, StoredKeyword } from '../catalog/catalog.records.js';
import type { CatalogService } from '../catalog/catalog.service.js';
import { IMAGE_FIELDS, VIDEO_FIELDS } from '../catalog/field-sets.js';
import { originalSizeName } from '../media/video/video-sizes.js';
import { localizedText } from '../catalog/localize.js';
import type { DownloadsService } from '../licensing/downloads.service.js';
import { downloadCredits, licensableAsset, paysWithCredits, standardCredits, typeLicenses } from '../licensing/entitlements.js';
import { PRODUCT_CHOICE_ORDER } from '../licensing/licensing-policy.js';
import type { ProductRecord, ProductsService } from '../licensing/products.service.js';
import type { DeliveredFile } from '../media/delivery.js';
import { ZIP_MAX_BYTES, type ZipEntry } from '../platform/zip-stream.js';
import { FieldSelector, type FieldSelection } from '../platform/http/fields.js';
import type { AssetSearch, SearchCaller } from '../search/asset-search.js';
import { normalizeSearchParameters } from '../search/params/normalize.js';
import { EDITORIAL_FACET_FIELDS, CREATIVE_FACET_FIELDS } from '../search/params/search-values.js';
import { apiQueryOf, endpointOf, PAGE_SIZE, type BrowseQuery } from './web-search.js';
import type { WebUser } from './web-sessions.service.js';
import { anyAssetNotFound } from '../catalog/catalog.errors.js';

/** Who is reading a page: their language (Accept-Language) and, when signed in, who they are. */
export interface Reader {
  language: string;
  user: WebUser | undefined;
}

/** An asset as a result card or a board tile shows it. */
export interface AssetCard {
  id: string;
  assetType: AssetType;
  title: string;
  family: string | null;
  artist: string | null;
  /** the watermarked comp (612 px), or the thumb when there is no comp */
  picture: { uri: string; width: number; height: number } | undefined;
  /** What a picture editor reads on the card: date and place; an editorial picture's event; a clip's length and best resolution. */
  facts: string[];
  /** a video's watermarked preview clip, played on hover or focus */
  clip: string | undefined;
  /** the comp (full watermark), which the quick look shows large */
  comp: string | undefined;
  /** the caption, which a shared board shows under each picture */
  caption: string | null;
}

export interface FacetValue {
  /** what the refinement adds to the URL: an artist's or person's name, or an event id */
  value: string;
  label: string;
  count: number;
}

export interface SearchPage {
  total: number;
  cards: AssetCard[];
  /** facet name (artists, events, specific_people) → values, those the search counts */
  facets: Array<{ parameter: 'artists' | 'event_ids' | 'specific_people'; values: FacetValue[] }>;
  pages: number;
  correction: string | undefined;
}

/** One way to license one size: a product the person holds and what a download under it costs. */
export interface LicenseOption {
  productId: number;
  productType: string;
  productName: string;
  agreementName: string | null;
  /** What downloading under it costs now, in words: "3 credits (37 left)", "1 download (49 of 50 left this month)", free again when already licensed */
  cost: string;
  /** the asset is licensed under this product already: downloading it again costs nothing */
  alreadyLicensed: boolean;
  /** the product asks for notes or a project code with each download */
  noteRequired: boolean;
  projectCodeRequired: boolean;
  projectCodes: string[];
}

export interface DownloadSizeOption {
  /** what the download form sends: an image's height, a video's size name */
  sizeValue: string;
  label: string;
  /** width × height (or bytes): the largest size is offered first and preselected */
  area: number;
  options: LicenseOption[];
}

/** The licence terms an asset page states up front, signed in or not. */
export interface LicenceTerms {
  /** "Editorial use only", … (empty: none) */
  restrictions: string[];
  /** "Model and property released", "Not released. Editorial use only." */
  release: string | null;
  /** what the licence lets a customer do with it, in words */
  use: string | null;
  copyright: string | null;
  creditLine: string | null;
  /** "Royalty-free", "Rights-managed", "Rights-ready" */
  licenseModel: string | null;
}

/** What one product type would charge to license the asset (shown signed out too). */
export interface ProductPrice {
  productType: string;
  cost: string;
}

export interface AssetPage {
  record: AssetRecord;
  detail: Record<string, unknown>;
  title: string;
  caption: string | null;
  terms: LicenceTerms;
  prices: ProductPrice[];
  keywords: Array<{ text: string; label: string }>;
  preview: { poster: string | undefined; clip: string | undefined; width: number; height: number };
  similar: AssetCard[];
  sameSeries: AssetCard[];
  /** undefined when nobody is signed in */
  licensing: DownloadSizeOption[] | undefined;
  boards: Array<{ id: string; name: string }>;
}

/** A result card's picture: the signed URL and size of an asset's lightly marked grid rendition, for an original of width × height. */
export type GridPicture = (assetId: string, width: number, height: number) => { uri: string; width: number; height: number } | undefined;

/** The file of a size of an asset a person licensed, as the delivery URL serves it (media's deliver); undefined when the asset has no file. */
export type LicensedFile = (spec: { assetId: string; assetType: AssetType; width: number | null; height: number | null; sizeName: string }) => Promise<DeliveredFile | undefined>;

/** One line of a board zip's manifest: an asset, its credit, and its file or why it was left out. */
export interface ManifestLine {
  assetId: string;
  title: string;
  creditLine: string | null;
  copyright: string | null;
  licenseModel: string | null;
  /** the product type and size the person licensed it under */
  licensed: string | null;
  /** its name in the zip; null when left out */
  file: string | null;
  leftOut: string | null;
}

export interface WebServiceDeps {
  /** The search module's use case: a page searches exactly as the JSON search does. */
  assetSearch: AssetSearch;
  catalog: CatalogService;
  products: ProductsService;
  downloads: DownloadsService;
  boards: BoardsService;
  gridPicture: GridPicture;
  licensedFile: LicensedFile;
}

const CARD_FIELDS = ['id', 'title', 'caption', 'object_name', 'artist', 'asset_family', 'comp', 'thumb', 'date_created', 'city', 'country', 'event_ids', 'max_dimensions'];
const IMAGE_CARDS = new FieldSelector(IMAGE_FIELDS).select(CARD_FIELDS);
const VIDEO_CARDS = new FieldSelector(VIDEO_FIELDS).select([...CARD_FIELDS, 'clip_length', 'preview']);
const cardSelection = (assetType: AssetType): FieldSelection => (assetType === 'image' ? IMAGE_CARDS : VIDEO_CARDS);
const DETAIL_FIELDS = [
  'id',
  'title',
  'caption',
  'object_name',
  'artist',
  'asset_family',
  'license_model',
  'collection_name',
  'date_created',
  'orientation',
  'city',
  'country',
  'people',
  'keywords',
  'uri_oembed',
  'allowed_use',
  'copyright',
];
const IMAGE_DETAIL_FIELDS = [...DETAIL_FIELDS, 'credit_line', 'max_dimensions', 'thumb', 'comp', 'mid_res_comp'];
const VIDEO_DETAIL_FIELDS = [...DETAIL_FIELDS, 'clip_length', 'mastered_to', 'max_dimensions', 'thumb', 'comp', 'preview'];
const IMAGE_DETAIL = new FieldSelector(IMAGE_FIELDS).select(IMAGE_DETAIL_FIELDS);
const VIDEO_DETAIL = new FieldSelector(VIDEO_FIELDS).select(VIDEO_DETAIL_FIELDS);
// Signed in, `downloads` gives the download sizes with the links of the person's products (the catalogue asks licensing).
const IMAGE_DETAIL_SIGNED_IN = new FieldSelector(IMAGE_FIELDS).select([...IMAGE_DETAIL_FIELDS, 'downloads']);
const VIDEO_DETAIL_SIGNED_IN = new FieldSelector(VIDEO_FIELDS).select([...VIDEO_DETAIL_FIELDS, 'downloads']);

const CREDIT_FIELDS = ['id', 'title', 'caption', 'object_name', 'artist', 'copyright', 'license_model'];
const IMAGE_CREDITS = new FieldSelector(IMAGE_FIELDS).select([...CREDIT_FIELDS, 'credit_line']);
const VIDEO_CREDITS = new FieldSelector(VIDEO_FIELDS).select(CREDIT_FIELDS);

const RELATED_COUNT = 8;
const SUGGESTION_COUNT = 8;
const MONTHLY: Readonly<Record<string, string>> = { day: 'today', month: 'this month', year: 'this year' };

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/**
 * The catalogue browser's pages as data: search, asset, licensing. Every read goes through the
 * services the JSON API uses (search, catalogue, licensing, boards), with the JSON search's own
 * parameter rules, so a page and the API never disagree about what a search finds.
 */
export class WebService {
  private readonly assetSearch: AssetSearch;
  private readonly catalog: CatalogService;
  private readonly products: ProductsService;
  private readonly downloads: DownloadsService;
  private readonly boards: BoardsService;
  private readonly gridPicture: GridPicture;
  private readonly licensedFile: LicensedFile;

  constructor(deps: WebServiceDeps) {
    this.gridPicture = deps.gridPicture;
    this.licensedFile = deps.licensedFile;
    this.assetSearch = deps.assetSearch;
    this.catalog = deps.catalog;
    this.products = deps.products;
    this.downloads = deps.downloads;
    this.boards = deps.boards;
  }

  /** The search a page shows: the JSON search's parameters, and its use case under the reader's licensing view. */
  async searchPage(query: BrowseQuery, reader: Reader): Promise<SearchPage> {
    const endpoint = endpointOf(query);
    const facetFields = endpoint.endsWith('editorial') ? EDITORIAL_FACET_FIELDS.filter((name) => name !== 'locations') : CREATIVE_FACET_FIELDS.filter((name) => name !== 'locations');
    const normalized = normalizeSearchParameters(endpoint, apiQueryOf(query, facetFields));
    const assetType: AssetType = endpoint.startsWith('images') ? 'image' : 'video';
    const found = await this.assetSearch.keyword(normalized, await this.searchCaller(assetType, reader));
    const facets: SearchPage['facets'] = [];
    const { artists, events, specific_people: people } = found.facets ?? {};
    const values = (list: FacetValue[]) => list.map(({ value, label, count }) => ({ value, label, count }));
    if (artists?.length) facets.push({ parameter: 'artists', values: values(artists) });
    if (events?.length) facets.push({ parameter: 'event_ids', values: values(events) });
    if (people?.length) facets.push({ parameter: 'specific_people', values: values(people) });
    return {
      total: found.total,
      cards: await this.cardsOf(assetType, found.assets),
      facets,
      pages: Math.max(1, Math.ceil(found.total / PAGE_SIZE)),
      correction: found.corrections,
    };
  }

  /** A reader as a search sees them: a signed-in person's results are limited to what they may license; cards read with no token. */
  private async searchCaller(assetType: AssetType, reader: Reader): Promise<SearchCaller> {
    return {
      licensingTypes: reader.user ? await this.products.licensingProductTypes(reader.user.userId) : [],
      selection: cardSelection(assetType),
      read: { language: reader.language, authorized: false },
    };
  }

  /** What the search field suggests as a person types: the text with its last word completed from the catalogue's vocabulary. */
  suggestions(phrase: string): string[] {
    return this.assetSearch.suggestions(phrase, SUGGESTION_COUNT);
  }

  /** Cards for ids of one type, in their order (an id the catalogue no longer has is left out). */
  async cards(assetType: AssetType, ids: readonly string[], reader: Reader): Promise<AssetCard[]> {
    if (ids.length === 0) return [];
    const { assets } = await this.catalog.getAssets(assetType, ids, cardSelection(assetType), { language: reader.language, authorized: false });
    return this.cardsOf(assetType, assets);
  }

  /** Cards for assets read with the cards' selection, in their order. */
  private async cardsOf(assetType: AssetType, assets: ReadonlyArray<Record<string, unknown>>): Promise<AssetCard[]> {
    // Editorial cards name their event: one look-up for the events of the whole page.
    const eventIds = [...new Set(assets.flatMap((asset) => (asset.asset_family === 'editorial' && Array.isArray(asset.event_ids) ? (asset.event_ids as number[]) : [])))];
    const events = new Map((eventIds.length > 0 ? await this.catalog.findEventRecords(eventIds) : []).map((event) => [event.id, event.name]));
    return assets.map((asset) => cardOf(asset, assetType, events, this.gridPicture));
  }

  /** A board's assets as cards, in the board's order (titles in the reader's language). */
  async boardCards(assets: ReadonlyArray<{ id: string; asset_type: AssetType }>, reader: Reader): Promise<AssetCard[]> {
    const images = await this.cards('image', assets.filter((asset) => asset.asset_type === 'image').map((asset) => asset.id), reader);
    const videos = await this.cards('video', assets.filter((asset) => asset.asset_type === 'video').map((asset) => asset.id), reader);
    const byId = new Map([...images, ...videos].map((card) => [card.id, card]));
    return assets.flatMap((asset) => byId.get(asset.id) ?? []);
  }

  /** The record behind an id, image or video; 404 when the catalogue has neither. */
  async findAsset(id: string): Promise<AssetRecord> {
    const images = await this.catalog.findAssets('image', [id]);
    if (images.found[0]) return images.found[0];
    const videos = await this.catalog.findAssets('video', [id]);
    if (videos.found[0]) return videos.found[0];
    throw anyAssetNotFound(`There is no image or video ${id} in the catalogue`);
  }

  async assetPage(id: string, reader: Reader): Promise<AssetPage> {
    const record = await this.findAsset(id);
    const assetType = record.asset_type;
    const signedIn = reader.user !== undefined;
    const selection = assetType === 'image' ? (signedIn ? IMAGE_DETAIL_SIGNED_IN : IMAGE_DETAIL) : signedIn ? VIDEO_DETAIL_SIGNED_IN : VIDEO_DETAIL;
    const detail = (await this.catalog.getAsset(assetType, id, selection, {
      language: reader.language,
      authorized: signedIn,
      userId: reader.user?.userId ?? null,
    })) as Record<string, unknown>;
    const sizes = displaySizes(detail);
    const comp = sizes.find((size) => size.name === (assetType === 'image' ? 'mid_res_comp' : 'comp')) ?? sizes.find((size) => size.name === 'comp');
    const clip = sizes.find((size) => /\.(mp4|webm)(\?|$)/i.test(size.uri));
    const stillSize = sizes.find((size) => size.uri === comp?.uri && !/\.(mp4|webm)(\?|$)/i.test(size.uri)) ?? sizes.find((size) => !/\.(mp4|webm)(\?|$)/i.test(size.uri) && size.name !== 'thumb');
    const caller = await this.searchCaller(assetType, reader);
    const related = { page: 1, page_size: RELATED_COUNT };
    const similar = await this.assetSearch.similar(record, related, caller);
    const sameSeries = await this.assetSearch.sameSeries(record, related, caller);
    const storedKeywords = Array.isArray(record.fields.keywords) ? (record.fields.keywords as StoredKeyword[]) : [];
    return {
      record,
      detail,
      title: titleOf(detail, assetType),
      caption: text(detail.caption),
      terms: termsOf(detail),
      prices: pricesOf(record),
      keywords: storedKeywords.map((keyword) => ({ text: keyword.text, label: localizedText(keyword.text, keyword.translations, reader.language) })),
      preview: {
        poster: stillSize?.uri,
        clip: clip?.uri,
        width: stillSize?.width ?? comp?.width ?? 612,
        height: stillSize?.height ?? comp?.height ?? 408,
      },
      similar: await this.cardsOf(assetType, similar.assets),
      sameSeries: await this.cardsOf(assetType, sameSeries.assets),
      licensing: reader.user ? await this.licenseOptions(record, detail, reader.user) : undefined,
      boards: reader.user ? await this.boardChoices(reader.user.userId) : [],
    };
  }

  /** For each download size, the person's products that license it, with what each download costs. */
  private async licenseOptions(record: AssetRecord, detail: Record<string, unknown>, user: WebUser): Promise<DownloadSizeOption[]> {
    const products = new Map((await this.products.productsForToken(user.grant, { downloadRequirements: true })).map((product) => [product.id, product]));
    const licensedUnder = await this.downloads.licensedUnder(user.grant, [...products.keys()], record.id);
    const asset = licensableAsset(record);
    const sizes = Array.isArray(detail.download_sizes) ? (detail.download_sizes as Array<Record<string, unknown>>) : [];
    return sizes.flatMap((size) => {
      const links = Array.isArray(size.downloads) ? (size.downloads as Array<{ product_id: string | null; product_type: string; agreement_name: string | null }>) : [];
      const options = links.flatMap((link) => {
        const product = products.get(Number(link.product_id));
        if (!product) return [];
        return [
          {
            productId: product.id,
            productType: product.type,
            productName: product.name,
            agreementName: link.agreement_name,
            cost: licensedUnder.has(product.id) ? 'Already licensed: downloading it again costs nothing' : costOf(product, downloadCredits(product.type, asset)),
            alreadyLicensed: licensedUnder.has(product.id),
            noteRequired: product.download_requirements?.is_note_required ?? false,
            projectCodeRequired: product.download_requirements?.is_project_code_required ?? false,
            projectCodes: product.download_requirements?.project_codes ?? [],
          },
        ];
      });
      const sizeValue = record.asset_type === 'image' ? (typeof size.height === 'number' ? String(size.height) : '') : (text(size.name) ?? '');
      if (options.length === 0 || sizeValue === '') return [];
      // An option already licensed first: it is the one that costs nothing.
      options.sort((a, b) => Number(b.alreadyLicensed) - Number(a.alreadyLicensed));
      const area = (typeof size.width === 'number' && typeof size.height === 'number' ? size.width * size.height : 0) || (typeof size.bytes === 'number' ? size.bytes : 0);
      return [{ sizeValue, label: sizeLabel(size), area, options }];
    }).sort((a, b) => b.area - a.area);
  }

  /** The boards a person may add assets to (their own and those they were invited to), newest first. */
  async boardChoices(userId: number): Promise<Array<{ id: string; name: string }>> {
    const { boards } = await this.boards.list(userId, { page: 1, pageSize: 100, relationship: undefined, sort: 'date_last_updated_descending' });
    return boards.map((board) => ({ id: board.id, name: board.name }));
  }

  /** Downloads an asset under one product: the ledger and the delivery URL, exactly as POST /v3/downloads does. */
  async download(
    user: WebUser,
    input: {
      assetId: string;
      productId: number;
      productType: string;
      size: string;
      notes?: string | undefined;
      projectCode?: string | undefined;
      /** the download history's download_source: the site's name */
      source: string;
    },
  ): Promise<string> {
    const record = await this.findAsset(input.assetId);
    const result = await this.downloads.download({
      grant: user.grant,
      assetType: record.asset_type,
      assetId: record.id,
      productId: input.productId,
      productType: input.productType,
      ...(record.asset_type === 'image' ? { height: input.size } : { size: input.size }),
      useTeamCredits: false,
      source: input.source,
      downloadNotes: input.notes || null,
      projectCode: input.projectCode || null,
    });
    return result.uri;
  }

  /**
   * A board's licensed assets as one zip, in the board's order, with `manifest.csv`: each
   * asset's id, title, credit line, copyright and licence, and its file or why it was left out.
   * Only assets the person has downloaded (licensed) go in, each at the largest size they
   * downloaded it, as its delivery URL would serve it; nothing is charged or recorded. The
   * entries are read one at a time, so memory holds one file (an image) or one chunk (a video).
   */
  async boardZip(user: WebUser, boardId: string, reader: Reader): Promise<{ fileName: string; entries: AsyncIterable<ZipEntry> }> {
    const board = await this.boards.get(user.userId, boardId);
    const credits = new Map<string, Record<string, unknown>>();
    for (const assetType of ['image', 'video'] as const) {
      const ids = board.assets.filter((asset) => asset.asset_type === assetType).map((asset) => asset.id);
      if (ids.length === 0) continue;
      const { assets } = await this.catalog.getAssets(assetType, ids, assetType === 'image' ? IMAGE_CREDITS : VIDEO_CREDITS, { language: reader.language, authorized: false });
      for (const asset of assets as Array<Record<string, unknown>>) credits.set(String(asset.id), asset);
    }
    const downloads = this.downloads;
    const licensedFile = this.licensedFile;
    const modified = new Date();
    async function* entries(): AsyncGenerator<ZipEntry> {
      const lines: ManifestLine[] = [];
      const names = new Set<string>();
      let total = 0;
      for (const asset of board.assets) {
        const detail = credits.get(asset.id) ?? {};
        const line: ManifestLine = {
          assetId: asset.id,
          title: titleOf(detail, asset.asset_type),
          creditLine: text(detail.credit_line) ?? (asset.asset_type === 'video' ? text(detail.artist) : null),
          copyright: text(detail.copyright),
          licenseModel: licenseModelWords(text(detail.license_model)),
          licensed: null,
          file: null,
          leftOut: null,
        };
        lines.push(line);
        const history = await downloads.assetHistory(user.grant, asset.asset_type, asset.id, false);
        const largest = [...history.downloads].sort((a, b) => area(b.dimensions) - area(a.dimensions))[0];
        if (!largest) {
          line.leftOut = 'Not licensed by you yet: download it from its page first.';
          continue;
        }
        const sizeName = largest.size_name ?? 'original';
        const size = largest.dimensions.width && largest.dimensions.height ? `${largest.dimensions.width} × ${largest.dimensions.height} px` : sizeName;
        line.licensed = `${largest.product_type}, ${size}`;
        let file: DeliveredFile | undefined;
        try {
          file = await licensedFile({ assetId: asset.id, assetType: asset.asset_type, width: largest.dimensions.width, height: largest.dimensions.height, sizeName });
        } catch (error) {
          // A video size still being made, or a size that can no longer be made: say so, and go on with the others.
          line.leftOut = `Its file could not be made now (${error instanceof Error ? error.message : String(error)}): try again later, or download it from its page.`;
          continue;
        }
        if (file === undefined) {
          line.leftOut = 'The server holds no file for it.';
          continue;
        }
        // Room for this entry's header, descriptor and central record, and the manifest after it.
        if (total + file.size + 1024 * 1024 > ZIP_MAX_BYTES) {
          line.leftOut = 'The zip would pass 4 GiB: download it from its page.';
          continue;
        }
        let name = file.fileName;
        for (let copy = 2; names.has(name); copy++) name = `${copy}-${file.fileName}`;
        names.add(name);
        total += file.size + 200;
        line.file = name;
        const body = await file.read(0, file.size - 1);
        yield { name, modified, data: Buffer.isBuffer(body) ? body : (body as AsyncIterable<Buffer>) };
      }
      yield { name: 'manifest.csv', modified, data: Buffer.from(manifestCsv(lines), 'utf8') };
    }
    return { fileName: `${board.name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'board'}.zip`, entries: entries() };
  }

  myDownloads(user: WebUser, page: number) {
    return this.downloads.history(user.grant, { page, pageSize: 30 });
  }
}

function area(dimensions: { width: number | null; height: number | null }): number {
  return (dimensions.width ?? 0) * (dimensions.height ?? 0);
}

/** A CSV field (RFC 4180), and never a formula to a spreadsheet that opens it. */
function csvField(value: string | null): string {
  const textValue = value ?? '';
  const safe = /^[=+\-@\t\r]/.test(textValue) ? `'${textValue}` : textValue;
  return `"${safe.replace(/"/g, '""')}"`;
}

/** The manifest of a board zip: a header line, then one line an asset, in the board's order. */
export function manifestCsv(lines: readonly ManifestLine[]): string {
  const header = ['asset_id', 'title', 'credit_line', 'copyright', 'license_model', 'licensed_as', 'file', 'left_out_because'];
  const rows = lines.map((line) =>
    [line.assetId, line.title, line.creditLine, line.copyright, line.licenseModel, line.licensed, line.file, line.leftOut].map(csvField).join(','),
  );
  return `${[header.join(','), ...rows].join('\r\n')}\r\n`;
}

/** What one download under a product costs, in words. */
function costOf(product: ProductRecord, credits: number): string {
  if (credits > 0) {
    const left = product.team_credits ?? product.credits_remaining;
    return `${credits} credit${credits === 1 ? '' : 's'}${left === null ? '' : ` (${left} left)`}`;
  }
  if (product.download_limit !== null && product.downloads_remaining !== null) {
    const period = product.download_limit_duration ? (MONTHLY[product.download_limit_duration] ?? '') : '';
    return `1 download (${product.downloads_remaining} of ${product.download_limit} left${period ? ` ${period}` : ''})`;
  }
  return 'No charge: included in the product';
}

/** Image download sizes by their catalogue names; a video's names ("HD 1080p", "4K") are words already. */
const SIZE_NAMES: Readonly<Record<string, string>> = { 'x-small': 'Extra small', small: 'Small', medium: 'Medium', large: 'Large', 'x-large': 'Extra large (original)' };

function sizeLabel(size: Record<string, unknown>): string {
  const given = text(size.name);
  const name = given ? (SIZE_NAMES[given] ?? given) : 'Size';
  const width = typeof size.width === 'number' ? size.width : undefined;
  const height = typeof size.height === 'number' ? size.height : undefined;
  return width && height ? `${name} — ${width} × ${height} px` : name;
}

/** What a product type charges for one download that licenses the asset, in words. */
const PRICE_WORDS: Readonly<Record<string, string>> = {
  premiumaccess: 'One download of the subscription’s allowance',
  easyaccess: 'One download of the subscription’s allowance',
  editorialsubscription: 'One download of the subscription’s allowance',
  royaltyfreesubscription: 'One download of the subscription’s allowance',
  imagepack: 'One image of the pack',
};

/** For each product type that licenses the asset, in the order a download chooses them, what it would charge. */
function pricesOf(record: AssetRecord): ProductPrice[] {
  const asset = licensableAsset(record);
  return PRODUCT_CHOICE_ORDER.filter((type) => typeLicenses(type, asset)).map((type) => {
    if (paysWithCredits(type)) {
      const credits = standardCredits(asset);
      return { productType: type, cost: `${credits} credit${credits === 1 ? '' : 's'}` };
    }
    return { productType: type, cost: PRICE_WORDS[type] ?? 'One download' };
  });
}

function termsOf(detail: Record<string, unknown>): LicenceTerms {
  const allowed = (detail.allowed_use ?? {}) as { how_can_i_use_it?: unknown; release_info?: unknown; usage_restrictions?: unknown };
  const restrictions = Array.isArray(allowed.usage_restrictions) ? allowed.usage_restrictions.filter((item): item is string => typeof item === 'string' && item !== '') : [];
  const model = text(detail.license_model);
  return {
    restrictions,
    release: text(allowed.release_info),
    use: text(allowed.how_can_i_use_it),
    copyright: text(detail.copyright),
    creditLine: text(detail.credit_line),
    licenseModel: model === null ? null : (LICENSE_MODELS[model] ?? model),
  };
}

const LICENSE_MODELS: Readonly<Record<string, string>> = { royaltyfree: 'Royalty-free', rightsmanaged: 'Rights-managed', rightsready: 'Rights-ready' };

const licenseModelWords = (model: string | null) => (model === null ? null : (LICENSE_MODELS[model] ?? model));

const TITLE_LENGTH = 90;

/**
 * What an asset is called on a page: its title; else its caption's first sentence (shortened
 * at a word); else its file name (object_name); never its id, which says nothing to a person.
 */
export function titleOf(asset: Record<string, unknown>, assetType: AssetType): string {
  const title = text(asset.title)?.trim();
  if (title) return title;
  const caption = text(asset.caption)?.trim();
  if (caption) {
    const sentence = /^(.+?[.!?])(\s|$)/.exec(caption)?.[1] ?? caption;
    if (sentence.length <= TITLE_LENGTH) return sentence;
    const cut = sentence.slice(0, TITLE_LENGTH);
    return `${cut.slice(0, cut.lastIndexOf(' ') > 40 ? cut.lastIndexOf(' ') : TITLE_LENGTH).replace(/[\s,;:]+$/, '')}…`;
  }
  const file = text(asset.object_name)?.trim();
  if (file) return file;
  return assetType === 'video' ? 'Untitled video' : 'Untitled image';
}

function displaySizes(asset: Record<string, unknown>): Array<{ name: string; uri: string; width: number; height: number }> {
  return Array.isArray(asset.display_sizes) ? (asset.display_sizes as Array<{ name: string; uri: string; width: number; height: number }>) : [];
}

const DATE_FORMAT = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });

/** A date as a card shows it: "21 Aug 2019". */
export function cardDate(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const time = Date.parse(value);
  return Number.isNaN(time) ? null : DATE_FORMAT.format(time);
}

/** A clip's length as a player shows it: `00:00:04:08` (hours, minutes, seconds, frames) → "0:04", `01:02:03:00` → "1:02:03". */
export function clipLength(value: string): string {
  const parts = /^(\d{1,2}):(\d{2}):(\d{2})(?::\d{2})?$/.exec(value);
  if (!parts) return value;
  const [hours, minutes, seconds] = [Number(parts[1]), Number(parts[2]), parts[3]!];
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}` : `${minutes}:${seconds}`;
}

function cardFacts(asset: Record<string, unknown>, assetType: AssetType, events: ReadonlyMap<number, string>): string[] {
  const date = cardDate(asset.date_created);
  if (assetType === 'video') {
    const length = text(asset.clip_length);
    const largest = asset.max_dimensions as { width?: unknown; height?: unknown } | undefined;
    const resolution = typeof largest?.width === 'number' && typeof largest.height === 'number' ? originalSizeName(largest.width, largest.height) : null;
    return [length ? clipLength(length) : null, resolution, date].filter((fact): fact is string => fact !== null);
  }
  if (asset.asset_family === 'editorial') {
    const event = Array.isArray(asset.event_ids) ? (asset.event_ids as number[]).map((id) => events.get(id)).find(Boolean) : undefined;
    return [date, event ?? null].filter((fact): fact is string => fact !== null);
  }
  const place = [asset.city, asset.country].filter((part): part is string => typeof part === 'string' && part !== '').join(', ');
  return [date, place || null].filter((fact): fact is string => fact !== null);
}

function cardOf(asset: Record<string, unknown>, assetType: AssetType, events: ReadonlyMap<number, string>, gridPicture: GridPicture): AssetCard {
  const sizes = displaySizes(asset);
  // The grid's own picture, lightly marked, where there is an original (the API lists display sizes only then).
  const largest = asset.max_dimensions as { width?: unknown; height?: unknown } | undefined;
  const grid =
    sizes.length > 0 && typeof largest?.width === 'number' && typeof largest.height === 'number' ? gridPicture(String(asset.id), largest.width, largest.height) : undefined;
  const picture = grid ?? sizes.find((size) => size.name === 'comp' && !/\.(mp4|webm)(\?|$)/i.test(size.uri)) ?? sizes.find((size) => size.name === 'thumb');
  return {
    facts: cardFacts(asset, assetType, events),
    caption: text(asset.caption),
    comp: sizes.find((size) => size.name === 'comp' && !/\.(mp4|webm)(\?|$)/i.test(size.uri))?.uri,
    clip: sizes.find((size) => size.name === 'preview' && /\.(mp4|webm)(\?|$)/i.test(size.uri))?.uri,
    id: String(asset.id),
    assetType,
    title: titleOf(asset, assetType),
    family: text(asset.asset_family),
    artist: text(asset.artist),
    picture: picture ? { uri: picture.uri, width: picture.width, height: picture.height } : undefined,
  };
}
