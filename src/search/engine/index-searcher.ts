import { parseQuery, renderQuery } from './analyzer.js';
import type { QueryClause } from './analyzer.js';
import { DEFAULT_SORT_NUMBERS, SORTS } from './base-orders.js';
import { CandidateSet, LOOKUP_RATIO } from './candidate-set.js';
import { TERM_CODE } from './forward-codes.js';
import type { IndexView } from './index-store.js';
import { PhraseTerms } from './phrase-match.js';
import type { Bm25Context, NumberColumn, TermPlan } from './query-plan.js';
import { compileFilters, documentFilters, newBm25Context, pairPlanFor, planFor, refreshBm25Context, valueLists } from './query-planner.js';
import type { CompiledKeywordFilter } from './query-planner.js';
import { bestByComparator, compareOrdinals, takeInOrder } from './sorted-order.js';
import { keysFromColumn, selectTop } from './top-k.js';
import type { TieBreak } from './top-k.js';
import { mix32 } from './typed-arrays.js';
import { ListBitmap } from './value-lists.js';
import type { FacetCount, SearchQuery, SearchResult } from './types.js';

const DEFAULT_LIMIT = 30;
/** Phrase positions are bits of a 32-bit state. */
const MAX_PHRASE_TOKENS = 31;
/** A keyword filter drives the search (its documents are the first candidates) when it is this much more selective. */
const FILTER_DRIVER_RATIO = 4;
/** A driver starts as a list (no bitmap) when its postings are at most a 1/LIST_FIRST_RATIO of the bitmap's words ... */
const LIST_FIRST_RATIO = 2;
/** ... and, when they come in several lists that must be merged by sorting, at most this many. */
const MAX_SORTED_LIST_FIRST = 1024;

const byCost = (a: TermPlan, b: TermPlan): number => a.cost - b.cost;

/** A count from a caller: a finite number ≥ 0, rounded down; the fallback otherwise. */
function wholeNumber(value: number | undefined, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? Math.max(0, Math.floor(value)) : fallback;
}

/** `keys[c]`: a hash of the document's id hash and the seed, for the random sort. */
function randomKeys(keys: Float64Array, idHash: Uint32Array, seed: number, ordinals: Uint32Array, count: number): void {
  for (let c = 0; c < count; c++) keys[c] = mix32(idHash[ordinals[c]!]! ^ seed);
  return;
}

/** Allowed term ids per position of a phrase. */
type PhrasePositions = number[][];

/**
 * The read side of the search index: runs a query over the store (IndexView), which it never
 * writes — the caller (SearchIndex) first puts pending documents into the posting lists. It
 * keeps one query's scratch (the candidate set, BM25's context): searches run one at a time.
 */
export class IndexSearcher {
  // scratch: one query at a time (search is synchronous)
  private readonly candidates = new CandidateSet();
  /** the documents of filters on filter-only columns, one bitmap per such filter of a search */
  private readonly listBitmaps: ListBitmap[] = [];
  private readonly bm25: Bm25Context;

  constructor(private readonly index: IndexView) {
    this.bm25 = newBm25Context(index.fields, index.lengths);
  }

  /**
   * Runs a query: every required token (and each token of a required phrase) must match,
   * each through any of its variants; excluded tokens and phrases must not; filters must
   * pass. The cheapest requirement drives (its documents are the first candidates), the
   * others narrow the set, phrases are verified last on the forward stream of the few left.
   */
  search(query: SearchQuery): SearchResult {
    const enhanced = (query.mode ?? 'enhanced') !== 'precise';
    const parsed = parseQuery(query.phrase ?? '');
    const offset = wholeNumber(query.offset, 0);
    const limit = wholeNumber(query.limit, DEFAULT_LIMIT);
    const compiled = compileFilters(this.index, query.filters ?? []);
    if (query.sort !== undefined && !SORTS.has(query.sort)) throw new RangeError(`search index: unknown sort ${String(query.sort)}`);
    const facetRequests = query.facets ?? [];
    for (const request of facetRequests) {
      if (!this.index.columnByName.has(request.attribute)) throw new RangeError(`search index: ${request.attribute} is not a keyword attribute`);
    }
    const vocabulary = this.index.vocabulary;

    // One plan per required token (phrase tokens included), one per excluded token.
    const required: TermPlan[] = [];
    const excluded: TermPlan[] = [];
    const phrases: PhrasePositions[] = [];
    const excludedPhrases: PhrasePositions[] = [];
    let unmatched: Set<string> | undefined;
    for (const clause of parsed.clauses) {
      const tokens = clause.tokens.slice(0, MAX_PHRASE_TOKENS);
      const literal = clause.quoted || tokens.length > 1;
      if (clause.excluded) {
        const positions = tokens.map((token) => vocabulary.variantsOf(token, enhanced, false));
        if (positions.some((variants) => variants.size === 0)) continue; // cannot match anything
        if (tokens.length === 1) excluded.push(planFor(this.index, positions[0]!));
        else excludedPhrases.push(positions.map((variants) => [...variants.keys()]));
        continue;
      }
      const positions: PhrasePositions = [];
      for (const token of tokens) {
        const variants = vocabulary.variantsOf(token, enhanced, !literal);
        if (variants.size === 0) (unmatched ??= new Set()).add(token);
        if (tokens.length > 1) positions.push([...variants.keys()]);
        required.push(planFor(this.index, variants));
      }
      if (tokens.length > 1) phrases.push(positions);
    }

    const facets: Record<string, FacetCount[]> = {};
    if (unmatched !== undefined) {
      for (const request of facetRequests) facets[request.attribute] = [];
      const result: SearchResult = { total: 0, ids: [], facets };
      const corrections = this.correct(parsed.clauses, unmatched);
      if (corrections !== undefined) result.corrections = corrections;
      return result;
    }
    // a filter that names no value any document has matches nothing
    if (compiled.keyword.some((filter) => !filter.exclude && filter.valueIds.length === 0)) {
      for (const request of facetRequests) facets[request.attribute] = [];
      return { total: 0, ids: [], facets };
    }

    // Filters: broad ones (every value dense) become bitmap ANDs, the rest per-document checks.
    const perDocument = compiled.keyword.filter((filter) => filter.bitmaps === undefined && !(filter.exclude && filter.valueIds.length === 0));
    const bitmapFilters = compiled.keyword.filter((filter) => filter.bitmaps !== undefined);

    // What narrows the set: the required tokens (scored later), and each pair of adjacent
    // common words of a phrase through its pair list (common-pairs.ts), far shorter than theirs.
    if (required.length > 1) required.sort(byCost);
    // A two-word phrase with a pair list needs no check on the forward stream: the list is its matches.
    const conditions = [...required];
    const phrasesToCheck: PhrasePositions[] = [];
    for (const positions of phrases) {
      let everyPair = true;
      for (let i = 0; i + 1 < positions.length; i++) {
        const plan = pairPlanFor(this.index, positions[i]!, positions[i + 1]!);
        if (plan !== undefined) conditions.push(plan);
        else everyPair = false;
      }
      if (!(everyPair && positions.length === 2)) phrasesToCheck.push(positions);
    }
    if (conditions.length > 1) conditions.sort(byCost);

    // The driver (the first candidates): the cheapest condition — or a selective filter.
    let filterDriver: CompiledKeywordFilter | undefined;
    for (const filter of perDocument) {
      if (!filter.exclude && (filterDriver === undefined || filter.cost < filterDriver.cost)) filterDriver = filter;
    }
    const driverCost = conditions.length > 0 ? conditions[0]!.cost : this.index.docCount;
    if (filterDriver !== undefined && !(filterDriver.cost * FILTER_DRIVER_RATIO < driverCost)) filterDriver = undefined;
    const filters = documentFilters(
      perDocument.filter((filter) => filter !== filterDriver && !filter.column.filterOnly),
      compiled.range,
    );
    // Filters as bitmaps: the broad ones, and those of filter-only columns (nothing per document to check).
    const setFilters = bitmapFilters.map((filter) => ({ bitmaps: filter.bitmaps!, exclude: filter.exclude }));
    let listBitmaps = 0;
    for (const filter of perDocument) {
      if (filter === filterDriver || !filter.column.filterOnly) continue;
      const { lists, bitmaps } = valueLists(filter);
      if (lists.length > 0) bitmaps.push(this.listBitmap(listBitmaps++).of(lists, this.index.docCount));
      setFilters.push({ bitmaps, exclude: filter.exclude });
    }

    const set = this.candidates;
    set.reset(this.index.docCount);
    let rest = conditions;
    const sort = query.sort ?? 'best_match';
    const driver = conditions[0];
    // one list and nothing else to check: the list is the match set, whatever its length
    const alone =
      driver !== undefined &&
      driver.segments.length === 1 &&
      conditions.length === 1 &&
      excluded.length === 0 &&
      setFilters.length === 0 &&
      filters.length === 0 &&
      this.index.deadCount === 0;
    if (filterDriver === undefined && driver !== undefined && (alone || this.listFirst(driver))) {
      // A short driver: straight to the list; every other step checks the few documents in it.
      set.listFromPlan(driver);
      if (this.index.deadCount > 0) set.keepInAnyOf([this.index.live], false);
      for (const filter of setFilters) set.keepInAnyOf(filter.bitmaps, filter.exclude);
      for (const filter of filters) set.keepByFilter(filter);
      for (const plan of conditions.slice(1)) if (set.count > 0) set.verify(plan, true);
      for (const plan of excluded) if (set.count > 0) set.verify(plan, false);
      return this.finish(query, set, required, phrasesToCheck, excludedPhrases, facetRequests, facets, offset, limit, sort, false);
    }
    if (filterDriver !== undefined) {
      const { lists, bitmaps } = valueLists(filterDriver);
      set.fillFromLists(lists);
      for (const bitmap of bitmaps) set.fillFromBitmap(bitmap);
      if (this.index.deadCount > 0) set.andWith(this.index.live, false);
    } else if (driver !== undefined) {
      set.fillFromPlan(driver);
      if (this.index.deadCount > 0) set.andWith(this.index.live, false);
      rest = conditions.slice(1);
    } else {
      set.fillFromBitmap(this.index.live);
    }
    for (const filter of setFilters) set.andAnyOf(filter.bitmaps, filter.exclude);
    // Other tokens: AND-ed as bitmaps, or — much commoner than the set — verified per candidate later.
    const toVerify: TermPlan[] = [];
    const toVerifyAbsent: TermPlan[] = [];
    // the set's size: one list's length while nothing else narrowed it, else counted (a pass)
    let known = filterDriver === undefined && driver !== undefined && driver.segments.length === 1 && setFilters.length === 0 && this.index.deadCount === 0 ? driver.cost : -1;
    for (const plan of rest) {
      if ((known >= 0 ? known : set.population()) * LOOKUP_RATIO < plan.cost) {
        toVerify.push(plan);
      } else {
        set.andPlan(plan, false);
        known = -1;
      }
    }
    for (const plan of excluded) {
      if ((known >= 0 ? known : set.population()) * LOOKUP_RATIO < plan.cost) {
        toVerifyAbsent.push(plan);
      } else {
        set.andPlan(plan, true);
        known = -1;
      }
    }
    for (const filter of filters) set.refine(filter);

    const everything = required.length === 0 && compiled.keyword.length === 0 && compiled.range.length === 0 && excluded.length === 0 && excludedPhrases.length === 0;
    if (required.length === 0 && toVerifyAbsent.length === 0 && excludedPhrases.length === 0 && sort !== 'random') {
      // Browsing: the bitmap is the whole match set.
      const browsed = this.browse(query, offset, limit, facetRequests, facets, everything);
      if (browsed !== undefined) return browsed;
    }

    set.extract();
    for (const plan of toVerify) if (set.count > 0) set.verify(plan, true);
    for (const plan of toVerifyAbsent) if (set.count > 0) set.verify(plan, false);
    return this.finish(query, set, required, phrasesToCheck, excludedPhrases, facetRequests, facets, offset, limit, sort, everything);
  }

  /**
   * Facet counts over exactly the listed documents (ids not in the index are skipped): for a
   * result set chosen outside the index, such as the nearest neighbours of a search by image.
   */
  facetsOf(ids: Iterable<string>, requests: ReadonlyArray<{ attribute: string; limit: number }>): Record<string, FacetCount[]> {
    const facets: Record<string, FacetCount[]> = {};
    if (requests.length === 0) return facets;
    const found: number[] = [];
    for (const id of ids) {
      const ordinal = this.index.ordinals.get(id);
      if (ordinal >= 0 && this.index.isLive(ordinal)) found.push(ordinal);
    }
    const ordinals = Uint32Array.from(found).sort();
    for (const request of requests) {
      const column = this.index.columnByName.get(request.attribute);
      if (column === undefined) throw new RangeError(`search index: ${request.attribute} is not a keyword attribute`);
      facets[request.attribute] = column.topValues(ordinals, ordinals.length, wholeNumber(request.limit, 0), false);
    }
    return facets;
  }

  /**
   * Whether a token's lists are short enough to start from as a list (listFromPlan): a
   * bitmap pass costs a word per 32 documents; one list, or a few short ones to sort, cost
   * their length.
   */
  private listFirst(plan: TermPlan): boolean {
    const words = (this.index.docCount + 31) >>> 5;
    return plan.segments.length === 1 ? plan.cost * LIST_FIRST_RATIO <= words : plan.cost <= MAX_SORTED_LIST_FIRST && plan.cost * LIST_FIRST_RATIO <= words;
  }

  /** Phase 2 of a search, on the list of candidates: phrases, scores, facets and the page. */
  private finish(
    query: SearchQuery,
    set: CandidateSet,
    required: readonly TermPlan[],
    phrases: readonly PhrasePositions[],
    excludedPhrases: readonly PhrasePositions[],
    facetRequests: ReadonlyArray<{ attribute: string; limit: number }>,
    facets: Record<string, FacetCount[]>,
    offset: number,
    limit: number,
    sort: string,
    everything: boolean,
  ): SearchResult {
    for (const positions of phrases) this.keepByPhrase(positions, true);
    for (const positions of excludedPhrases) this.keepByPhrase(positions, false);

    const scored = required.length > 0 && sort !== 'random';
    if (scored) {
      const bm25 = refreshBm25Context(this.index, this.bm25);
      // sorted by score, only the page's documents need exact scores
      set.scoreAll(required, bm25, sort === 'best_match' ? offset + limit : 0);
    }
    for (const request of facetRequests) {
      const column = this.index.columnByName.get(request.attribute)!;
      facets[request.attribute] = column.topValues(set.ordinals, set.count, wholeNumber(request.limit, 0), everything);
    }
    const total = set.count;
    set.narrowToExact();
    const ids: string[] = [];
    if (limit > 0 && offset < set.count) {
      const { first, tieBreaks } = this.sortKeys(query, scored);
      // best_match breaks a tie of scores by quality, popularity and id: the browse order of
      // best_match, whose inverse (a place per base ordinal) settles it in one comparison
      const placement = scored && (query.sort ?? 'best_match') === 'best_match' ? this.index.orders.bestMatchPlacement(query) : null;
      const top = selectTop(set.ordinals, set.count, offset + limit, first, tieBreaks, this.index.ids, placement);
      this.index.ids.getMany(top, offset, top.length, ids);
    }
    return { total, ids, facets };
  }

  /**
   * A search without a phrase, from the phase 1 bitmap: the page is taken by walking a
   * presorted order of the base ordinals (see sorted-order.ts) and merging in the best of the
   * tail's matches. Undefined when a heap over every match is the cheaper way (a small match
   * set, or one that sits late in the order), to be done by the caller.
   */
  private browse(
    query: SearchQuery,
    offset: number,
    limit: number,
    facetRequests: ReadonlyArray<{ attribute: string; limit: number }>,
    facets: Record<string, FacetCount[]>,
    everything: boolean,
  ): SearchResult | undefined {
    const set = this.candidates;
    const total = everything ? this.index.liveCount : set.population();
    const k = Math.min(offset + limit, total);
    const base = this.index.baseDocCount;
    // a walk reads about k × base / total entries; a heap reads every match
    const expectedWalk = total > 0 ? (k * base) / total : Infinity;
    const pageNeeded = limit > 0 && offset < total;
    if (pageNeeded && expectedWalk > total + 4096) return undefined;

    if (facetRequests.length > 0 && !everything) set.extract();
    for (const request of facetRequests) {
      const column = this.index.columnByName.get(request.attribute)!;
      facets[request.attribute] = column.topValues(set.ordinals, set.count, wholeNumber(request.limit, 0), everything);
    }
    if (!pageNeeded) return { total, ids: [], facets };

    const levels = this.index.orders.orderLevels(query);
    const order = this.index.orders.sortedOrder(levels);
    const fromBase = new Uint32Array(k);
    const taken = takeInOrder(order, set.bitmap, k, Math.ceil(4 * expectedWalk) + 4096, fromBase);
    if (taken < 0) return undefined; // the matches sit late in this order: a heap it is
    const bits = set.bitmap;
    const fromTail: number[] = [];
    for (let d = base; d < this.index.docCount; d++) if ((bits[d >>> 5]! & (1 << (d & 31))) !== 0) fromTail.push(d);
    const compare = (a: number, b: number): number => compareOrdinals(levels, this.index.ids, a, b);
    const tailBest = bestByComparator(fromTail, k, compare);
    const ids: string[] = [];
    let i = 0;
    let j = 0;
    for (let rank = 0; rank < k && (i < taken || j < tailBest.length); rank++) {
      const next = j >= tailBest.length || (i < taken && compare(fromBase[i]!, tailBest[j]!) < 0) ? fromBase[i++]! : tailBest[j++]!;
      if (rank >= offset) ids.push(this.index.ids.get(next));
    }
    return { total, ids, facets };
  }

  private keepByPhrase(positions: PhrasePositions, keepMatches: boolean): void {
    if (this.candidates.count === 0) return;
    const codes = positions.map((ids) => ids.map((id) => id + TERM_CODE));
    this.candidates.keepByPhrase(new PhraseTerms(codes), positions.length, this.index, keepMatches);
  }


  /**
   * The sort keys of the candidate list, most significant first (then the id breaks ties):
   * best_match is score, quality, popularity (without a phrase: quality, popularity); newest,
   * oldest and most_popular are their number then the score; random is a hash of the id and
   * the seed — a permutation that is the same on every page. The first key is gathered by
   * list position; tie-breaking keys are read on demand (see TieBreak).
   */
  private sortKeys(query: SearchQuery, scored: boolean): { first: Float64Array | null; tieBreaks: TieBreak[] } {
    const set = this.candidates;
    const sort = query.sort ?? 'best_match';
    if (sort === 'random') {
      const keys = set.sortKeys(0);
      randomKeys(keys, this.index.idHashes(), mix32(Math.trunc(query.randomSeed ?? 0) ^ 0x9e3779b9), set.ordinals, set.count);
      return { first: keys, tieBreaks: [] };
    }
    const levels: Array<{ values: NumberColumn; sign: 1 | -1; byPosition: boolean }> = [];
    for (const level of this.index.orders.sortLevels(sort)) {
      if (level === 'relevance') {
        if (scored) levels.push({ values: set.scores, sign: 1, byPosition: true });
        continue;
      }
      const values = this.index.orders.numberColumn((query.sortNumbers ?? DEFAULT_SORT_NUMBERS)[level.number]);
      if (values !== undefined) levels.push({ values, sign: level.sign, byPosition: false }); // absent: every document ties
    }
    const [head, ...rest] = levels;
    let first: Float64Array | null = null;
    if (head !== undefined) {
      if (head.byPosition) {
        // the relevance level: the scores, by position
        first = set.scores;
      } else {
        first = set.sortKeys(0);
        keysFromColumn(first, head.values, head.sign, set.ordinals, set.count);
      }
    }
    const tieBreaks = rest.map((level, i): TieBreak => {
      const cache = level.byPosition ? set.sortKeys(1 + i) : set.sortKeys(1 + i).fill(NaN, 0, set.count);
      // written out: an object spread costs a microsecond here
      return { values: level.values, sign: level.sign, byPosition: level.byPosition, cache };
    });
    return { first, tieBreaks };
  }

  /** The phrase with each unmatched term replaced by its closest frequent term, if any changed. */
  private correct(clauses: readonly QueryClause[], unmatched: ReadonlySet<string>): string | undefined {
    let changed = false;
    const corrected = clauses.map((clause) => {
      if (clause.excluded || clause.quoted || clause.tokens.length !== 1 || !unmatched.has(clause.tokens[0]!)) return clause;
      const replacement = this.index.vocabulary.closestTerm(clause.tokens[0]!);
      if (replacement === undefined) return clause;
      changed = true;
      return { ...clause, tokens: [replacement] };
    });
    return changed ? renderQuery(corrected) : undefined;
  }

  /** Terms of the index that complete a prefix (lower-cased), the most documents first. */
  completions(prefix: string, limit: number): string[] {
    return this.index.vocabulary.completions(prefix.toLowerCase(), limit);
  }

  /**
   * The vocabulary terms an unquoted query word matches in a mode (see Vocabulary.variantsOf):
   * for diagnostics, and for a reference engine that should find the same documents.
   */
  matchingTerms(word: string, mode: 'enhanced' | 'precise' = 'enhanced'): string[] {
    return [...this.index.vocabulary.variantsOf(word, mode === 'enhanced', true).keys()].map((id) => this.index.vocabulary.terms[id]!);
  }

  /** The slot-th bitmap of filter-only filters, reused by every search. */
  private listBitmap(slot: number): ListBitmap {
    while (this.listBitmaps.length <= slot) this.listBitmaps.push(new ListBitmap());
    return this.listBitmaps[slot]!;
  }

  /** Bytes of the query scratch: for diagnostics. */
  byteSize(): number {
    let bytes = this.candidates.ordinals.byteLength * 6; // ordinals and stamps (4 bytes each), two score arrays (8 each)
    for (const bitmap of this.listBitmaps) bytes += bitmap.byteSize();
    return bytes + this.candidates.gatheredByteSize();
  }
}
