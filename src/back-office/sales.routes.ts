import type { FastifyInstance, FastifyRequest } from 'fastify';
import { usageReportCsv } from '../reporting/usage-report-formats.js';
import { USAGE_REPORT_GROUPINGS } from '../reporting/usage.service.js';
import { optionalChoice, optionalDay, queryFields } from './back-office-fields.js';
import type { BackOfficeRoutesOptions } from './back-office.routes.js';
import { salesPage } from './sales.pages.js';

/** The window a sales page opens on: the last 30 days, today included, by day. */
const DEFAULT_DAYS = 30;

/** What sold, for admins: the usage report as a page with its chart, and as the CSV `stockroom report usage` writes. */
export async function salesRoutes(app: FastifyInstance, { site, sales, now }: BackOfficeRoutesOptions): Promise<void> {
  site.addSection({ key: 'sales', label: 'Sales', href: '/admin/sales', role: 'admin', order: 40 });

  const windowOf = (request: FastifyRequest) => {
    const query = queryFields(request.query);
    const today = now().toISOString().slice(0, 10);
    const to = optionalDay(query, 'to', 'To') ?? today;
    const from = optionalDay(query, 'from', 'From') ?? new Date(Date.parse(`${to}T00:00:00Z`) - (DEFAULT_DAYS - 1) * 24 * 3600 * 1000).toISOString().slice(0, 10);
    return { from, to, by: optionalChoice(query, 'by', 'One row per', USAGE_REPORT_GROUPINGS) ?? 'day' };
  };

  site.page(app, { url: '/admin/sales', role: 'admin', title: 'What sold', section: 'sales' }, async (request, reply, { actor, frame }) => {
    const { from, to, by } = windowOf(request);
    return site.send(reply, 200, salesPage(frame, await sales.report(actor, from, to, by)));
  });

  site.page(app, { url: '/admin/sales.csv', role: 'admin', title: 'What sold', section: 'sales' }, async (request, reply, { actor }) => {
    const { from, to, by } = windowOf(request);
    const report = await sales.report(actor, from, to, by);
    return site.sendDownload(reply, { name: `sales-by-${by}-${from}-to-${to}.csv`, contentType: 'text/csv; charset=utf-8', body: usageReportCsv(report) });
  });
}
