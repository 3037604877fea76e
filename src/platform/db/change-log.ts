import type { Kysely, Transaction } from 'kysely';
import type { Tables } from './tables.js';

export type ChangeEntityType = 'image' | 'video' | 'event' | 'collection' | 'keyword';
/**
 * `count`: only a counter of the asset changed (a download), not what it shows: indexes and
 * caches re-read it, but it is no news to a partner who keeps a copy of the asset.
 */
export type ChangeOperation = 'insert' | 'update' | 'delete' | 'count';

export interface Change {
  seq: number;
  entity_type: ChangeEntityType;
  entity_id: string;
  operation: ChangeOperation;
  changed_at: string;
  /** The family of an image or video as it was then (lower case), so that readers need not look it up. */
  asset_family: string | null;
}

/** Appends one numbered entry; call it inside the transaction that made the change. */
export async function recordChange(
  trx: Transaction<Tables> | Kysely<Tables>,
  entityType: ChangeEntityType,
  entityId: string,
  operation: ChangeOperation,
  assetFamily: string | null = null,
): Promise<void> {
  await trx.insertInto('change_log').values(changeEntry(entityType, entityId, operation, assetFamily, new Date().toISOString())).execute();
}

/** The change_log row recordChange appends (all but its number); exported for the benchmarks' bulk loader. */
export function changeEntry(entityType: ChangeEntityType, entityId: string, operation: ChangeOperation, assetFamily: string | null, changedAt: string) {
  return { entity_type: entityType, entity_id: entityId, operation, changed_at: changedAt, asset_family: assetFamily?.toLowerCase() ?? null };
}

export async function readChangesAfter(db: Kysely<Tables>, afterSeq: number, limit = 1000): Promise<Change[]> {
  const rows = await db
    .selectFrom('change_log')
    .selectAll()
    .where('seq', '>', afterSeq)
    .orderBy('seq')
    .limit(limit)
    .execute();
  return rows as Change[];
}

export async function latestChangeSeq(db: Kysely<Tables>): Promise<number> {
  const row = await db.selectFrom('change_log').select((eb) => eb.fn.max('seq').as('seq')).executeTakeFirst();
  return Number(row?.seq ?? 0);
}

export type ChangeListener = (changes: readonly Change[]) => void;

/**
 * Follows the change log: every node polls it, so caches and indexes converge on
 * writes made by other processes (another node, or the `ingest` command).
 */
export class ChangeFeed {
  private lastSeq = 0;
  private readonly listeners = new Set<ChangeListener>();
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  /** The read that follows the one under way, for callers who came while it ran. */
  private following: Promise<void> | undefined;
  private readAt: number | undefined;

  constructor(private readonly db: Kysely<Tables>) {}

  /** Starts from the current end of the log: what is already there has been read by the caller. */
  async start(intervalMs: number): Promise<void> {
    this.lastSeq = await latestChangeSeq(this.db);
    this.readAt = Date.now();
    this.timer = setInterval(() => void this.poll().catch(() => undefined), intervalMs);
    this.timer.unref();
  }

  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Reads what is new since the last poll and tells every listener; one poll at a time. When it
   * resolves, every change committed before the call has been told: a read already under way
   * may have begun before the caller's change, so the call waits for one more read after it
   * (shared by every caller meanwhile), not for that one alone.
   */
  poll(): Promise<void> {
    if (this.polling) {
      this.following ??= this.polling
        .catch(() => undefined)
        .then(() => {
          this.following = undefined;
          return this.poll();
        });
      return this.following;
    }
    this.polling = this.readNew().finally(() => {
      this.polling = undefined;
    });
    return this.polling;
  }

  private async readNew(): Promise<void> {
    for (;;) {
      const changes = await readChangesAfter(this.db, this.lastSeq);
      this.readAt = Date.now();
      if (changes.length === 0) return;
      this.lastSeq = changes[changes.length - 1]!.seq;
      for (const listener of this.listeners) listener(changes);
      if (changes.length < 1000) return;
    }
  }

  /** The last number read from the log (its lag is the log's latest number minus this). */
  get position(): number {
    return this.lastSeq;
  }

  /** When the log was last read successfully (ms since the epoch); undefined before start(). */
  get lastReadAt(): number | undefined {
    return this.readAt;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
