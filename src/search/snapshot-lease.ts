import type { Kysely } from 'kysely';
import type { SqlDialect } from '../platform/db/database.js';
import type { Tables } from '../platform/db/tables.js';
import { LeaseQueue, type LeaseTable } from '../platform/jobs/lease-queue.js';

/**
 * The one row that says who publishes the search snapshot (migration 0024), described for the
 * platform's lease queue: a "job" that is always open, so that only its lease tells whether a
 * node holds it. The queue's claim is one conditional statement on both stores, so two nodes
 * that try at once never both hold it; a node that stops holding it loses it when the lease
 * lapses.
 */
const PUBLISHING: LeaseTable<'search_snapshot_lease'> = {
  table: 'search_snapshot_lease',
  key: ['name'],
  order: ['name'],
  lease: { holder: 'holder', until: 'lease_until' },
  status: { column: 'status', waiting: 'open', held: 'open' },
};

/** A hold on publishing, while a node uploads. Every write is conditional on the hold still being this node's. */
export interface PublishingHold {
  /** The object a node that stopped mid-upload left behind (to remove), or null. */
  readonly leftover: string | null;
  /** Records the object this node is about to upload, and runs the lease on; false when the hold was lost. */
  uploading(key: string): Promise<boolean>;
  /** Runs the lease on; false when it lapsed and another node may hold it now. */
  renew(): Promise<boolean>;
  /** Ends the hold (the upload done, or given up) and forgets the object being uploaded. */
  release(): Promise<void>;
}

export interface SnapshotLeaseOptions {
  db: Kysely<Tables>;
  dialect: SqlDialect;
  /** This node's name, as its job runner holds jobs under it. */
  node: string;
  /** How long a hold lasts without renewal: a node that stops loses it after this. */
  leaseMs: number;
  now: () => Date;
}

export class SnapshotPublishingLease {
  private readonly queue: LeaseQueue<'search_snapshot_lease'>;

  constructor(private readonly options: SnapshotLeaseOptions) {
    this.queue = new LeaseQueue(options.db, options.dialect, PUBLISHING);
  }

  get leaseMs(): number {
    return this.options.leaseMs;
  }

  /** Holds the right to publish, or undefined when another node holds it now. */
  async take(): Promise<PublishingHold | undefined> {
    const { db, node } = this.options;
    const row = await this.queue.claim(node, this.options.now(), this.until());
    if (!row) return undefined;
    const held = () => db.updateTable('search_snapshot_lease').where('name', '=', row.name).where('holder', '=', node);
    const changed = (result: { numUpdatedRows: bigint }) => Number(result.numUpdatedRows) === 1;
    return {
      leftover: row.uploading_key,
      uploading: async (key) => changed(await held().set({ uploading_key: key, lease_until: this.until().toISOString() }).executeTakeFirst()),
      renew: () => this.queue.renew(row, node, this.until()),
      release: async () => {
        await this.queue.finish(row, node, { uploading_key: null });
      },
    };
  }

  private until(): Date {
    return new Date(this.options.now().getTime() + this.options.leaseMs);
  }
}
