import type { EmbeddedMetadata } from '../../media/embedded-metadata.js';
import { normalizeIsoDate } from './ingest.schemas.js';

/** The embedded facts each asset type has a field for (videos have no credit_line in the spec). */
const FIELDS_OF: Readonly<Record<'image' | 'video', ReadonlyArray<keyof EmbeddedMetadata>>> = {
  image: ['title', 'caption', 'keywords', 'artist', 'copyright', 'credit_line', 'date_created', 'city', 'state_province', 'country'],
  video: ['title', 'caption', 'keywords', 'artist', 'copyright', 'date_created', 'city', 'state_province', 'country'],
};

/**
 * Fills the fields a record leaves out from what its file says about itself. What the record
 * gives always wins: embedded metadata only supplies what is missing. Values take the forms a
 * manifest line is normalised to (keywords as {text}, dates in UTC); an embedded date that is
 * no ISO 8601 date is left out rather than refusing the line for what the file says.
 */
export function withEmbeddedFields(fields: Record<string, unknown>, assetType: 'image' | 'video', embedded: EmbeddedMetadata): Record<string, unknown> {
  const out = { ...fields };
  for (const name of FIELDS_OF[assetType]) {
    const value = embedded[name];
    if (value === undefined || out[name] !== undefined) continue;
    if (name === 'keywords') out.keywords = (value as string[]).map((text) => ({ text }));
    else if (name === 'date_created') {
      const date = normalizeIsoDate(value as string);
      if (date !== undefined) out.date_created = date;
    } else out[name] = value;
  }
  return out;
}
