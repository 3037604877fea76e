import type { Kysely } from 'kysely';

/**
 * How far a manifest's ingest has come (src/catalog/ingest): one row per manifest being
 * ingested, saved as the run goes and removed when it ends, so that a run that was stopped (a
 * kill, a crash, a reboot) is continued by the same command run again instead of started over.
 */
export function ingestCheckpoints() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('ingest_checkpoints')
        // A fingerprint of the manifest (its path, size and modification time) and of the run's options.
        .addColumn('manifest', 'text', (c) => c.primaryKey())
        // Every line up to this one has been stored or refused.
        .addColumn('through_line', 'integer', (c) => c.notNull())
        .addColumn('inserted', 'integer', (c) => c.notNull())
        .addColumn('updated', 'integer', (c) => c.notNull())
        .addColumn('failed', 'integer', (c) => c.notNull())
        .addColumn('saved_at', 'text', (c) => c.notNull())
        .execute();
    },
  };
}
