import type { Insertable, Kysely, Selectable } from 'kysely';
import type { ApiClientsTable, Tables } from '../platform/db/tables.js';

export type ApiClientRow = Selectable<ApiClientsTable>;

export class ClientsRepository {
  constructor(private readonly db: Kysely<Tables>) {}

  async insert(values: Insertable<ApiClientsTable>): Promise<ApiClientRow> {
    return this.db.insertInto('api_clients').values(values).returningAll().executeTakeFirstOrThrow();
  }

  findByKeyHash(keyHash: string): Promise<ApiClientRow | undefined> {
    return this.db.selectFrom('api_clients').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();
  }

  findById(id: number): Promise<ApiClientRow | undefined> {
    return this.db.selectFrom('api_clients').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Disables or enables the client with this key hash or id; false when there is none. */
  async setDisabled(client: { keyHash: string } | { id: number }, disabled: boolean): Promise<boolean> {
    const result = await this.db
      .updateTable('api_clients')
      .set({ disabled: disabled ? 1 : 0 })
      .where((eb) => ('id' in client ? eb('id', '=', client.id) : eb('key_hash', '=', client.keyHash)))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Sets the permission columns given (none: reads the row); the row as it now is, or undefined when there is none. */
  async setPermissions(
    client: { keyHash: string } | { id: number },
    changes: { usage_reporting?: number; order_metadata?: number },
  ): Promise<ApiClientRow | undefined> {
    if (Object.keys(changes).length > 0) {
      await this.db
        .updateTable('api_clients')
        .set(changes)
        .where((eb) => ('id' in client ? eb('id', '=', client.id) : eb('key_hash', '=', client.keyHash)))
        .execute();
    }
    return this.db
      .selectFrom('api_clients')
      .selectAll()
      .where((eb) => ('id' in client ? eb('id', '=', client.id) : eb('key_hash', '=', client.keyHash)))
      .executeTakeFirst();
  }

  /** Sets the columns given; the row as it now is, or undefined when there is none. */
  async update(
    id: number,
    changes: {
      name?: string;
      secret_hash?: string;
      redirect_uris?: string;
      grant_types?: string | null;
      queries_per_second?: number | null;
      queries_per_day?: number | null;
      usage_reporting?: number;
      order_metadata?: number;
    },
  ): Promise<ApiClientRow | undefined> {
    if (Object.keys(changes).length > 0) await this.db.updateTable('api_clients').set(changes).where('id', '=', id).execute();
    return this.findById(id);
  }

  list(): Promise<ApiClientRow[]> {
    return this.db.selectFrom('api_clients').selectAll().orderBy('id').execute();
  }
}
