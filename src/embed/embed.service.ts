import { escapeHtml } from '../platform/http/escape-html.js';
import { assetNotEmbeddable, embedAssetNotFound, formatNotImplemented, incorrectlyFormedUri, unknownProviderUri } from './embed.errors.js';
import { ASSET_ID, type AssetRecord, type AssetType } from '../catalog/catalog.records.js';
import type { DisplaySizeProvider, DisplaySizeView } from '../catalog/catalog.service.js';

/*
 * oEmbed (https://oembed.com) for the catalogue: which assets may be embedded, the oEmbed answer for
 * an asset's short link, where a short link leads, and what the embed page shows. No HTTP here.
 */

/** The catalogue's part: the records of images and videos. */
export interface EmbedCatalog {
  findAssets(assetType: AssetType, ids: readonly string[]): Promise<{ found: AssetRecord[]; notFound: string[] }>;
}

/** The addresses the embed module hands out. */
export interface EmbedSites {
  /** Base of the API's links; the asset's page for people is `${publicUrl}/asset/{id}` (the catalogue browser). */
  publicUrl: string;
  /** `{embed_url}`: `/oembed`, `/frame/{id}` and `/terms` under it. */
  embedUrl: string;
  /** `{short_url}`: `/{id}` under it. */
  shortUrl: string;
}

export interface EmbedServiceDeps {
  catalog: EmbedCatalog;
  /** Signed display URIs of an asset's renditions (media). */
  media: DisplaySizeProvider;
  sites: EmbedSites;
  /** Whole seconds left before a signed display URI lapses (media's signer reads its `expires`). */
  secondsValid(displayUri: string): number;
}

/** The oEmbed answer: the spec's fields, and oEmbed's own cache_age. */
export interface OEmbedResponse {
  type: 'rich' | 'video';
  version: '1.0';
  title: string | null;
  caption: string | null;
  photographer: string | null;
  collection: string | null;
  html: string;
  width: number;
  height: number;
  thumbnail_url: string;
  thumbnail_width: number;
  thumbnail_height: number;
  terms_of_use_url: string;
  /** How long the answer may be kept: until its thumbnail URL lapses. */
  cache_age: number;
}

export interface OEmbedRequest {
  url: string;
  format?: string | undefined;
  maxwidth?: number | undefined;
  maxheight?: number | undefined;
}

/** What the embed page shows of one asset. */
export interface EmbedFrame {
  id: string;
  title: string;
  /** The picture's text alternative: its caption, else its title. */
  description: string;
  credit: string;
  comp: DisplaySizeView;
  /** Where a click on the picture leads: the asset's page. */
  assetPageUrl: string;
  /** Seconds the comp's signed URI stays valid: how long the page may be cached. */
  secondsValid: number;
}

const ASSET_TYPES: readonly AssetType[] = ['image', 'video'];

/** Pixels below the picture in the frame for its title and credit line (the page's style lays them out in as many). */
export const FRAME_FOOTER_HEIGHT = 56;

/** The only oEmbed format offered (oEmbed §2.3: another format is 501). */
const OEMBED_FORMAT = 'json';

export class EmbedService {
  private readonly catalog: EmbedCatalog;
  private readonly media: DisplaySizeProvider;
  private readonly sites: EmbedSites;
  private readonly secondsValid: (displayUri: string) => number;
  private readonly short: URL;

  constructor(deps: EmbedServiceDeps) {
    this.catalog = deps.catalog;
    this.media = deps.media;
    this.secondsValid = deps.secondsValid;
    this.sites = {
      publicUrl: deps.sites.publicUrl.replace(/\/+$/, ''),
      embedUrl: deps.sites.embedUrl.replace(/\/+$/, ''),
      shortUrl: deps.sites.shortUrl.replace(/\/+$/, ''),
    };
    this.short = new URL(this.sites.shortUrl);
  }

  // ── addresses ─────────────────────────────────────────────────────────────

  /** `{short_url}/{id}`: the link oEmbed requests name, and people share. */
  shortLink(id: string): string {
    return `${this.sites.shortUrl}/${encodeURIComponent(id)}`;
  }

  /** The asset's page for people, served by the catalogue browser. */
  assetPageUrl(id: string): string {
    return `${this.sites.publicUrl}/asset/${encodeURIComponent(id)}`;
  }

  /** The embed page the oEmbed `html` frames. */
  frameUrl(id: string): string {
    return `${this.sites.embedUrl}/frame/${encodeURIComponent(id)}`;
  }

  termsOfUseUrl(): string {
    return `${this.sites.embedUrl}/terms`;
  }

  /**
   * `uri_oembed` of an asset: `{embed_url}/oembed?url={short link}`, or null when it may not be
   * embedded. Synchronous and without I/O: it is asked for every asset of a read.
   */
  oembedUri(record: AssetRecord): string | null {
    if (this.embedSizes(record) === undefined) return null;
    return `${this.sites.embedUrl}/oembed?url=${encodeURIComponent(this.shortLink(record.id))}`;
  }

  // ── answers ───────────────────────────────────────────────────────────────

  /**
   * The oEmbed answer for a short link. 501 for a format other than json; 400 for a url that is no
   * http(s) URL; 404 for a url that is not one of this server's short links, an unknown asset, or
   * one that may not be embedded.
   */
  async oembed(request: OEmbedRequest): Promise<OEmbedResponse> {
    if (request.format !== undefined && request.format.toLowerCase() !== OEMBED_FORMAT) {
      throw formatNotImplemented(OEMBED_FORMAT, request.format);
    }
    const id = this.idOfShortLink(request.url);
    const record = await this.findAsset(id);
    if (record === undefined) throw embedAssetNotFound(id);
    const sizes = this.embedSizes(record);
    if (sizes === undefined) throw assetNotEmbeddable(id);
    const { comp, thumb } = sizes;
    const frame = frameSize(comp, request.maxwidth, request.maxheight);
    const fields = record.fields;
    const title = text(fields.title);
    return {
      type: record.asset_type === 'video' ? 'video' : 'rich',
      version: '1.0',
      title,
      caption: text(fields.caption),
      photographer: text(fields.artist),
      collection: text(fields.collection_name),
      html: iframeHtml(this.frameUrl(id), frame, title ?? text(fields.caption) ?? id),
      width: frame.width,
      height: frame.height,
      thumbnail_url: thumb.uri,
      thumbnail_width: thumb.width,
      thumbnail_height: thumb.height,
      terms_of_use_url: this.termsOfUseUrl(),
      cache_age: this.secondsValid(thumb.uri),
    };
  }

  /** Where a short link leads: the asset's page. 404 for an id no asset has. */
  async shortLinkTarget(id: string): Promise<string> {
    if ((await this.findAsset(id)) === undefined) throw embedAssetNotFound(id);
    return this.assetPageUrl(id);
  }

  /** What the embed page shows; undefined for an unknown asset or one that may not be embedded. */
  async frame(id: string): Promise<EmbedFrame | undefined> {
    const record = await this.findAsset(id);
    const sizes = record && this.embedSizes(record);
    if (record === undefined || sizes === undefined) return undefined;
    const fields = record.fields;
    const title = text(fields.title) ?? text(fields.caption) ?? id;
    return {
      id,
      title,
      description: text(fields.caption) ?? title,
      credit: creditLine(fields),
      comp: sizes.comp,
      assetPageUrl: this.assetPageUrl(id),
      secondsValid: this.secondsValid(sizes.comp.uri),
    };
  }

  // ── rules ─────────────────────────────────────────────────────────────────

  /**
   * An asset may be embedded unless its ingest line said `embeddable: false`, and only when media
   * has a watermarked comp of it to show (an asset without an original has none).
   */
  private embedSizes(record: AssetRecord): { comp: DisplaySizeView; thumb: DisplaySizeView } | undefined {
    if (record.fields.embeddable === false) return undefined;
    const sizes = this.media.displaySizes(
      { id: record.id, width: record.width, height: record.height, hasOriginal: record.original !== null },
      ['comp', 'thumb'],
    );
    const comp = sizes.find((size) => size.name === 'comp');
    const thumb = sizes.find((size) => size.name === 'thumb');
    if (comp === undefined || thumb === undefined || !comp.is_watermarked) return undefined;
    return { comp, thumb };
  }

  /**
   * The record of an image or video id. Images first, from the catalogue's record cache: an embed
   * page on a busy site is asked for again and again, and most assets are images.
   */
  private async findAsset(id: string): Promise<AssetRecord | undefined> {
    if (!ASSET_ID.test(id)) return undefined;
    for (const assetType of ASSET_TYPES) {
      const record = (await this.catalog.findAssets(assetType, [id])).found[0];
      if (record !== undefined) return record;
    }
    return undefined;
  }

  /**
   * The asset id of one of this server's short links: `{short_url}/{id}` on its host, http or
   * https (a link may have been written either way), a trailing slash, query or fragment ignored.
   */
  private idOfShortLink(given: string): string {
    let url: URL;
    try {
      url = new URL(given);
    } catch {
      throw incorrectlyFormedUri(`not an absolute URL: '${given}'`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw incorrectlyFormedUri(`an http or https URL is needed, not '${url.protocol}'`);
    }
    const base = this.short.pathname.replace(/\/+$/, '');
    const path = url.pathname.replace(/\/+$/, '');
    const rest = path.startsWith(`${base}/`) ? path.slice(base.length + 1) : undefined;
    if (url.host !== this.short.host || rest === undefined || rest === '' || rest.includes('/')) {
      throw unknownProviderUri(given, this.sites.shortUrl);
    }
    try {
      return decodeURIComponent(rest);
    } catch {
      throw unknownProviderUri(given, this.sites.shortUrl);
    }
  }
}

/**
 * The frame's size: the comp with room for the caption strip below it, scaled down (never up) to
 * the consumer's maxwidth and maxheight (oEmbed §2.2).
 */
export function frameSize(comp: { width: number; height: number }, maxWidth?: number, maxHeight?: number): { width: number; height: number } {
  const widthScale = maxWidth === undefined ? 1 : maxWidth / comp.width;
  const heightScale = maxHeight === undefined ? 1 : (maxHeight - FRAME_FOOTER_HEIGHT) / comp.height;
  const scale = Math.min(1, widthScale, heightScale);
  return {
    width: Math.max(1, Math.floor(comp.width * scale)),
    height: Math.max(1, Math.floor(comp.height * scale)) + FRAME_FOOTER_HEIGHT,
  };
}

/**
 * The iframe a consumer puts in its page. Sandboxed: the frame runs no script (it has none) and
 * may only open the asset's page in a new tab.
 */
function iframeHtml(src: string, size: { width: number; height: number }, title: string): string {
  return (
    `<iframe src="${escapeHtml(src)}" width="${size.width}" height="${size.height}" title="${escapeHtml(title)}" ` +
    `style="border:0;max-width:100%" loading="lazy" scrolling="no" ` +
    `sandbox="allow-popups allow-popups-to-escape-sandbox"></iframe>`
  );
}

/** The credit line as the record gives it, else its artist and collection. */
function creditLine(fields: Record<string, unknown>): string {
  const given = text(fields.credit_line);
  if (given !== null) return given;
  return [text(fields.artist), text(fields.collection_name)].filter((part): part is string => part !== null).join(' / ');
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}
