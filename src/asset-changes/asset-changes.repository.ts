import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { AssetChangeChannelsTable, AssetChangeSetsTable, Tables } from '../platform/db/tables.js';

export type ChannelRow = Selectable<AssetChangeChannelsTable>;
export type ChangeSetRow = Selectable<AssetChangeSetsTable>;

/** One change-log entry a channel is to hear of. */
export interface PendingEntry {
  seq: number;
  entity_type: string;
  entity_id: string;
  operation: string;
  changed_at: string;
}

/** Which entries of the change log a channel hears of: its asset type and family, after a position, since a cutoff. */
export interface ChannelScope {
  clientId: number;
  /** The change log's entity type: image or video. */
  entityType: 'image' | 'video';
  /** null: every family (a channel of both). */
  family: 'creative' | 'editorial' | null;
  afterSeq: number;
  /** Entries older than this (ISO 8601) are dropped. */
  since: string;
}

type Db = Kysely<Tables> | Transaction<Tables>;

/**
 * The channels, change sets and registrations, and the one query that reads a channel's notices
 * from the change log. Each entry carries its asset's family as it was then, so the query
 * filters a hundred thousand entries by family in the store — what keeps a hand-out fast —
 * without reading the catalogue's own tables.
 */
export class AssetChangesRepository {
  constructor(private readonly db: Kysely<Tables>) {}

  async createChannel(row: Omit<ChannelRow, 'id' | 'confirmed_seq' | 'open_change_set_id'>): Promise<ChannelRow> {
    return (await this.db.insertInto('asset_change_channels').values(row).returningAll().executeTakeFirstOrThrow()) as ChannelRow;
  }

  async findChannel(id: number): Promise<ChannelRow | undefined> {
    return (await this.db.selectFrom('asset_change_channels').selectAll().where('id', '=', id).executeTakeFirst()) as ChannelRow | undefined;
  }

  async listChannels(clientId?: number): Promise<ChannelRow[]> {
    let query = this.db.selectFrom('asset_change_channels').selectAll().orderBy('id');
    if (clientId !== undefined) query = query.where('client_id', '=', clientId);
    return (await query.execute()) as ChannelRow[];
  }

  async deleteChannel(id: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('asset_change_sets').where('channel_id', '=', id).execute();
      const result = await trx.deleteFrom('asset_change_channels').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    });
  }

  async findChangeSet(id: number): Promise<(ChangeSetRow & { client_id: number }) | undefined> {
    return (await this.db
      .selectFrom('asset_change_sets as s')
      .innerJoin('asset_change_channels as c', 'c.id', 's.channel_id')
      .selectAll('s')
      .select('c.client_id')
      .where('s.id', '=', id)
      .executeTakeFirst()) as (ChangeSetRow & { client_id: number }) | undefined;
  }

  /**
   * Runs `work` holding the channel: its first statement writes the channel's row, so that on
   * PostgreSQL the row is locked until commit and on SQLite the transaction holds the one write
   * lock before it reads anything. Hand-outs and confirmations of one channel take turns, on
   * every node. Null when there is no such channel.
   */
  async withChannel<T>(channelId: number, work: (trx: Transaction<Tables>, channel: ChannelRow) => Promise<T>): Promise<T | null> {
    return this.db.transaction().execute(async (trx) => {
      const channel = (await trx
        .updateTable('asset_change_channels')
        .set({ open_change_set_id: sql`open_change_set_id` })
        .where('id', '=', channelId)
        .returningAll()
        .executeTakeFirst()) as ChannelRow | undefined;
      return channel ? work(trx, channel) : null;
    });
  }

  async changeSet(trx: Db, id: number): Promise<ChangeSetRow | undefined> {
    return (await trx.selectFrom('asset_change_sets').selectAll().where('id', '=', id).executeTakeFirst()) as ChangeSetRow | undefined;
  }

  /** The last number of the change log: every entry up to it is committed (catalogue writes take turns). */
  async latestSeq(trx: Db): Promise<number> {
    const row = await trx.selectFrom('change_log').select((eb) => eb.fn.max('seq').as('seq')).executeTakeFirst();
    return Number(row?.seq ?? 0);
  }

  /** The first `limit` entries the channel is to hear of, up to `throughSeq`, in log order. */
  async pending(trx: Db, scope: ChannelScope, throughSeq: number, limit: number): Promise<PendingEntry[]> {
    return this.scoped(trx, scope)
      .where('l.seq', '<=', throughSeq)
      .select(['l.seq', 'l.entity_type', 'l.entity_id', 'l.operation', 'l.changed_at'])
      .orderBy('l.seq')
      .limit(limit)
      .execute();
  }

  /** How many entries the channel has not confirmed, and the time of the oldest. */
  async pendingSummary(scope: ChannelScope): Promise<{ count: number; oldest: string | null }> {
    const counted = await this.scoped(this.db, scope).select((eb) => eb.fn.countAll().as('count')).executeTakeFirst();
    const oldest = await this.scoped(this.db, scope).select('l.changed_at').orderBy('l.seq').limit(1).executeTakeFirst();
    return { count: Number(counted?.count ?? 0), oldest: oldest?.changed_at ?? null };
  }

  /**
   * The entries of the channel's asset type after its position: every withdrawal (the family of a
   * withdrawn asset is gone with it); an addition or change of an asset still in the catalogue
   * whose family is the channel's; and a change of an asset the channel's client registered,
   * whatever its family now.
   */
  private scoped(db: Db, scope: ChannelScope) {
    const { family } = scope;
    return db
      .selectFrom('change_log as l')
      .leftJoin('asset_registrations as r', (join) => join.onRef('r.asset_id', '=', 'l.entity_id').on('r.client_id', '=', scope.clientId))
      .where('l.seq', '>', scope.afterSeq)
      .where('l.entity_type', '=', scope.entityType)
      // A download changes the asset's counters, not the asset: no notice.
      .where('l.operation', '!=', 'count')
      .where('l.changed_at', '>=', scope.since)
      .where((eb) => {
        // Withdrawn since: its Delete is announced, not what came before it.
        const stillThere = eb.not(
          eb.exists(
            eb
              .selectFrom('change_log as d')
              .select('d.seq')
              .whereRef('d.entity_id', '=', 'l.entity_id')
              .whereRef('d.entity_type', '=', 'l.entity_type')
              .whereRef('d.seq', '>', 'l.seq')
              .where('d.operation', '=', 'delete'),
          ),
        );
        return eb.or([
          eb('l.operation', '=', 'delete'),
          family === null
            ? stillThere
            : eb.and([stillThere, eb.or([eb('l.asset_family', '=', family), eb.and([eb('l.operation', '=', 'update'), eb('r.asset_id', 'is not', null)])])]),
        ]);
      })
  }

  async insertChangeSet(trx: Db, row: Omit<ChangeSetRow, 'id' | 'confirmed_at'>): Promise<number> {
    const inserted = await trx.insertInto('asset_change_sets').values(row).returning('id').executeTakeFirstOrThrow();
    return Number(inserted.id);
  }

  async setChannelPosition(trx: Db, channelId: number, position: { confirmedSeq?: number; openChangeSetId: number | null }): Promise<void> {
    await trx
      .updateTable('asset_change_channels')
      .set({ open_change_set_id: position.openChangeSetId, ...(position.confirmedSeq !== undefined ? { confirmed_seq: position.confirmedSeq } : {}) })
      .where('id', '=', channelId)
      .execute();
  }

  async markConfirmed(trx: Db, changeSetId: number, at: string): Promise<void> {
    await trx.updateTable('asset_change_sets').set({ confirmed_at: at }).where('id', '=', changeSetId).where('confirmed_at', 'is', null).execute();
  }

  /** Confirmed sets kept past the time their notices would have been dropped anyway. */
  async forgetConfirmedBefore(trx: Db, channelId: number, before: string): Promise<void> {
    await trx
      .deleteFrom('asset_change_sets')
      .where('channel_id', '=', channelId)
      .where('confirmed_at', 'is not', null)
      .where('confirmed_at', '<', before)
      .execute();
  }

  async deleteChangeSet(trx: Db, id: number): Promise<void> {
    await trx.deleteFrom('asset_change_sets').where('id', '=', id).execute();
  }

  /** Registers the assets for the client; one already registered stays as it was. */
  async register(clientId: number, assetIds: readonly string[], at: string): Promise<void> {
    if (assetIds.length === 0) return;
    await this.db
      .insertInto('asset_registrations')
      .values(assetIds.map((asset_id) => ({ client_id: clientId, asset_id, registered_at: at })))
      .onConflict((conflict) => conflict.columns(['client_id', 'asset_id']).doNothing())
      .execute();
  }

  async registeredCount(clientId: number): Promise<number> {
    const row = await this.db
      .selectFrom('asset_registrations')
      .select((eb) => eb.fn.countAll().as('count'))
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    return Number(row?.count ?? 0);
  }
}
