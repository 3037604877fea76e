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

/** The requested facets, in the response's shape, from the index's counts over the whole match set. */
export async function shapeFacets(
  counts: Readonly<Record<string, FacetCount[]>>,
  requested: readonly string[],
  context: FacetContext,
): Promise<Record<string, unknown>> {
  const facets: Record<string, unknown> = {};
  for (const name of requested) {
    if (name === 'artists') facets.artists = (counts.artist ?? []).map((f) => ({ name: f.value }));
    if (name === 'locations') {
      // The id stays that of the stored text: filtering by it must not depend on the language.
      facets.locations = (counts.location ?? []).map((f) => ({ id: facetId(f.value), name: localizedLocation(f.value, context.language) }));
    }
    if (name === 'specific_people') facets.specific_people = (counts.person ?? []).map((f) => ({ id: facetId(f.value), name: f.value }));
    if (name === 'events') {
      const ids = (counts.event_id ?? []).map((f) => Number(f.value));
      const events = new Map((await context.findEvents(ids)).map((e) => [e.id, e]));
      facets.events = ids.flatMap((id) => {
        const event = events.get(id);
        return event ? [{ id, name: event.name, date: event.start_date }] : [];
      });
    }
  }
  return facets;
}
