import type { Kysely } from 'kysely';

/**
 * Who may publish the search index's snapshot into the blob store (src/search): one row, held
 * by one node at a time under a lease it renews while it uploads, so that the nodes of a
 * cluster never write the shared snapshot at once. The row also names the object a publisher
 * is uploading, so that the next publisher removes what a node that stopped mid-way left.
 */
export function searchSnapshotLease() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('search_snapshot_lease')
        .addColumn('name', 'text', (c) => c.primaryKey())
        // Always 'open': only the lease tells a held row from a free one.
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('holder', 'text')
        .addColumn('lease_until', 'text')
        .addColumn('uploading_key', 'text')
        .execute();
      await db.insertInto('search_snapshot_lease').values({ name: 'search', status: 'open' }).execute();
    },
  };
}
