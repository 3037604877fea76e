import type {
  AssetForEditing,
  AssetList,
  BulkChange,
  BulkResult,
  CatalogEditingService,
  EditResult,
  ListQuery,
  PublicationMove,
  PublicationResult,
  ReplacementFile,
} from '../catalog/catalog-editing.service.js';
import type { FieldChange } from '../catalog/ingest/stored-fields.js';
import type { AuditLog } from './audit-log.service.js';
import { requireRole, type Actor } from './staff-policy.js';

/*
 * The back office's catalogue pages act through here: every action takes the acting person,
 * checks the role first (an editor or an admin: the catalogue is an editor's work), then acts
 * through the catalogue's editing service and records what it did in the audit log, with the
 * asset before and after (the fields changed; the state moved).
 */

/** The least role the catalogue's pages and actions take. */
export const CATALOGUE_ROLE = 'editor';

export class CatalogueDesk {
  constructor(private readonly deps: { editing: CatalogEditingService; auditLog: AuditLog }) {}

  async list(actor: Actor, query: ListQuery): Promise<AssetList> {
    requireRole(actor, CATALOGUE_ROLE);
    return this.deps.editing.list(query);
  }

  async read(actor: Actor, id: string): Promise<AssetForEditing> {
    requireRole(actor, CATALOGUE_ROLE);
    return this.deps.editing.read(id);
  }

  /** Changes an asset's fields (and file); recorded when something changed, each field before and after. */
  async update(actor: Actor, id: string, fields: Readonly<Record<string, unknown>>, file?: ReplacementFile): Promise<EditResult> {
    requireRole(actor, CATALOGUE_ROLE);
    const result = await this.deps.editing.update(id, fields, file);
    if (result.ok && (result.changes.length > 0 || file !== undefined)) {
      await this.recordEdit(actor, file === undefined ? 'asset.edit' : 'asset.replace_file', id, result.changes, file === undefined ? undefined : { file: file.name, original: result.asset.original?.key ?? null });
    }
    return result;
  }

  /** One change over a selection; each asset changed is recorded on its own. */
  async updateMany(actor: Actor, ids: readonly string[], change: BulkChange): Promise<BulkResult[]> {
    requireRole(actor, CATALOGUE_ROLE);
    const results = await this.deps.editing.updateMany(ids, change);
    for (const result of results) {
      if (result.ok && result.changes.length > 0) await this.recordEdit(actor, 'asset.bulk_edit', result.id, result.changes);
    }
    return results;
  }

  async publish(actor: Actor, ids: readonly string[]): Promise<PublicationResult[]> {
    return this.move(actor, 'publish', ids);
  }

  async withdraw(actor: Actor, ids: readonly string[]): Promise<PublicationResult[]> {
    return this.move(actor, 'withdraw', ids);
  }

  async restore(actor: Actor, ids: readonly string[]): Promise<PublicationResult[]> {
    return this.move(actor, 'restore', ids);
  }

  private async move(actor: Actor, move: PublicationMove, ids: readonly string[]): Promise<PublicationResult[]> {
    requireRole(actor, CATALOGUE_ROLE);
    const results = await this.deps.editing[move](ids);
    for (const result of results) {
      if (result.changed) await this.deps.auditLog.record(actor, `asset.${move}`, { kind: 'asset', id: result.id }, { publication: result.before }, { publication: result.after });
    }
    return results;
  }

  private recordEdit(actor: Actor, action: string, id: string, changes: readonly FieldChange[], extra?: Record<string, unknown>) {
    const before = Object.fromEntries(changes.map((change) => [change.field, change.from]));
    const after = { ...Object.fromEntries(changes.map((change) => [change.field, change.to])), ...extra };
    return this.deps.auditLog.record(actor, action, { kind: 'asset', id }, before, after);
  }
}
