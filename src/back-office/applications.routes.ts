import type { FastifyInstance } from 'fastify';
import type { ClientChanges, NewClient } from '../oauth/clients.service.js';
import { GRANT_TYPES, type GrantType } from '../oauth/oauth.types.js';
import { checked, idOf, lines, optionalChoice, optionalWhole, queryFields, requiredText, type Fields } from './back-office-fields.js';
import { applicationNotFound } from './back-office.errors.js';
import type { BackOfficeRoutesOptions } from './back-office.routes.js';
import { applicationPage, applicationsPage, newApplicationPage } from './applications.pages.js';

/** What a done= in an application page's address says. */
const DONE: Readonly<Record<string, string>> = {
  updated: 'Saved.',
  enabled: 'Enabled: its key works again.',
  disabled: 'Disabled: its requests now answer 403 and it can get no token.',
};

/** The settings of the application form, as the service takes them. */
function settingsOf(form: Fields): ClientChanges {
  return {
    name: requiredText(form, 'name', 'Name'),
    redirectUris: lines(form, 'redirect_uris', 'Redirect URIs'),
    grantTypes: checked(form, 'grants_default') ? null : GRANT_TYPES.filter((grant) => checked(form, `grant_${grant}`)),
    queriesPerSecond: optionalWhole(form, 'queries_per_second', 'Calls per second', 1) ?? null,
    queriesPerDay: optionalWhole(form, 'queries_per_day', 'Calls per day', 1) ?? null,
    usageReporting: checked(form, 'usage_reporting'),
    orderMetadata: checked(form, 'order_metadata'),
  };
}

/** Applications (API clients), for admins: list, create, show, edit, rotate the secret, enable and disable. */
export async function applicationsRoutes(app: FastifyInstance, { site, applications, defaultLimits }: BackOfficeRoutesOptions): Promise<void> {
  site.addSection({ key: 'applications', label: 'Applications', href: '/admin/applications', role: 'admin', order: 20 });
  const section = { role: 'admin', section: 'applications' } as const;
  const idFrom = (params: unknown) => {
    const id = idOf(params);
    if (id === undefined) throw applicationNotFound(String((params as { id?: string }).id));
    return id;
  };

  site.page(app, { ...section, url: '/admin/applications', title: 'Applications' }, async (_request, reply, { actor, frame }) =>
    site.send(reply, 200, applicationsPage(frame, await applications.list(actor), defaultLimits)),
  );

  site.page(app, { ...section, url: '/admin/applications/new', title: 'New application' }, async (_request, reply, { frame }) =>
    site.send(reply, 200, newApplicationPage(frame, GRANT_TYPES)),
  );

  site.form(app, { ...section, url: '/admin/applications', title: 'New application' }, async (request, reply, { actor, form, csrfToken }) => {
    const kind = optionalChoice(form, 'kind', 'Kind', ['confidential', 'public', 'sandbox'] as const) ?? 'confidential';
    const settings = settingsOf(form);
    const input: NewClient = {
      name: settings.name!,
      sandbox: kind === 'sandbox',
      confidential: kind !== 'public',
      redirectUris: settings.redirectUris,
      ...(settings.grantTypes ? { grantTypes: settings.grantTypes as GrantType[] } : {}),
      queriesPerSecond: settings.queriesPerSecond ?? null,
      queriesPerDay: settings.queriesPerDay ?? null,
      usageReporting: settings.usageReporting ?? false,
      orderMetadata: settings.orderMetadata ?? false,
    };
    const created = await applications.create(actor, input);
    const frame = { ...site.frameOf(request)!, title: created.client.name, csrfToken, path: `/admin/applications/${created.client.id}` };
    // The key and secret are in this answer only: it is not kept by any cache, and a reload does not show them again.
    return site.send(reply.header('cache-control', 'no-store'), 200, applicationPage(frame, { client: created.client, limits: defaultLimits, grantTypes: GRANT_TYPES, done: 'Created.', apiKey: created.apiKey, apiSecret: created.apiSecret }));
  });

  site.page(app, { ...section, url: '/admin/applications/:id', title: 'Application' }, async (request, reply, { actor, frame }) => {
    const client = await applications.show(actor, idFrom(request.params));
    const done = DONE[queryFields(request.query).done ?? ''];
    return site.send(reply, 200, applicationPage({ ...frame, title: client.name }, { client, limits: defaultLimits, grantTypes: GRANT_TYPES, done }));
  });

  site.form(app, { ...section, url: '/admin/applications/:id', title: 'Application' }, async (request, reply, { actor, form }) => {
    const id = idFrom(request.params);
    await applications.update(actor, id, settingsOf(form));
    return reply.redirect(`/admin/applications/${id}?done=updated`, 303);
  });

  site.form(app, { ...section, url: '/admin/applications/:id/rotate-secret', title: 'Application' }, async (request, reply, { actor, csrfToken }) => {
    const rotated = await applications.rotateSecret(actor, idFrom(request.params));
    const frame = { ...site.frameOf(request)!, title: rotated.client.name, csrfToken, path: `/admin/applications/${rotated.client.id}` };
    return site.send(
      reply.header('cache-control', 'no-store'),
      200,
      applicationPage(frame, { client: rotated.client, limits: defaultLimits, grantTypes: GRANT_TYPES, done: 'A new secret: the old one is refused from now on.', apiSecret: rotated.apiSecret }),
    );
  });

  for (const [action, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    site.form(app, { ...section, url: `/admin/applications/:id/${action}` }, async (request, reply, { actor }) => {
      const id = idFrom(request.params);
      await applications.setEnabled(actor, id, enabled);
      return reply.redirect(`/admin/applications/${id}?done=${enabled ? 'enabled' : 'disabled'}`, 303);
    });
  }
}
