import type { Insertable, Kysely, Selectable } from 'kysely';
import type { AssetSendEventsTable, Tables } from '../platform/db/tables.js';

export type AssetSendRow = Selectable<AssetSendEventsTable>;
export type NewAssetSend = Omit<Insertable<AssetSendEventsTable>, 'seq' | 'sent_at'>;

/** Rows in one statement: well below SQLite's and PostgreSQL's parameter limits. */
const INSERT_CHUNK = 500;

export class AssetSendsRepository {
  constructor(private readonly db: Kysely<Tables>) {}

  /**
   * Writes one send's rows with the times `timeOf(index, latest)` gives, where `latest` is the
   * client's newest time so far, read in the same transaction (on PostgreSQL two sends at once
   * may read the same one: the unique (client, time) refuses the second, which tries again).
   */
  async insertSend(clientId: number, sends: readonly NewAssetSend[], timeOf: (index: number, latest: string | undefined) => string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const latest = await trx
        .selectFrom('asset_send_events')
        .select((eb) => eb.fn.max('sent_at').as('sent_at'))
        .where('client_id', '=', clientId)
        .executeTakeFirst();
      const rows = sends.map((send, index) => ({ ...send, sent_at: timeOf(index, latest?.sent_at ?? undefined) }));
      for (let start = 0; start < rows.length; start += INSERT_CHUNK) {
        await trx.insertInto('asset_send_events').values(rows.slice(start, start + INSERT_CHUNK)).execute();
      }
    });
  }

  /** The client's sends after `after` (all of them without it), oldest first. */
  after(clientId: number, after: string | undefined, limit: number): Promise<AssetSendRow[]> {
    let query = this.db.selectFrom('asset_send_events').selectAll().where('client_id', '=', clientId);
    if (after !== undefined) query = query.where('sent_at', '>', after);
    return query.orderBy('sent_at').limit(limit).execute();
  }
}
