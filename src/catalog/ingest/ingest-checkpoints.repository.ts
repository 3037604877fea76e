import type { Kysely } from 'kysely';
import type { Tables } from '../../platform/db/tables.js';

/** How far a manifest's ingest has come: every line through `throughLine` stored or refused, and the counts so far. */
export interface IngestCheckpoint {
  /** A fingerprint of the manifest and the run's options (see IngestService). */
  manifest: string;
  throughLine: number;
  inserted: number;
  updated: number;
  failed: number;
}

/** The `ingest_checkpoints` rows: saved as a manifest's ingest goes, removed when it ends. */
export class IngestCheckpointRepository {
  constructor(private readonly db: Kysely<Tables>) {}

  async find(manifest: string): Promise<IngestCheckpoint | undefined> {
    const row = await this.db.selectFrom('ingest_checkpoints').selectAll().where('manifest', '=', manifest).executeTakeFirst();
    if (row === undefined) return undefined;
    return { manifest: row.manifest, throughLine: row.through_line, inserted: row.inserted, updated: row.updated, failed: row.failed };
  }

  async save(checkpoint: IngestCheckpoint): Promise<void> {
    const row = {
      through_line: checkpoint.throughLine,
      inserted: checkpoint.inserted,
      updated: checkpoint.updated,
      failed: checkpoint.failed,
      saved_at: new Date().toISOString(),
    };
    await this.db
      .insertInto('ingest_checkpoints')
      .values({ manifest: checkpoint.manifest, ...row })
      .onConflict((conflict) => conflict.column('manifest').doUpdateSet(row))
      .execute();
  }

  async remove(manifest: string): Promise<void> {
    await this.db.deleteFrom('ingest_checkpoints').where('manifest', '=', manifest).execute();
  }
}
