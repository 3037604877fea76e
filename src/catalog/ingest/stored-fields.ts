import type { AssetInput, AssetRecord, EventInput, EventRecord, StoredKeyword } from '../catalog.records.js';
import { ImageLine, VideoLine, type AssetManifestRecord, type EventManifestRecord } from './ingest.schemas.js';

/*
 * Ingest never loses what is stored: a field a record leaves out keeps its stored value, and
 * only a field the record names (a value, or null to clear it) changes. With `replace` a record
 * is written exactly as given, as if new. This file holds that rule, and the comparison that
 * tells an editor what a run changes (or, on a dry run, would change).
 */

/** The fields a manifest line may give, by asset type: only these are carried over from the store. */
const LINE_FIELDS: Readonly<Record<'image' | 'video', ReadonlySet<string>>> = {
  image: new Set(Object.keys(ImageLine.properties)),
  video: new Set(Object.keys(VideoLine.properties)),
};

/** A record's identity, not a field to carry over. */
const IDENTITY = new Set(['asset_type', 'id', 'file', 'eps_file']);

/**
 * The three fields that name one collection: they are kept or replaced together, since a
 * stored id beside a newly given code would name two collections at once.
 */
const COLLECTION_FIELDS = ['collection_code', 'collection_id', 'collection_name'] as const;

function isBlank(value: unknown): boolean {
  return value === null || value === undefined || (Array.isArray(value) && value.length === 0);
}

/**
 * The record to store: the given record over the stored one's fields. `named` is every field
 * the raw record names, null included (a null clears the stored value); `derived` the fields
 * that will be derived from the file again and so must not be carried over.
 */
export function withStoredFields(
  record: AssetManifestRecord,
  stored: AssetRecord,
  named: ReadonlySet<string>,
  derived: readonly string[],
): AssetManifestRecord {
  const allowed = LINE_FIELDS[record.asset_type];
  const namesCollection = COLLECTION_FIELDS.some((field) => named.has(field));
  const kept: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(stored.fields)) {
    if (!allowed.has(name) || IDENTITY.has(name) || named.has(name) || derived.includes(name) || isBlank(value)) continue;
    if (namesCollection && (COLLECTION_FIELDS as readonly string[]).includes(name)) continue;
    kept[name] = name === 'keywords' ? (value as StoredKeyword[]).map(keptKeyword) : value;
  }
  // A colour type read from the pixels, not given: it is read again from the pixels.
  if (kept.color_type !== undefined && kept.color_type === stored.media_facts?.color_type) delete kept.color_type;
  return { ...kept, ...record } as AssetManifestRecord;
}

/** A stored keyword as a record names it: the shared keyword by id and text, this asset's relevance. */
function keptKeyword(keyword: StoredKeyword) {
  return { keyword_id: keyword.keyword_id, text: keyword.text, type: keyword.type, relevance: keyword.relevance };
}

/** The same rule for an event: fields the line leaves out keep their stored values. */
export function withStoredEventFields(record: EventManifestRecord, stored: EventRecord, named: ReadonlySet<string>): EventManifestRecord {
  const kept: Partial<EventInput> = {};
  const keep = <K extends keyof EventInput>(name: K, value: EventInput[K]) => {
    if (!named.has(name) && !isBlank(value)) kept[name] = value;
  };
  keep('start_date', stored.start_date);
  keep('parent_id', stored.parent_id);
  keep('type', stored.type);
  keep('editorial_segments', stored.editorial_segments);
  keep('hero_image_id', stored.hero_image_id);
  if (Object.values(stored.location).some((value) => value !== null)) keep('location', stored.location);
  keep('keywords', stored.keywords);
  return { ...kept, ...record };
}

/** One field a run changes: its value before and after (null: none). */
export interface FieldChange {
  field: string;
  from: unknown;
  to: unknown;
}

/** What writing `input` over `stored` changes, field by field, in field-name order. */
export function assetChanges(stored: AssetRecord, input: AssetInput): FieldChange[] {
  const before = comparableFields(stored.fields);
  const afterFields = { ...input.fields };
  // A colour type not given is the one read from the pixels, as a stored record reads it.
  const facts = input.media_facts === undefined ? stored.media_facts : input.media_facts;
  if (afterFields.color_type === undefined && facts) afterFields.color_type = facts.color_type;
  const after = comparableFields(afterFields);
  before.collection = storedCollection(stored.fields, afterFields);
  return changesBetween(before, after);
}

/** What writing an event over the stored one changes. */
export function eventChanges(stored: EventRecord, input: EventInput): FieldChange[] {
  const { id: _id, child_event_count: _children, image_count: _images, ...before } = stored;
  const { id: _inputId, ...after } = input;
  return changesBetween(comparableFields(before), comparableFields(after));
}

function changesBetween(before: Record<string, unknown>, after: Record<string, unknown>): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const field of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
    const from = before[field] ?? null;
    const to = after[field] ?? null;
    if (JSON.stringify(from) !== JSON.stringify(to)) changes.push({ field, from, to });
  }
  return changes;
}

/** Fields as compared: blanks left out, keywords by their text, the collection as one field. */
function comparableFields(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    if (isBlank(value) || (COLLECTION_FIELDS as readonly string[]).includes(name)) continue;
    if (name === 'keywords') out.keywords = (value as Array<{ text: string }>).map((keyword) => keyword.text);
    else if (name === 'location') {
      const given = Object.entries(value as Record<string, unknown>).filter(([, part]) => !isBlank(part));
      if (given.length > 0) out.location = Object.fromEntries(given.sort(([a], [b]) => (a < b ? -1 : 1)));
    } else out[name] = value;
  }
  const collection = fields.collection_code ?? fields.collection_name ?? fields.collection_id;
  if (!isBlank(collection)) out.collection = collection;
  return out;
}

/** The stored collection under the name the new record uses for it (code, else name, else id). */
function storedCollection(stored: Record<string, unknown>, given: Record<string, unknown>): unknown {
  if (given.collection_code === undefined && given.collection_name !== undefined) return stored.collection_name ?? null;
  if (given.collection_code === undefined && given.collection_name === undefined && given.collection_id !== undefined) {
    return stored.collection_id ?? null;
  }
  return stored.collection_code ?? null;
}

/** A value as a change line shows it: JSON, cut short when long; "(none)" for no value. */
export function showValue(value: unknown): string {
  if (value === null || value === undefined) return '(none)';
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}
