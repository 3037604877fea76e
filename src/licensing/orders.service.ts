import { noAccessToOrderMetadata, orderNotFound } from './licensing.errors.js';
import { utcDateTime } from '../platform/http/date-time.js';
import { customerIdOf, type CustomerGrant } from './customer-access.js';
import type { OrdersRepository } from './orders.repository.js';
import type { CustomerDirectory } from './products.service.js';

/** Which API clients may read order metadata (oauth's clients). */
export interface OrderMetadataClients {
  byId(id: number): Promise<{ orderMetadata: boolean } | undefined>;
}

/** GET /orders/{id}: OrderDetail in the contract's names. */
export interface OrderDetail {
  id: string;
  invoice_number: string;
  order_date: string;
  end_client: string | null;
  notes: { licensee_name: string | null; purchase_order_number: string | null; project_title: string | null; ordered_by: string | null };
  assets: Array<{ id: string }>;
}

const ORDER_ID = /^[1-9][0-9]{0,9}$/;
const MAX_ORDER_ID = 2_147_483_647;

/** The invoice number of an order: derived from its id and day, so every node and every read shows the same. */
export function invoiceNumber(orderId: number, orderDate: string): string {
  return `INV-${orderDate.slice(0, 10).replaceAll('-', '')}-${String(orderId).padStart(6, '0')}`;
}

/** Orders: what a user's purchases were bought under, for clients enabled for order metadata. */
export class OrdersService {
  constructor(
    private readonly repository: OrdersRepository,
    private readonly clients: OrderMetadataClients,
    private readonly customers: CustomerDirectory,
  ) {}

  /**
   * The order with this id, when it is the signed-in user's: 403 UserTokenRequired for a token of
   * no user, 403 NoAccessToOrderMetadata for a client not enabled for it, 404 OrderNotFound for an
   * unknown id or another user's order (the two are not told apart).
   */
  async get(grant: CustomerGrant, id: string): Promise<OrderDetail> {
    const userId = customerIdOf(grant);
    const client = await this.clients.byId(grant.clientId);
    if (!client?.orderMetadata) {
      throw noAccessToOrderMetadata();
    }
    const missing = () => orderNotFound(id);
    if (!ORDER_ID.test(id) || Number(id) > MAX_ORDER_ID) throw missing();
    const order = await this.repository.findForUser(Number(id), userId);
    if (!order) throw missing();
    const assets = await this.repository.assetsOf(order.id);
    return {
      id: String(order.id),
      invoice_number: invoiceNumber(order.id, order.order_date),
      order_date: utcDateTime(order.order_date),
      end_client: order.end_client,
      notes: {
        licensee_name: order.licensee_name,
        purchase_order_number: order.purchase_order_number,
        project_title: order.project_title,
        ordered_by: order.ordered_by ?? (await this.nameOf(userId)),
      },
      assets: assets.map((assetId) => ({ id: assetId })),
    };
  }

  /** The user's full name, else the username. */
  private async nameOf(userId: number): Promise<string | null> {
    const user = await this.customers.findById(userId);
    if (!user) return null;
    const name = [user.first_name, user.last_name].filter((part) => part?.trim()).join(' ');
    return name || user.username;
  }
}
