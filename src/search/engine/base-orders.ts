import type { PackedStrings } from './packed-strings.js';
import { buildOrder } from './sorted-order.js';
import type { OrderLevel } from './sorted-order.js';
import type { Placement } from './top-k.js';
import type { NumberColumn } from './query-plan.js';
import type { SearchQuery, SortNumbers } from './types.js';

export const DEFAULT_SORT_NUMBERS: SortNumbers = { date: 'date', popularity: 'popularity', quality: 'quality' };
/** A level of a sort: the relevance score, or a numeric attribute (by its role in SortNumbers) with its sign (1: higher first). */
export type SortLevel = 'relevance' | { number: keyof SortNumbers; sign: 1 | -1 };
/** The levels of each sort but random, most significant first; the id settles what they leave tied. */
const SORT_LEVELS: Readonly<Record<string, readonly SortLevel[]>> = {
  best_match: ['relevance', { number: 'quality', sign: 1 }, { number: 'popularity', sign: 1 }],
  newest: [{ number: 'date', sign: 1 }, 'relevance'],
  oldest: [{ number: 'date', sign: -1 }, 'relevance'],
  most_popular: [{ number: 'popularity', sign: 1 }, 'relevance'],
};
/** Every sort: those with levels, and random. */
export const SORTS: ReadonlySet<string> = new Set([...Object.keys(SORT_LEVELS), 'random']);

/** What the orders are sorted from: the index's documents (see IndexStore). */
export interface OrderedDocuments {
  readonly ids: PackedStrings;
  readonly numericNames: readonly string[];
  readonly numbers: readonly NumberColumn[];
  readonly baseDocCount: number;
}

/**
 * The base ordinals presorted by the levels of a sort (see sorted-order.ts), for browsing and
 * for best_match's tie-breaks: each order is sorted on first use and kept until the ordinals
 * change (a compaction or a snapshot read, which call `rebuild`).
 */
export class BaseOrders {
  /** presorted base ordinals for browsing, by sort levels (see sorted-order.ts); emptied when ordinals change */
  private readonly sortedOrders = new Map<string, Uint32Array>();
  /** the inverse of a sorted order (base ordinal → its place), by the same key; emptied with them */
  private readonly sortedRanks = new Map<string, Uint32Array>();
  /** best_match's placement with the default sort numbers (see placeForBestMatch), for the base of the last rebuild */
  private defaultPlacement: Placement | undefined;

  constructor(private readonly documents: OrderedDocuments) {}

  /** Drops every order (the ordinals changed) and sorts best_match's again. */
  rebuild(): void {
    this.sortedOrders.clear();
    this.sortedRanks.clear();
    this.placeForBestMatch();
  }

  /**
   * Sorts the base for best_match's tie-breaks now (see placement), with the rest of a rebuild,
   * rather than in the first search that needs it: a third of a second at a million documents.
   */
  private placeForBestMatch(): void {
    this.defaultPlacement = this.documents.baseDocCount > 0 ? this.placement(this.orderLevels({})) : undefined;
  }

  /** The placement of best_match's tie-breaks: kept for the default sort numbers, else looked up. */
  bestMatchPlacement(query: SearchQuery): Placement {
    if (query.sortNumbers === undefined && this.defaultPlacement !== undefined) return this.defaultPlacement;
    return this.placement(this.orderLevels(query));
  }

  /** The levels of a sort without relevance (browsing): as `sortKeys` gives them unscored. */
  orderLevels(query: SearchQuery): OrderLevel[] {
    const levels: OrderLevel[] = [];
    for (const level of this.sortLevels(query.sort ?? 'best_match')) {
      if (level === 'relevance') continue;
      const values = this.numberColumn((query.sortNumbers ?? DEFAULT_SORT_NUMBERS)[level.number]);
      if (values !== undefined) levels.push({ values, sign: level.sign });
    }
    return levels;
  }

  sortLevels(sort: string): readonly SortLevel[] {
    const levels = SORT_LEVELS[sort];
    if (levels === undefined) throw new RangeError(`search index: no presorted order for ${sort}`);
    return levels;
  }

  /** A numeric attribute's column; undefined for a name the schema lacks (every document ties on it). */
  numberColumn(name: string): NumberColumn | undefined {
    const index = this.documents.numericNames.indexOf(name);
    return index === -1 ? undefined : this.documents.numbers[index];
  }

  private orderKey(levels: readonly OrderLevel[]): string {
    return levels.map((level) => `${this.documents.numbers.indexOf(level.values)}${level.sign > 0 ? '+' : '-'}`).join(',');
  }

  /** The base ordinals in the order of `levels`, sorted on first use and kept until ordinals change. */
  sortedOrder(levels: readonly OrderLevel[]): Uint32Array {
    const key = this.orderKey(levels);
    let order = this.sortedOrders.get(key);
    if (order === undefined) {
      order = buildOrder(levels, this.documents.ids, this.documents.baseDocCount);
      this.sortedOrders.set(key, order);
    }
    return order;
  }

  /** The base ordinals in the order of `levels` (see sortedOrder) and each one's place in it, kept as long as the order. */
  placement(levels: readonly OrderLevel[]): Placement {
    const key = this.orderKey(levels);
    const order = this.sortedOrder(levels);
    let places = this.sortedRanks.get(key);
    if (places === undefined) {
      places = new Uint32Array(order.length);
      for (let i = 0; i < order.length; i++) places[order[i]!] = i;
      this.sortedRanks.set(key, places);
    }
    return { places, order };
  }

  /** Bytes held by the orders and their inverses. */
  byteSize(): number {
    let bytes = 0;
    for (const order of this.sortedOrders.values()) bytes += order.byteLength;
    for (const places of this.sortedRanks.values()) bytes += places.byteLength;
    return bytes;
  }
}
