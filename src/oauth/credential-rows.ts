import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Tables } from '../platform/db/tables.js';

/** The tables of issued credentials, each kept by the hash of its secret (never the secret), and that hash's column. */
interface HashColumnOf {
  access_tokens: 'token_hash';
  refresh_tokens: 'token_hash';
  authorization_codes: 'code_hash';
}
type CredentialTable = keyof HashColumnOf;

/** What every credential table is asked alike: store one issued, find one presented by its hash. */
export class CredentialRows<T extends CredentialTable> {
  constructor(
    protected readonly db: Kysely<Tables>,
    private readonly table: T,
    private readonly hashColumn: HashColumnOf[T],
  ) {}

  async insert(row: Selectable<Tables[T]>): Promise<void> {
    // Widened to the union of the tables: Kysely cannot follow a generic table name.
    const table: CredentialTable = this.table;
    await this.db.insertInto(table).values(row as Insertable<Tables[CredentialTable]>).execute();
  }

  async findByHash(hash: string): Promise<Selectable<Tables[T]> | undefined> {
    const table: CredentialTable = this.table;
    const column: HashColumnOf[CredentialTable] = this.hashColumn;
    const row = await this.db.selectFrom(table).selectAll().where(column, '=', hash).executeTakeFirst();
    return row as Selectable<Tables[T]> | undefined;
  }
}
