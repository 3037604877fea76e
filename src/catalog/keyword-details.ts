import type { StoredKeyword } from './catalog.records.js';

/**
 * What a read of many assets knows of their keywords: each keyword's details (text, type,
 * entity URIs and types, translations) parsed once and shared by every record that shows it.
 *
 * A scan of the whole store reads each asset's keyword links, fourteen or so an asset; joined to
 * the keywords table, every link brought its keyword's five columns again and three JSON texts to
 * parse, which was a third of the scan's time and most of its garbage. A handful of keywords
 * carry most links (at 200,000 synthetic assets the commonest 5,000 of 198,000 carry 70%), so
 * one scan keeps the keywords it has read and asks the store only for those it has not.
 *
 * It lives for one read (a scan, or one page of a change feed): a keyword that changes later
 * is in the change log, and the reader following the log reads the assets that show it again
 * with a memo of its own. It holds at most about twice `capacity` keywords in two generations
 * (see `missing`), which bounds the memory, keeps the common ones, and never forgets a keyword
 * the page being read needs.
 */
export interface KeywordDetails {
  text: string;
  type: string | null;
  entity_uris: string[];
  entity_types: string[];
  translations: Record<string, string>;
}

export interface KeywordDetailRow {
  id: number;
  text: string;
  type: string | null;
  entity_uris: string | null;
  entity_types: string | null;
  translations: string | null;
}

const DEFAULT_CAPACITY = 100_000;

/** A whole scan's memo: two generations of this many keywords (about 110 MB of heap when both are full, measured). */
export const SCAN_CAPACITY = 200_000;

const parsedOr = <T>(text: string | null, fallback: T): T => (text ? (JSON.parse(text) as T) : fallback);

/** Relevances from 0 to this (less one), and none, have a keyword's shared listing (see KeywordMemo.listing). */
const SHARED_RELEVANCES = 16;

/**
 * A keyword as the memo keeps it: its details, the listings made of it so far (by relevance + 1,
 * 0: none) and the generation that last needed it.
 */
interface MemoEntry extends KeywordDetails {
  listings: Array<StoredKeyword | undefined> | undefined;
  generation: number;
}

/** The keyword `id` as a record lists it. */
function keywordListing(id: number, details: KeywordDetails, relevance: number | null): StoredKeyword {
  // the details' lists are shared by every record showing the keyword; records are read-only
  const { text, type, entity_uris, entity_types, translations } = details;
  return { keyword_id: String(id), text, type, relevance, entity_uris, entity_types, translations };
}

export class KeywordMemo {
  /**
   * Each keyword known, by its id: in an array while the ids are small for the keywords held,
   * else in a map (`beyond`). A scan looks a keyword up twice a link (fourteen links an asset):
   * in maps of 200,000 keywords that was a sixth of the reading thread's time, and keyword ids
   * are mostly small integers, numbered as keywords are made. But an ingest may give its own
   * ids (up to 2^31 - 1), and a read of one page holds a few hundred keywords: the array
   * reaches only to DENSE_SLOTS_PER_KEYWORD slots a keyword held (at least MIN_DENSE_SLOTS),
   * grown a slot at a time (a write far past its end makes a V8 array a dictionary for good),
   * and every other id goes to the map.
   */
  private readonly byId: Array<MemoEntry | undefined> = [];
  private readonly beyond = new Map<number, MemoEntry>();
  /** keywords held, in either place */
  private held = 0;
  /** the ids of the latest pages' keywords (the current generation) */
  private recent: number[] = [];
  /** the ids of the generation before: a keyword a page needs again moves back to the current one */
  private older: number[] = [];
  private generation = 0;

  constructor(private readonly capacity = DEFAULT_CAPACITY) {}

  /**
   * The ids among a page's keywords that are not known yet, each once: the page then reads
   * those and remembers them. Makes room first, so nothing the page needs is forgotten before
   * the page is built.
   */
  missing(ids: readonly number[]): number[] {
    // Room for every keyword of the page in the recent generation, else it becomes the older one
    // and the one before is forgotten. Forgetting all at once cost a scan a tenth of its time,
    // the commonest keywords read again after each clear: at a million synthetic assets (496,000
    // keywords), 2.1 keywords read an asset with room for 100,000, 1.4 with two generations of
    // 100,000, 0.9 with two of 200,000 (the scan's), which is the floor: the keywords not seen before.
    if (this.recent.length + ids.length > this.capacity) {
      // the generation before is forgotten, but for the keywords that moved on from it
      for (const id of this.older) {
        const entry = this.entry(id);
        if (entry !== undefined && entry.generation !== this.generation) this.forget(id);
      }
      this.older = this.recent;
      this.recent = [];
      this.generation++;
    }
    const wanted = new Set<number>();
    for (const id of ids) {
      const known = this.entry(id);
      if (known === undefined) wanted.add(id);
      else if (known.generation !== this.generation) {
        known.generation = this.generation;
        this.recent.push(id);
      }
    }
    return [...wanted];
  }

  /**
   * The keyword `id` as a record lists it with `relevance`, or undefined when it is not known
   * (see `missing`). `shared`: one object for every record of this memo's read that lists it
   * so (a relevance past the common small ones gets an object of its own) — for a scan, whose
   * records are read once and only read, and where a listing a link, fourteen an asset, was
   * much of the garbage; else an object of the record's own, which its reader may change.
   */
  listing(id: number, relevance: number | null, shared: boolean): StoredKeyword | undefined {
    const entry = this.entry(id);
    if (entry === undefined) return undefined;
    if (!shared) return keywordListing(id, entry, relevance);
    const slot = relevance === null ? 0 : Number.isInteger(relevance) && relevance >= 0 && relevance < SHARED_RELEVANCES ? relevance + 1 : -1;
    if (slot < 0) return keywordListing(id, entry, relevance);
    const listings = (entry.listings ??= []);
    return (listings[slot] ??= keywordListing(id, entry, relevance));
  }

  /** Keeps a row of the keywords table, parsed. */
  remember(row: KeywordDetailRow): KeywordDetails {
    const entry: MemoEntry = {
      text: row.text,
      type: row.type,
      entity_uris: parsedOr(row.entity_uris, []),
      entity_types: parsedOr(row.entity_types, []),
      translations: parsedOr(row.translations, {}),
      listings: undefined,
      generation: this.generation,
    };
    if (this.entry(row.id) === undefined) {
      this.recent.push(row.id);
      this.held++;
    }
    this.put(row.id, entry);
    return entry;
  }

  private entry(id: number): MemoEntry | undefined {
    const entry = id < this.byId.length ? this.byId[id] : undefined;
    // (an id the array reached after it was put in the map is still there)
    return entry !== undefined || this.beyond.size === 0 ? entry : this.beyond.get(id);
  }

  private put(id: number, entry: MemoEntry): void {
    if (id >= this.byId.length && id < Math.max(MIN_DENSE_SLOTS, DENSE_SLOTS_PER_KEYWORD * this.held)) {
      while (this.byId.length <= id) this.byId.push(undefined);
    }
    if (id < this.byId.length) {
      this.byId[id] = entry;
      if (this.beyond.size > 0) this.beyond.delete(id);
    } else this.beyond.set(id, entry);
  }

  private forget(id: number): void {
    if (id < this.byId.length) this.byId[id] = undefined;
    if (this.beyond.size > 0) this.beyond.delete(id);
    this.held--;
  }
}

/** The memo's array reaches this many slots a keyword held (see KeywordMemo.byId)… */
const DENSE_SLOTS_PER_KEYWORD = 8;
/** …and this many at least. */
const MIN_DENSE_SLOTS = 1024;
