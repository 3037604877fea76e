import type { AssetType, EditableAssetRecord, Publication, StoredKeyword } from './catalog.records.js';
import { CatalogConflictError } from './catalog.repository.js';
import type { CatalogService } from './catalog.service.js';
import { IngestLineError, InvalidRecordError, UnreadableFileError, type IngestService } from './ingest/ingest.service.js';
import { ImageLine, VideoLine, WHOLE_RECORD, type FieldProblem } from './ingest/ingest.schemas.js';
import { unfitProductTypes, unfitWarning, unlicensableWarning } from './ingest/product-type-fit.js';
import type { FieldChange } from './ingest/stored-fields.js';
import { anyAssetNotFound } from './catalog.errors.js';

/*
 * The back office's work on the catalogue: the review queue of drafts, an asset's fields, one at
 * a time or over a selection, its file, and its passage between draft, published and withdrawn.
 *
 * Every write goes through ingest (IngestService.applyRecord): the same schema, the same rules
 * and the same messages as a manifest line, and the same rule that a field not named keeps its
 * stored value. Nothing here states a rule of what a field may be; it only files ingest's
 * messages under the field they are about, so that a page shows each beside its field.
 */

/** What the back office may not name as a field: the asset's identity, which an edit never changes. */
const IDENTITY = new Set(['asset_type', 'id', 'file', 'eps_file']);

/** The fields of a record of each type, as ingest's schema names them. */
const RECORD_FIELDS: Readonly<Record<AssetType, ReadonlySet<string>>> = {
  image: new Set(Object.keys(ImageLine.properties)),
  video: new Set(Object.keys(VideoLine.properties)),
};

/** A file given to replace an asset's original: its name (for messages) and its bytes. */
export interface ReplacementFile {
  name: string;
  data: Buffer;
}

/** An asset for its edit page: its record and state, and what ingest would warn of (beside the field concerned). */
export interface AssetForEditing {
  asset: EditableAssetRecord;
  warnings: FieldProblem[];
}

/** What an edit did: the asset as stored now and each field changed, before and after (what the audit log keeps); or why nothing was. */
export type EditResult =
  | { ok: true; asset: EditableAssetRecord; changes: FieldChange[]; warnings: FieldProblem[] }
  | { ok: false; problems: FieldProblem[] };

/** One change over a selection: a field set to one value, or keywords added or removed. */
export type BulkChange =
  | { kind: 'set'; field: string; value: unknown }
  | { kind: 'add_keywords'; keywords: readonly string[] }
  | { kind: 'remove_keywords'; keywords: readonly string[] };

/** A bulk change of one asset of the selection. */
export type BulkResult = { id: string } & EditResult;

/** A move between states asked of one asset: what it was, what it is, and whether it moved. */
export interface PublicationResult {
  id: string;
  /** undefined: no such asset. */
  asset_type: AssetType | undefined;
  before: Publication | undefined;
  after: Publication | undefined;
  changed: boolean;
  /** Why it did not move (no such asset, or not in a state this move starts from). */
  refusal?: string;
}

export interface ListQuery {
  publication: Publication;
  assetType?: AssetType | undefined;
  /** An asset id, or words of its title. */
  text?: string | undefined;
  /** From 1. */
  page: number;
  pageSize: number;
}

export interface AssetList {
  total: number;
  page: number;
  pageSize: number;
  assets: EditableAssetRecord[];
}

/** The moves between states, each from the states it starts from. */
const MOVES = {
  publish: { to: 'published', from: ['draft'] },
  withdraw: { to: 'withdrawn', from: ['published', 'draft'] },
  restore: { to: 'published', from: ['withdrawn'] },
} as const satisfies Record<string, { to: Publication; from: readonly Publication[] }>;

export type PublicationMove = keyof typeof MOVES;

export const LARGEST_PAGE = 200;

export class CatalogEditingService {
  constructor(private readonly deps: { catalog: CatalogService; ingest: IngestService }) {}

  /** One page of the assets in one state: the review queue (drafts), the published and the withdrawn lists. */
  async list(query: ListQuery): Promise<AssetList> {
    const pageSize = Math.min(Math.max(1, Math.trunc(query.pageSize)), LARGEST_PAGE);
    const page = Math.max(1, Math.trunc(query.page));
    const { total, records } = await this.deps.catalog.listInState({
      publication: query.publication,
      assetType: query.assetType,
      text: query.text,
      offset: (page - 1) * pageSize,
      limit: pageSize,
    });
    return { total, page, pageSize, assets: records };
  }

  /** One asset whatever its state, with ingest's warnings; 404 AssetNotFound when there is none. */
  async read(id: string): Promise<AssetForEditing> {
    const asset = await this.stored(id);
    return { asset, warnings: warningsOf(asset) };
  }

  /**
   * Changes the named fields of an asset (a null clears one); the fields not named keep their
   * values, and the asset keeps its state. With a file, the file replaces the original and
   * everything derived from it (sizes, renditions, signature, facts) is made again. All or
   * nothing: a refused value changes nothing, and comes back under its field.
   */
  async update(id: string, fields: Readonly<Record<string, unknown>>, file?: ReplacementFile): Promise<EditResult> {
    const stored = await this.stored(id);
    const identity = Object.keys(fields).filter((name) => IDENTITY.has(name));
    if (identity.length > 0) {
      return { ok: false, problems: identity.map((field) => ({ field, message: `${field} is the asset's identity and cannot be edited` })) };
    }
    const value: Record<string, unknown> = { ...fields, asset_type: stored.asset_type, id: stored.id };
    if (file !== undefined) value.file = file.name;
    let changes: FieldChange[];
    try {
      ({ changes } = await this.deps.ingest.applyRecord(value, file?.data));
    } catch (error) {
      return { ok: false, problems: problemsOf(error, stored.asset_type) };
    }
    const asset = await this.stored(id);
    return { ok: true, asset, changes, warnings: warningsOf(asset) };
  }

  /** One change over many assets, each asset all or nothing, each with its own result (one refused leaves the others done). */
  async updateMany(ids: readonly string[], change: BulkChange): Promise<BulkResult[]> {
    const results: BulkResult[] = [];
    for (const id of new Set(ids)) {
      const found = (await this.deps.catalog.findAssetsInAnyState(undefined, [id]))[0];
      if (found === undefined) {
        results.push({ id, ok: false, problems: [{ field: WHOLE_RECORD, message: `asset '${id}' does not exist` }] });
        continue;
      }
      results.push({ id, ...(await this.update(id, bulkFields(found, change))) });
    }
    return results;
  }

  /** Publishes drafts: they become searchable, readable and licensable, and the change feed announces them New. */
  publish(ids: readonly string[]): Promise<PublicationResult[]> {
    return this.move('publish', ids);
  }

  /** Withdraws published assets (the feed says Delete, search and boards drop them) or rejects drafts. */
  withdraw(ids: readonly string[]): Promise<PublicationResult[]> {
    return this.move('withdraw', ids);
  }

  /** Brings withdrawn assets back: published again, announced New. */
  restore(ids: readonly string[]): Promise<PublicationResult[]> {
    return this.move('restore', ids);
  }

  private async move(move: PublicationMove, ids: readonly string[]): Promise<PublicationResult[]> {
    const { to, from } = MOVES[move];
    const results: PublicationResult[] = [];
    for (const id of new Set(ids)) {
      const change = await this.deps.catalog.changePublication(id, to, from);
      if (change === undefined) {
        results.push({ id, asset_type: undefined, before: undefined, after: undefined, changed: false, refusal: `asset '${id}' does not exist` });
        continue;
      }
      const after = change.changed ? to : change.before;
      const result: PublicationResult = { id, asset_type: change.asset_type, before: change.before, after, changed: change.changed };
      if (!change.changed && change.before !== to) {
        result.refusal = `asset '${id}' is ${change.before}; only ${from.join(' or ')} assets can be ${PAST[move]}`;
      }
      results.push(result);
    }
    return results;
  }

  private async stored(id: string): Promise<EditableAssetRecord> {
    const asset = (await this.deps.catalog.findAssetsInAnyState(undefined, [id]))[0];
    if (asset === undefined) throw anyAssetNotFound(`Asset not found: ${id}`);
    return asset;
  }
}

const PAST: Readonly<Record<PublicationMove, string>> = { publish: 'published', withdraw: 'withdrawn', restore: 'brought back' };

/** The fields one bulk change names for one asset: the keyword changes start from its stored keywords. */
function bulkFields(asset: EditableAssetRecord, change: BulkChange): Record<string, unknown> {
  if (change.kind === 'set') return { [change.field]: change.value };
  const stored = ((asset.fields.keywords as StoredKeyword[] | undefined) ?? []).map((keyword) => ({
    keyword_id: keyword.keyword_id,
    text: keyword.text,
    type: keyword.type,
    relevance: keyword.relevance,
  }));
  const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();
  if (change.kind === 'add_keywords') {
    const added = change.keywords.filter((text, index) => !stored.some((k) => same(k.text, text)) && change.keywords.findIndex((other) => same(other, text)) === index);
    return { keywords: [...stored, ...added.map((text) => text.trim())] };
  }
  return { keywords: stored.filter((keyword) => !change.keywords.some((text) => same(keyword.text, text))) };
}

/** Ingest's warnings of a stored asset (it is stored all the same): no product type, or one that can never license it. */
export function warningsOf(asset: EditableAssetRecord): FieldProblem[] {
  const fields = asset.fields;
  const productTypes = Array.isArray(fields.product_types) ? (fields.product_types as string[]) : [];
  if (productTypes.length === 0) return [{ field: 'product_types', message: unlicensableWarning(asset.id) }];
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  return unfitProductTypes({ assetType: asset.asset_type, family: text(fields.asset_family), licenseModel: text(fields.license_model), productTypes }).map(
    (unfit) => ({ field: 'product_types', message: unfitWarning(asset.id, unfit) }),
  );
}

/**
 * Ingest's refusal of an edit, each problem under its field: the schema's problems are filed
 * already; a rule's message (ingest writes "<field> must …") names its field first; a file that
 * cannot be read is the file's; a conflict is the collection's or the keywords'.
 */
export function problemsOf(error: unknown, assetType: AssetType): FieldProblem[] {
  if (error instanceof InvalidRecordError) return [...error.problems];
  if (error instanceof UnreadableFileError) return [{ field: 'file', message: error.message }];
  if (error instanceof IngestLineError) return [{ field: namedField(error.message, assetType), message: error.message }];
  if (error instanceof CatalogConflictError) {
    const field = /^collection\b/.test(error.message) ? 'collection_code' : /^keyword\b/.test(error.message) ? 'keywords' : WHOLE_RECORD;
    return [{ field, message: error.message }];
  }
  throw error;
}

function namedField(message: string, assetType: AssetType): string {
  if (/^(file|eps_file) '/.test(message) || /^asset '.*' keeps its original/.test(message)) return message.startsWith('eps_file') ? 'eps_file' : 'file';
  const first = /^([a-z_]+)\b/.exec(message)?.[1];
  return first !== undefined && RECORD_FIELDS[assetType].has(first) ? first : WHOLE_RECORD;
}
