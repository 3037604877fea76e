import type { Insertable, Kysely, Selectable } from 'kysely';
import type { DownloadLedgerTable, ProductsTable, Tables } from '../platform/db/tables.js';
import { Ledger } from './ledger.repository.js';

export type ProductRow = Selectable<ProductsTable>;
export type NewProductRow = Insertable<ProductsTable>;

/** SQLite and PostgreSQL each report a broken foreign key their own way. */
function isForeignKeyViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || code === '23503';
}

/** The products customers hold: one row per product, owned by one user. */
export class ProductsRepository {
  constructor(private readonly db: Kysely<Tables>) {}

  /**
   * Stores a product and, in the same transaction, the ledger rows of the credits it brings: its
   * own (credits_remaining) and those it adds to a team's pool. Undefined when the user does not exist.
   */
  async insert(row: NewProductRow, teamCredits?: { team: string; credits: number }): Promise<ProductRow | undefined> {
    try {
      return await this.db.transaction().execute(async (trx) => {
        const product = await trx.insertInto('products').values(row).returningAll().executeTakeFirstOrThrow();
        const ledger = new Ledger(trx);
        const grant = { user_id: product.user_id, product_id: product.id, unit: 'credit', reason: 'grant', created_at: product.created_at };
        if (product.credits_remaining) await ledger.record({ ...grant, amount: product.credits_remaining });
        if (teamCredits && teamCredits.credits > 0) {
          await ledger.addTeamCredits(teamCredits.team, teamCredits.credits, product.created_at);
          await ledger.record({ ...grant, team: teamCredits.team, amount: teamCredits.credits });
        }
        return product;
      });
    } catch (error) {
      if (isForeignKeyViolation(error)) return undefined;
      throw error;
    }
  }

  findById(id: number): Promise<ProductRow | undefined> {
    return this.db.selectFrom('products').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Every product of a user, oldest first. */
  listForUser(userId: number): Promise<ProductRow[]> {
    return this.db.selectFrom('products').selectAll().where('user_id', '=', userId).orderBy('id').execute();
  }

  /**
   * The distinct types of a user's active products that have not expired at `nowIso`.
   * expires_at is always written by toISOString(), so the text comparison is a time comparison.
   */
  async activeTypes(userId: number, nowIso: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('products')
      .select('type')
      .distinct()
      .where('user_id', '=', userId)
      .where('status', '=', 'active')
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', nowIso)]))
      .orderBy('type')
      .execute();
    return rows.map((row) => row.type);
  }

  /** True when the product existed. */
  async setStatus(id: number, status: 'active' | 'inactive'): Promise<boolean> {
    const result = await this.db.updateTable('products').set({ status }).where('id', '=', id).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** The credits in a team's pool; 0 when the team has none. */
  /** A user's ledger entries, newest first, and how many there are. */
  async ledgerOf(userId: number, offset: number, limit: number): Promise<{ rows: Array<Selectable<DownloadLedgerTable>>; total: number }> {
    const select = this.db.selectFrom('download_ledger').where('user_id', '=', userId);
    const [rows, counted] = await Promise.all([
      select.selectAll().orderBy('id', 'desc').limit(limit).offset(offset).execute(),
      select.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(counted.total) };
  }

  async teamCredits(team: string): Promise<number> {
    const row = await this.db.selectFrom('team_credits').select('credits').where('team', '=', team).executeTakeFirst();
    return row?.credits ?? 0;
  }
}
