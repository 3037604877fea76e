import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Staff } from './staff-policy.js';
import { checked, idOf, optionalChoice, optionalText, pageNumber, queryFields, requiredText } from './back-office-fields.js';
import { invalidField, userNotFound } from './back-office.errors.js';
import type { BackOfficeRoutesOptions } from './back-office.routes.js';
import { newUserPage, teamPage, userPage, usersPage } from './customers.pages.js';

/** What a done= in a user page's address says. */
const DONE: Readonly<Record<string, string>> = {
  role: 'The role is set.',
  enabled: 'Enabled: the user can sign in again, with the same password.',
  disabled: 'Disabled: the user cannot sign in, and every token the user held is revoked.',
  granted: 'Granted.',
  revoked: 'Revoked: the product no longer counts; its downloads and ledger stay.',
};

const ROLE_CHOICES = ['none', 'editor', 'admin'] as const;

/** Users and teams, for admins: find, create, enable and disable, reset a password, set the role, grant and revoke products. */
export async function customersRoutes(app: FastifyInstance, { site, customers }: BackOfficeRoutesOptions): Promise<void> {
  site.addSection({ key: 'users', label: 'Customers', href: '/admin/users', role: 'admin', order: 30 });
  const section = { role: 'admin', section: 'users' } as const;
  const userIdFrom = (params: unknown) => {
    const id = idOf(params);
    if (id === undefined) throw userNotFound(String((params as { id?: string }).id));
    return id;
  };
  /** A user's page, with what was just done (and a password made now, shown this once). */
  const showUser = async (request: FastifyRequest, actor: Staff, id: number, extra: { done?: string | undefined; password?: string | undefined }) => {
    const frame = site.frameOf(request)!;
    const detail = await customers.detail(actor, id, pageNumber(queryFields(request.query)));
    return userPage({ ...frame, title: detail.user.username, path: `/admin/users/${id}` }, { detail, actorId: actor.id, ...extra });
  };

  site.page(app, { ...section, url: '/admin/users', title: 'Users' }, async (request, reply, { actor, frame }) => {
    const query = queryFields(request.query);
    const text = optionalText(query, 'q', 'Name, email or team');
    const role = optionalChoice(query, 'role', 'Role', ['customer', 'editor', 'admin'] as const);
    const found = await customers.search(actor, { text, role, page: pageNumber(query) });
    return site.send(reply, 200, usersPage(frame, { text, role, ...found }));
  });

  site.page(app, { ...section, url: '/admin/users/new', title: 'New user' }, async (_request, reply, { frame }) => site.send(reply, 200, newUserPage(frame)));

  site.form(app, { ...section, url: '/admin/users', title: 'New user' }, async (request, reply, { actor, form }) => {
    const role = optionalChoice(form, 'role', 'Role', ROLE_CHOICES) ?? 'none';
    const created = await customers.create(actor, {
      username: requiredText(form, 'username', 'Username'),
      first_name: optionalText(form, 'first_name', 'First name'),
      last_name: optionalText(form, 'last_name', 'Last name'),
      email: optionalText(form, 'email', 'Email'),
      team: optionalText(form, 'team', 'Team'),
      partnerCredit: checked(form, 'partner_credit'),
      role: role === 'none' ? null : role,
    });
    // The password is in this answer only.
    return site.send(reply.header('cache-control', 'no-store'), 200, await showUser(request, actor, created.user.id, { done: 'Created.', password: created.password }));
  });

  site.page(app, { ...section, url: '/admin/users/:id', title: 'User' }, async (request, reply, { actor }) => {
    const done = DONE[queryFields(request.query).done ?? ''];
    return site.send(reply, 200, await showUser(request, actor, userIdFrom(request.params), { done }));
  });

  site.form(app, { ...section, url: '/admin/users/:id/role', title: 'User' }, async (request, reply, { actor, form }) => {
    const id = userIdFrom(request.params);
    const role = optionalChoice(form, 'role', 'Role', ROLE_CHOICES);
    if (role === undefined) throw invalidField(`Role: one of ${ROLE_CHOICES.join(', ')}`);
    await customers.setRole(actor, id, role === 'none' ? null : role);
    return reply.redirect(`/admin/users/${id}?done=role`, 303);
  });

  for (const [action, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    site.form(app, { ...section, url: `/admin/users/:id/${action}`, title: 'User' }, async (request, reply, { actor }) => {
      const id = userIdFrom(request.params);
      await customers.setEnabled(actor, id, enabled);
      return reply.redirect(`/admin/users/${id}?done=${enabled ? 'enabled' : 'disabled'}`, 303);
    });
  }

  site.form(app, { ...section, url: '/admin/users/:id/password', title: 'User' }, async (request, reply, { actor }) => {
    const reset = await customers.resetPassword(actor, userIdFrom(request.params));
    return site.send(
      reply.header('cache-control', 'no-store'),
      200,
      await showUser(request, actor, reset.user.id, { done: 'A new password: every token the user held is revoked.', password: reset.password }),
    );
  });

  site.form(app, { ...section, url: '/admin/users/:id/products', title: 'User' }, async (request, reply, { actor, form }) => {
    const id = userIdFrom(request.params);
    await customers.grant(actor, id, {
      type: requiredText(form, 'type', 'Product type'),
      name: optionalText(form, 'name', 'Name'),
      credits: optionalText(form, 'credits', 'Credits'),
      team: checked(form, 'team'),
      downloads: optionalText(form, 'downloads', 'Downloads allowed'),
      generations: optionalText(form, 'generations', 'Generations allowed'),
      assetEditCost: optionalText(form, 'asset_edit_cost', 'Generations an edit uses'),
      period: optionalText(form, 'period', 'Period'),
      overage: optionalText(form, 'overage', 'Overage'),
      expires: optionalText(form, 'expires', 'Expires'),
      agreement: optionalText(form, 'agreement', 'Agreement name'),
      resolution: optionalText(form, 'resolution', 'Largest size'),
      website: optionalText(form, 'website', 'Application website', 2000),
      requireNotes: checked(form, 'require_notes'),
      requireProjectCode: checked(form, 'require_project_code'),
      projectCodes: optionalText(form, 'project_codes', 'Project codes', 2000),
    });
    return reply.redirect(`/admin/users/${id}?done=granted`, 303);
  });

  site.form(app, { ...section, url: '/admin/users/:id/products/:productId/revoke', title: 'User' }, async (request, reply, { actor }) => {
    const id = userIdFrom(request.params);
    const productId = idOf(request.params, 'productId');
    if (productId === undefined) throw invalidField('Product: a product id');
    await customers.revoke(actor, id, productId);
    return reply.redirect(`/admin/users/${id}?done=revoked`, 303);
  });

  site.page(app, { ...section, url: '/admin/teams/:team', title: 'Team' }, async (request, reply, { actor, frame }) => {
    const name = (request.params as { team: string }).team;
    const team = await customers.team(actor, name);
    return site.send(reply, 200, teamPage({ ...frame, title: `Team ${team.name}` }, team));
  });
}
