import type { MediaFacts } from '../media/media-facts.js';

/*
 * The catalogue as the service layer sees it: what is written (inputs) and what is
 * read back (records). Field names are the spec's own.
 */

export type AssetType = 'image' | 'video';

/**
 * Where an asset is in its life: `draft` (new from an upload, waiting for review), `published`
 * (what clients search, read, license, embed and keep on boards) or `withdrawn` (taken out:
 * kept for the back office and for the records of past sales). Only a published asset is ever
 * shown to a client; the catalogue's reads keep that rule for every module.
 */
export type Publication = 'draft' | 'published' | 'withdrawn';
export const PUBLICATIONS: readonly Publication[] = ['draft', 'published', 'withdrawn'];

/** What an asset id may be: 1-64 letters, digits, '_' or '-'. Anything else names no asset. */
export const ASSET_ID = /^[A-Za-z0-9_-]{1,64}$/;

export interface KeywordInput {
  keyword_id?: string | number | undefined;
  text: string;
  type?: string | null | undefined;
  relevance?: number | null | undefined;
  entity_uris?: string[] | undefined;
  entity_types?: string[] | undefined;
  /** language tag → localized text */
  translations?: Record<string, string> | undefined;
}

/** The original file of an asset, already in the blob store. */
export interface OriginalFile {
  key: string;
  media_type: string;
  width: number;
  height: number;
  dpi: number;
  bytes: number;
}

export interface AssetInput {
  asset_type: AssetType;
  id: string;
  /** Every other field, validated, in the spec's names (keywords as KeywordInput). */
  fields: Record<string, unknown>;
  original?: OriginalFile | undefined;
  /** "v<version>:<base64>": the visual signature of the original (search by image); null without one. */
  visual_signature?: string | null | undefined;
  /**
   * Facts computed from the original's pixels (colours, black and white, nudity); null: none
   * (no original); undefined: the ones already stored stay.
   */
  media_facts?: MediaFacts | null | undefined;
  /**
   * The state to store it in. Undefined: a new asset is published (folder and manifest ingest
   * publish directly) and a stored one keeps its state (a re-run of a manifest neither publishes
   * a draft nobody reviewed nor brings back a withdrawn asset).
   */
  publication?: Publication | undefined;
}

export interface StoredKeyword {
  keyword_id: string;
  text: string;
  type: string | null;
  relevance: number | null;
  entity_uris: string[];
  entity_types: string[];
  translations: Record<string, string>;
}

/** An image or video as read from the store: every field of the spec, null or [] where absent. */
export interface AssetRecord {
  id: string;
  asset_type: AssetType;
  /** Spec-named fields, including artist, collection_*, keywords (StoredKeyword[]) and event_ids. */
  fields: Record<string, unknown>;
  /** Pixel size of the original, the base of every rendition; null without an original. */
  width: number | null;
  height: number | null;
  original: { key: string; media_type: string } | null;
  /** "v<version>:<base64>", or null when no signature was computed. */
  visual_signature: string | null;
  /** How often it has been downloaded (licensed); absent reads as 0. */
  downloads?: number;
  /** Facts computed from the original's pixels; null or absent when not computed (no original, or not yet backfilled). */
  media_facts?: MediaFacts | null;
}

/** An asset as the back office sees it, whatever its state: its record, its state and when it last changed. */
export interface EditableAssetRecord extends AssetRecord {
  publication: Publication;
  updated_at: string;
}

export interface EventInput {
  id: number;
  name: string;
  start_date?: string | null;
  parent_id?: number | null;
  type?: string | null;
  editorial_segments?: string[];
  hero_image_id?: string | null;
  location?: { city?: string | null; country?: string | null; state_province?: string | null; venue?: string | null };
  keywords?: Array<{ keyword_id?: string | null; text: string; type?: string | null }>;
}

export interface EventRecord {
  id: number;
  name: string;
  start_date: string | null;
  parent_id: number | null;
  type: string | null;
  editorial_segments: string[];
  hero_image_id: string | null;
  location: { city: string | null; country: string | null; state_province: string | null; venue: string | null };
  keywords: Array<{ keyword_id: string | null; text: string; type: string | null }>;
  child_event_count: number;
  image_count: number;
}

export interface CollectionRecord {
  id: number;
  code: string;
  name: string;
  asset_family: string | null;
  license_model: string | null;
  product_types: string[];
}
