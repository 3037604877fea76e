import type { Insertable, Kysely, Selectable } from 'kysely';
import type { ProductsTable, Tables } from '../platform/db/tables.js';

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

  /** The stored row; undefined when the user does not exist. */
  async insert(row: NewProductRow): Promise<ProductRow | undefined> {
    try {
      return await this.db.insertInto('products').values(row).returningAll().executeTakeFirstOrThrow();
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
}
