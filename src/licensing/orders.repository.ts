import type { Kysely, Selectable } from 'kysely';
import type { OrdersTable, Tables } from '../platform/db/tables.js';

export type OrderRow = Selectable<OrdersTable>;

/** What a purchase says of its order (the download's or the extended licenses' body); every field optional. */
export interface OrderNotes {
  purchaseOrderNumber?: string | null | undefined;
  endClient?: string | null | undefined;
  licenseeName?: string | null | undefined;
  projectTitle?: string | null | undefined;
  orderedBy?: string | null | undefined;
}

const NOTE_COLUMNS = [
  ['endClient', 'end_client'],
  ['licenseeName', 'licensee_name'],
  ['projectTitle', 'project_title'],
  ['orderedBy', 'ordered_by'],
] as const;

/** A purchase named a purchase order whose notes already say otherwise; the purchase is undone. */
export class OrderNotesConflictError extends Error {
  override name = 'OrderNotesConflictError';
  constructor(
    readonly purchaseOrderNumber: string,
    readonly field: string,
    readonly recorded: string,
  ) {
    super(`purchase order ${purchaseOrderNumber} already has ${field} '${recorded}'`);
  }
}

/** Text as stored: trimmed, and blank is nothing. */
function noteText(value: string | null | undefined): string | null {
  const text = value?.trim();
  return text ? text : null;
}

/**
 * Orders: what purchases are bought under. Placed inside the purchase's own transaction (pass
 * it as `db`), so that a purchase never exists without its order, nor an order without one.
 */
export class OrdersRepository {
  constructor(private readonly db: Kysely<Tables>) {}

  /**
   * The order a purchase of `userId` belongs to. Without a purchase order number, a new order of
   * its own. With one, the user's order of that number: made by the first purchase naming it (two
   * at once make one), its notes filled in by later purchases but never changed — a note that
   * differs throws OrderNotesConflictError.
   */
  async place(userId: number, notes: OrderNotes, at: string): Promise<number> {
    const given = {
      end_client: noteText(notes.endClient),
      licensee_name: noteText(notes.licenseeName),
      project_title: noteText(notes.projectTitle),
      ordered_by: noteText(notes.orderedBy),
    };
    const number = noteText(notes.purchaseOrderNumber);
    const values = { user_id: userId, purchase_order_number: number, order_date: at, ...given };
    if (number === null) {
      return (await this.db.insertInto('orders').values(values).returning('id').executeTakeFirstOrThrow()).id;
    }
    const inserted = await this.db
      .insertInto('orders')
      .values(values)
      .onConflict((conflict) => conflict.columns(['user_id', 'purchase_order_number']).doNothing())
      .returning('id')
      .executeTakeFirst();
    if (inserted) return inserted.id;
    const existing = await this.db
      .selectFrom('orders')
      .selectAll()
      .where('user_id', '=', userId)
      .where('purchase_order_number', '=', number)
      .executeTakeFirstOrThrow();
    const missing: Partial<typeof given> = {};
    for (const [, column] of NOTE_COLUMNS) {
      const recorded = existing[column];
      const wanted = given[column];
      if (wanted === null) continue;
      if (recorded === null) missing[column] = wanted;
      else if (recorded !== wanted) throw new OrderNotesConflictError(number, column, recorded);
    }
    if (Object.keys(missing).length > 0) {
      // Only notes still empty are filled: two purchases filling the same one at once cannot both win.
      for (const [column, value] of Object.entries(missing) as Array<[keyof typeof given, string]>) {
        await this.db.updateTable('orders').set({ [column]: value }).where('id', '=', existing.id).where(column, 'is', null).execute();
      }
    }
    return existing.id;
  }

  /** The user's order with this id; undefined for none or another user's. */
  findForUser(orderId: number, userId: number): Promise<OrderRow | undefined> {
    return this.db.selectFrom('orders').selectAll().where('id', '=', orderId).where('user_id', '=', userId).executeTakeFirst();
  }

  /** The assets bought under an order (downloads that licensed them, extended licenses), each once, in the order bought. */
  async assetsOf(orderId: number): Promise<string[]> {
    const downloads = await this.db.selectFrom('downloads').select(['asset_id', 'downloaded_at as at']).where('order_id', '=', orderId).execute();
    const licenses = await this.db.selectFrom('extended_licenses').select(['asset_id', 'acquired_at as at']).where('order_id', '=', orderId).execute();
    const bought = [...downloads, ...licenses].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
    return [...new Set(bought.map((row) => row.asset_id))];
  }
}
