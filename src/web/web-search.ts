import { invalidParameterValue } from '../platform/http/errors.js';
import { invalidPageNumber } from './web.errors.js';
import { EDITORIAL_SORT_ORDERS, SORT_ORDERS, type SearchEndpoint } from '../search/params/search-values.js';
import { SEARCH_ENDPOINT_DEFINITIONS } from '../search/params/search-parameters.js';

/*
 * The catalogue browser's search as a URL: everything a search is — what is looked for, where,
 * which refinements, the order and the page — is in the query string, so a search can be
 * bookmarked and shared. The parameters are the JSON search's own names, so the URL reads the
 * same as the API's; a few more say which of the searches it is (kind, family).
 */

/** The three searches a person picks between. */
export const KINDS = ['creative', 'editorial', 'video'] as const;
export type Kind = (typeof KINDS)[number];
/** Video is creative or editorial too; the video tab picks which with `family`. */
export const FAMILIES = ['creative', 'editorial'] as const;
export type Family = (typeof FAMILIES)[number];

/** Refinements that hold several values (checkboxes and facets), in the order a URL lists them. */
export const LIST_PARAMETERS = ['orientations', 'license_models', 'number_of_people', 'artists', 'specific_people', 'event_ids', 'keyword_ids'] as const;
export type ListParameter = (typeof LIST_PARAMETERS)[number];

/** One search as the URL holds it. */
export interface BrowseQuery {
  kind: Kind;
  family: Family;
  phrase: string;
  lists: Readonly<Record<ListParameter, readonly string[]>>;
  date_from: string;
  date_to: string;
  sort_order: string;
  page: number;
}

export const PAGE_SIZE = 30;
/** Pages past this are refused: a person pages a few screens, and deep offsets only cost the index. */
export const MAX_PAGE = 100;
const MAX_PHRASE = 500;
const MAX_VALUES = 20;

/** The JSON searches the browser runs. */
export type BrowseEndpoint = Extract<SearchEndpoint, 'images_creative' | 'images_editorial' | 'videos_creative' | 'videos_editorial'>;

/** The JSON search a browse query runs: `images_creative`, `images_editorial`, `videos_creative` or `videos_editorial`. */
export function endpointOf(query: Pick<BrowseQuery, 'kind' | 'family'>): BrowseEndpoint {
  if (query.kind === 'video') return query.family === 'editorial' ? 'videos_editorial' : 'videos_creative';
  return query.kind === 'editorial' ? 'images_editorial' : 'images_creative';
}

/** The family of the results (editorial pages show dates, events and people). */
export function familyOf(query: Pick<BrowseQuery, 'kind' | 'family'>): Family {
  return query.kind === 'video' ? query.family : query.kind;
}

/** Which of the JSON search's parameters the browse query's search takes. */
export function takes(endpoint: SearchEndpoint, parameter: string): boolean {
  return SEARCH_ENDPOINT_DEFINITIONS[endpoint].parameters.some((definition) => definition.name === parameter);
}

export function sortOrdersOf(endpoint: SearchEndpoint): readonly string[] {
  return endpoint.endsWith('editorial') ? EDITORIAL_SORT_ORDERS : SORT_ORDERS;
}

function one(raw: unknown, name: string): string {
  if (raw === undefined) return '';
  if (Array.isArray(raw)) {
    if (raw.length > 1) throw invalidParameterValue(`Give ${name} once`);
    return one(raw[0], name);
  }
  return typeof raw === 'string' ? raw.trim() : '';
}

/** A list parameter: repeated (checkboxes) or comma-separated (the API's way), blanks dropped, each value once. */
function many(raw: unknown, name: string): string[] {
  const parts = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).flatMap((value) => (typeof value === 'string' ? value.split(',') : []));
  const values = [...new Set(parts.map((value) => value.trim()).filter((value) => value !== ''))];
  if (values.length > MAX_VALUES) throw invalidParameterValue(`At most ${MAX_VALUES} values of ${name}`);
  return values;
}

/**
 * The browse query in a page's URL. Only the shape is checked here (known kinds, a page
 * number); the values are checked by the JSON search's own parameter rules when it runs.
 */
export function parseBrowseQuery(raw: Readonly<Record<string, unknown>>): BrowseQuery {
  const kindText = one(raw.kind, 'kind') || 'creative';
  if (!(KINDS as readonly string[]).includes(kindText)) throw invalidParameterValue(`kind must be one of ${KINDS.join(', ')}`);
  const familyText = one(raw.family, 'family') || 'creative';
  if (!(FAMILIES as readonly string[]).includes(familyText)) throw invalidParameterValue(`family must be one of ${FAMILIES.join(', ')}`);
  const phrase = one(raw.phrase, 'phrase');
  if (phrase.length > MAX_PHRASE) throw invalidParameterValue(`The search text is longer than ${MAX_PHRASE} characters`);
  const pageText = one(raw.page, 'page') || '1';
  if (!/^[1-9][0-9]{0,5}$/.test(pageText) || Number(pageText) > MAX_PAGE) throw invalidPageNumber(`page must be a whole number from 1 to ${MAX_PAGE}`);
  const lists = Object.fromEntries(LIST_PARAMETERS.map((name) => [name, many(raw[name], name)])) as Record<ListParameter, string[]>;
  return {
    kind: kindText as Kind,
    family: familyText as Family,
    phrase,
    lists,
    date_from: one(raw.date_from, 'date_from'),
    date_to: one(raw.date_to, 'date_to'),
    sort_order: one(raw.sort_order, 'sort_order'),
    page: Number(pageText),
  };
}

/**
 * The JSON search's query for a browse query: the same names and values, only those the
 * chosen search takes (a refinement of another tab stays in the URL and is not applied).
 */
export function apiQueryOf(query: BrowseQuery, facetFields: readonly string[]): Record<string, string> {
  const endpoint = endpointOf(query);
  const api: Record<string, string> = { page: String(query.page), page_size: String(PAGE_SIZE) };
  if (query.phrase) api.phrase = query.phrase;
  for (const name of LIST_PARAMETERS) {
    if (query.lists[name].length > 0 && takes(endpoint, name)) api[name] = query.lists[name].join(',');
  }
  if (query.date_from && takes(endpoint, 'date_from')) api.date_from = query.date_from;
  if (query.date_to && takes(endpoint, 'date_to')) api.date_to = query.date_to;
  // An order another tab offers (oldest, on a creative search) is dropped; one no search knows is the search's 400.
  if (query.sort_order && (sortOrdersOf(endpoint).includes(query.sort_order) || !(EDITORIAL_SORT_ORDERS as readonly string[]).includes(query.sort_order))) {
    api.sort_order = query.sort_order;
  }
  if (facetFields.length > 0 && takes(endpoint, 'include_facets')) {
    api.include_facets = 'true';
    api.facet_fields = facetFields.join(',');
    api.facet_max_count = '12';
  }
  return api;
}

/** The page's URL for a browse query, with some parts changed; empty parts are left out so URLs stay short. */
export function browseUrl(query: BrowseQuery, changes: Partial<Omit<BrowseQuery, 'lists'>> & { lists?: Partial<Record<ListParameter, readonly string[]>> } = {}): string {
  const next = { ...query, ...changes, lists: { ...query.lists, ...changes.lists } };
  const params = new URLSearchParams();
  if (next.phrase) params.set('phrase', next.phrase);
  if (next.kind !== 'creative') params.set('kind', next.kind);
  if (next.kind === 'video' && next.family !== 'creative') params.set('family', next.family);
  for (const name of LIST_PARAMETERS) if (next.lists[name].length > 0) params.set(name, next.lists[name].join(','));
  if (next.date_from) params.set('date_from', next.date_from);
  if (next.date_to) params.set('date_to', next.date_to);
  if (next.sort_order) params.set('sort_order', next.sort_order);
  if (next.page > 1) params.set('page', String(next.page));
  const text = params.toString();
  return text ? `/?${text}` : '/';
}

/** A search for one refinement alone (the asset page's keyword and artist links). */
export function searchFor(kind: Kind, family: Family, changes: { phrase?: string; lists?: Partial<Record<ListParameter, readonly string[]>> }): string {
  const empty = Object.fromEntries(LIST_PARAMETERS.map((name) => [name, []])) as unknown as Record<ListParameter, readonly string[]>;
  return browseUrl({ kind, family, phrase: '', lists: empty, date_from: '', date_to: '', sort_order: '', page: 1 }, changes);
}
