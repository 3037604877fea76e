import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { EventRecord } from '../catalog/catalog.records.js';
import { localizeCountryName } from '../catalog/countries.js';
import type { FacetCount } from './engine/types.js';

/*
 * The `facets` object of a search response (the contract's SearchFacetsResponse), made from the
 * index's counts: one place, so that every search endpoint gives a facet value the same id and
 * the same localized text.
 */

const Artists = Type.Array(Type.Object({ name: Type.String() }));
const Named = Type.Array(Type.Object({ id: Type.Integer(), name: Type.String() }));
const Events = Type.Array(Type.Object({ id: Type.Integer(), name: Type.String(), date: Type.Union([Type.String(), Type.Null()]) }));

/** Creative searches facet by artist and location. */
export const CreativeFacets = Type.Object({
  artists: Type.Optional(Artists),
  locations: Type.Optional(Named),
});

/** Editorial and blended searches add events and specific people. */
export const SearchFacets = Type.Object({
  artists: Type.Optional(Artists),
  locations: Type.Optional(Named),
  events: Type.Optional(Events),
  specific_people: Type.Optional(Named),
});

/** A facet value's number: derived from its stored text, so the same on every node, run and endpoint. */
export function facetId(name: string): number {
  return createHash('sha256').update(name).digest().readUInt32BE(0) >>> 1;
}

/** "Lisbon, Lisboa, Portugal" with its last part, the country, in the caller's language. */
function localizedLocation(location: string, language: string): string {
  const parts = location.split(', ');
  parts[parts.length - 1] = localizeCountryName(parts[parts.length - 1]!, language);
  return parts.join(', ');
}

export interface FacetContext {
  /** The caller's language (Accept-Language): country names in locations are given in it. */
  language: string;
  /** The events named by an events facet, to give their names and dates. */
  findEvents(ids: readonly number[]): Promise<EventRecord[]>;
}

/** One value of a facet: what it filters by (its stored text, or an event's id), its text for people, and its count. */
export interface FacetValue {
  value: string;
  label: string;
  count: number;
}

/** The values of the facets asked for, in the order of their counts; an events facet gives each event's date too. */
export interface FacetValues {
  artists?: FacetValue[];
  locations?: FacetValue[];
  events?: Array<FacetValue & { date: string | null }>;
  specific_people?: FacetValue[];
}

/**
 * The requested facets from the index's counts over the whole match set: each value named
 * (locations in the caller's language, events from the catalogue, an event that is gone left
 * out). Every facet asked for is there, empty when nothing was counted.
 */
export async function resolveFacets(
  counts: Readonly<Record<string, FacetCount[]>>,
  requested: readonly string[],
  context: FacetContext,
): Promise<FacetValues> {
  const facets: FacetValues = {};
  const named = (list: FacetCount[] | undefined, label: (value: string) => string = (value) => value): FacetValue[] =>
    (list ?? []).map((f) => ({ value: f.value, label: label(f.value), count: f.count }));
  for (const name of requested) {
    if (name === 'artists') facets.artists = named(counts.artist);
    if (name === 'locations') facets.locations = named(counts.location, (location) => localizedLocation(location, context.language));
    if (name === 'specific_people') facets.specific_people = named(counts.person);
    if (name === 'events') {
      const listed = counts.event_id ?? [];
      const events = new Map((await context.findEvents(listed.map((f) => Number(f.value)))).map((e) => [e.id, e]));
      facets.events = listed.flatMap((f) => {
        const event = events.get(Number(f.value));
        return event ? [{ value: f.value, label: event.name, count: f.count, date: event.start_date }] : [];
      });
    }
  }
  return facets;
}

/** The `facets` object of a response (the contract's SearchFacetsResponse). */
export function facetsResponse(facets: FacetValues): Record<string, unknown> {
  const response: Record<string, unknown> = {};
  // In the order the facets were asked for.
  for (const name of Object.keys(facets)) {
    if (name === 'artists') response.artists = facets.artists!.map((f) => ({ name: f.label }));
    // The id stays that of the stored text: filtering by it must not depend on the language.
    if (name === 'locations') response.locations = facets.locations!.map((f) => ({ id: facetId(f.value), name: f.label }));
    if (name === 'specific_people') response.specific_people = facets.specific_people!.map((f) => ({ id: facetId(f.value), name: f.label }));
    if (name === 'events') response.events = facets.events!.map((f) => ({ id: Number(f.value), name: f.label, date: f.date }));
  }
  return response;
}
