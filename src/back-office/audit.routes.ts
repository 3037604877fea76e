import type { FastifyInstance } from 'fastify';
import { optionalDay, optionalText, pageNumber, queryFields } from './back-office-fields.js';
import type { BackOfficeRoutesOptions } from './back-office.routes.js';
import { auditPage } from './audit.pages.js';

/** The audit log's page, for admins. */
export async function auditRoutes(app: FastifyInstance, { site, auditLog }: BackOfficeRoutesOptions): Promise<void> {
  site.addSection({ key: 'audit', label: 'Audit', href: '/admin/audit', role: 'admin', order: 90 });
  site.page(app, { url: '/admin/audit', role: 'admin', title: 'Audit log', section: 'audit' }, async (request, reply, { actor, frame }) => {
    const query = queryFields(request.query);
    const filter = {
      actor: optionalText(query, 'actor', 'Who'),
      action: optionalText(query, 'action', 'Action'),
      targetKind: optionalText(query, 'target_kind', 'Target kind'),
      targetId: optionalText(query, 'target_id', 'Target id'),
      from: optionalDay(query, 'from', 'From'),
      until: optionalDay(query, 'until', 'Until'),
      page: pageNumber(query),
    };
    const [found, vocabulary] = await Promise.all([auditLog.read(actor, filter), auditLog.vocabulary(actor)]);
    return site.send(reply, 200, auditPage(frame, { filter, ...found, ...vocabulary }));
  });
}
