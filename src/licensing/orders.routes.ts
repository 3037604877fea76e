import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '../platform/http/parameters.js';
import { Type } from '@sinclair/typebox';
import { ErrorBody, Nullable } from '../platform/http/schema-types.js';
import type { OrdersService } from './orders.service.js';

const S = Type.String();

const OrderDetail = Type.Object(
  {
    id: S,
    invoice_number: Type.String({ description: 'INV-<day of the order>-<its id>' }),
    order_date: Type.String({ description: 'When its first purchase was made (ISO 8601).' }),
    end_client: Nullable(S),
    notes: Type.Object({
      licensee_name: Nullable(S),
      purchase_order_number: Nullable(S),
      project_title: Nullable(S),
      ordered_by: Nullable(Type.String({ description: 'As given with a purchase; else the purchasing user’s name.' })),
    }),
    assets: Type.Array(Type.Object({ id: S }), { description: 'The assets bought under the order, each once.' }),
  },
  { description: 'OrderDetail' },
);

/** GET /orders/{id}: an order of the signed-in user. */
export async function ordersRoutes(fastify: FastifyInstance, options: { orders: OrdersService }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { orders } = options;
  app.get(
    '/orders/:id',
    {
      schema: {
        tags: ['downloads'],
        summary: 'An order of the signed-in user',
        description:
          'For API clients enabled for order metadata (403 NoAccessToOrderMetadata otherwise). Every purchase (a download that ' +
          'licensed its asset, extended licenses bought) belongs to an order: purchases naming the same purchase_order_number ' +
          'share one, and each other purchase is an order of its own. Another user\'s order, like an unknown id, is 404 OrderNotFound.',
        security: [{ ApiKey: [], Bearer: [] }],
        params: Type.Object({ id: Type.String({ description: 'The order id (purchased-assets shows it as order_id).' }) }),
        response: { 200: OrderDetail, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
      },
    },
    async (request) => {
      const { id } = request.params;
      return orders.get(await request.requireBearer(), id);
    },
  );
}
