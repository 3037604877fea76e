import { PRODUCT_TYPE_NAMES, PRODUCT_TYPES } from '../catalog/product-types.js';
import { DOWNLOAD_LIMIT_DURATIONS, RESOLUTIONS } from '../licensing/licensing-policy.js';
import type { ProductRecord } from '../licensing/products.service.js';
import type { StaffRole, UserAccount } from '../oauth/users.service.js';
import { html, type Html } from '../web/web-html.js';
import type { StaffFrame } from './back-office-site.js';
import type { UserDetail } from './customers.service.js';
import { csrfField, layout, notice, pager, when } from './back-office.pages.js';

const ROLE_LABELS: Readonly<Record<string, string>> = { admin: 'Administrator', editor: 'Editor', customer: 'Customer' };

function roleOf(user: UserAccount): string {
  return ROLE_LABELS[user.role ?? 'customer']!;
}

function state(user: UserAccount): Html {
  if (user.disabledAt !== null) return html`<span class="state-disabled">disabled</span>`;
  if (user.lockedUntil !== null && user.lockedUntil > new Date().toISOString()) return html`locked until ${when(user.lockedUntil)}`;
  return html`enabled`;
}

function fullName(user: UserAccount): string {
  return [user.first_name, user.last_name].filter(Boolean).join(' ');
}

export interface UsersPageModel {
  text: string | undefined;
  role: StaffRole | 'customer' | undefined;
  users: readonly UserAccount[];
  total: number;
  page: number;
  pageSize: number;
}

/** Users, searched and paged. */
export function usersPage(frame: StaffFrame, model: UsersPageModel): string {
  return layout(
    frame,
    html`<h1>Users</h1>
    <p><a href="/admin/users/new">New user</a></p>
    <form class="filters" method="get" action="/admin/users" role="search" aria-label="Find users">
      <div class="field"><label for="users-q">Name, email or team</label><input id="users-q" name="q" value="${model.text ?? ''}"></div>
      <div class="field"><label for="users-role">Role</label><select id="users-role" name="role"><option value="">Any</option>${['customer', 'editor', 'admin'].map(
        (role) => html`<option value="${role}"${role === model.role ? html` selected` : ''}>${ROLE_LABELS[role]}</option>`,
      )}</select></div>
      <div class="actions"><button type="submit">Find</button></div>
    </form>
    ${
      model.users.length === 0
        ? html`<p>No user matches.</p>`
        : html`<table><caption>Users</caption>
      <thead><tr><th scope="col">Id</th><th scope="col">Username</th><th scope="col">Name</th><th scope="col">Role</th><th scope="col">State</th><th scope="col">Team</th><th scope="col">Email</th></tr></thead>
      <tbody>${model.users.map(
        (user) => html`<tr>
        <td>${user.id}</td>
        <td><a href="/admin/users/${user.id}">${user.username}</a></td>
        <td>${fullName(user)}</td>
        <td>${roleOf(user)}</td>
        <td>${state(user)}</td>
        <td>${user.team ? html`<a href="/admin/teams/${encodeURIComponent(user.team)}">${user.team}</a>` : ''}</td>
        <td>${user.email ?? ''}</td>
      </tr>`,
      )}</tbody></table>`
    }
    ${pager('/admin/users', { q: model.text, role: model.role }, model.page, model.pageSize, model.total)}`,
  );
}

function roleChoice(id: string, current: StaffRole | null): Html {
  return html`<select id="${id}" name="role">${[
    ['none', 'Customer (no staff role)'],
    ['editor', 'Editor (the catalogue)'],
    ['admin', 'Administrator (everything)'],
  ].map(([value, label]) => html`<option value="${value}"${(current ?? 'none') === value ? html` selected` : ''}>${label}</option>`)}</select>`;
}

export function newUserPage(frame: StaffFrame): string {
  return layout(
    frame,
    html`<h1>New user</h1>
    <form class="form-grid" method="post" action="/admin/users">${csrfField(frame.csrfToken)}
      <div class="field"><label for="user-username">Username</label><input id="user-username" name="username" required maxlength="200" autocomplete="off"></div>
      <div class="field"><label for="user-first">First name</label><input id="user-first" name="first_name" maxlength="200"></div>
      <div class="field"><label for="user-last">Last name</label><input id="user-last" name="last_name" maxlength="200"></div>
      <div class="field"><label for="user-email">Email</label><input id="user-email" name="email" type="email" maxlength="200"></div>
      <div class="field"><label for="user-team">Team</label><input id="user-team" name="team" maxlength="200"></div>
      <div class="field check"><input type="checkbox" id="user-partner" name="partner_credit"><label for="user-partner">A user of a partner site who holds credits</label></div>
      <div class="field"><label for="user-role">Role</label>${roleChoice('user-role', null)}</div>
      <p class="hint">The server makes the password and shows it once, on the next page.</p>
      <div class="actions"><button type="submit">Create</button> <a href="/admin/users">Cancel</a></div>
    </form>`,
  );
}

function balances(record: ProductRecord): string {
  const parts = [
    record.credits_remaining !== null ? `${record.credits_remaining} credits` : '',
    record.team_credits !== null ? `${record.team_credits} team credits` : '',
    record.downloads_remaining !== null
      ? `${record.downloads_remaining} of ${record.download_limit} ${record.type === 'aigen' ? 'generations' : 'downloads'} left${record.download_limit_duration ? ` this ${record.download_limit_duration}` : ''}`
      : '',
    record.overage.limit !== null ? `overage ${record.overage.remaining ?? 0} of ${record.overage.limit} left` : '',
  ].filter(Boolean);
  return parts.length > 0 ? parts.join('; ') : 'unlimited';
}

function grantForm(frame: StaffFrame, userId: number): Html {
  const field = (name: string, label: string, hint?: string) =>
    html`<div class="field"><label for="grant-${name}">${label}</label><input id="grant-${name}" name="${name}"${hint ? html` aria-describedby="grant-${name}-hint"` : ''}>${hint ? html`<span class="hint" id="grant-${name}-hint">${hint}</span>` : ''}</div>`;
  const select = (name: string, label: string, values: readonly string[], none: string) =>
    html`<div class="field"><label for="grant-${name}">${label}</label><select id="grant-${name}" name="${name}"><option value="">${none}</option>${values.map((value) => html`<option value="${value}">${value}</option>`)}</select></div>`;
  return html`<form class="form-grid" method="post" action="/admin/users/${userId}/products">${csrfField(frame.csrfToken)}
    <div class="field"><label for="grant-type">Product type</label><select id="grant-type" name="type">${PRODUCT_TYPES.map((type) => html`<option value="${type}">${PRODUCT_TYPE_NAMES[type]} (${type})</option>`)}</select></div>
    ${field('name', 'Name', 'Blank: the type’s own name.')}
    ${field('credits', 'Credits', 'Credit packs (creditpack).')}
    <div class="field check"><input type="checkbox" id="grant-team" name="team"><label for="grant-team">The credits go to the user’s team</label></div>
    ${field('downloads', 'Downloads allowed', 'Per period, or in all without one.')}
    ${field('generations', 'Generations allowed', 'AI generation products (aigen).')}
    ${field('asset_edit_cost', 'Generations an edit of a catalogue asset uses', 'aigen; blank: 1, 0: free.')}
    ${select('period', 'Period', DOWNLOAD_LIMIT_DURATIONS, 'No period')}
    ${field('overage', 'Overage', 'Downloads allowed beyond the limit in a period.')}
    <div class="field"><label for="grant-expires">Expires</label><input id="grant-expires" name="expires" type="date" aria-describedby="grant-expires-hint"><span class="hint" id="grant-expires-hint">The end of that day, UTC; blank: never.</span></div>
    ${field('agreement', 'Agreement name')}
    ${select('resolution', 'Largest size', RESOLUTIONS, 'Any')}
    ${field('website', 'Application website')}
    <div class="field check"><input type="checkbox" id="grant-notes" name="require_notes"><label for="grant-notes">Downloads must carry notes</label></div>
    <div class="field check"><input type="checkbox" id="grant-project" name="require_project_code"><label for="grant-project">Downloads must carry a project code</label></div>
    ${field('project_codes', 'Project codes', 'Comma-separated; blank: any.')}
    <div class="actions"><button type="submit">Grant</button></div>
  </form>`;
}

export interface UserPageModel {
  detail: UserDetail;
  actorId: number;
  done?: string | undefined;
  /** a password made now, shown on this page only */
  password?: string | undefined;
}

export function userPage(frame: StaffFrame, model: UserPageModel): string {
  const { user, products, ledger, teamCredits } = model.detail;
  const self = user.id === model.actorId;
  return layout(
    frame,
    html`<p><a href="/admin/users">All users</a></p>
    <h1>${user.username}</h1>
    ${notice(model.done)}
    ${
      model.password === undefined
        ? ''
        : html`<section class="secret" aria-labelledby="password-heading"><h2 id="password-heading">Copy the password now</h2>
        <p>This is the only time it is shown: give it to ${user.username} in person or over a channel you trust.</p>
        <p><code id="new-password">${model.password}</code></p></section>`
    }
    <dl class="facts">
      <dt>Id</dt><dd>${user.id}</dd>
      <dt>Name</dt><dd>${fullName(user) || '—'}</dd>
      <dt>Email</dt><dd>${user.email ?? '—'}</dd>
      <dt>Role</dt><dd>${roleOf(user)}</dd>
      <dt>State</dt><dd>${state(user)}</dd>
      <dt>Team</dt><dd>${user.team ? html`<a href="/admin/teams/${encodeURIComponent(user.team)}">${user.team}</a> (${teamCredits ?? 0} team credits)` : '—'}</dd>
      <dt>Partner credit</dt><dd>${user.partnerCredit ? 'yes' : 'no'}</dd>
      <dt>Created</dt><dd>${when(user.createdAt)}</dd>
    </dl>
    <div class="actions">
      <form class="inline" method="post" action="/admin/users/${user.id}/role">${csrfField(frame.csrfToken)}
        <label for="role-choice">Role</label>${roleChoice('role-choice', user.role)}<button type="submit" class="secondary">Set the role</button></form>
      <form method="post" action="/admin/users/${user.id}/password">${csrfField(frame.csrfToken)}<button type="submit" class="secondary">Reset the password</button></form>
      ${self ? '' : html`<form method="post" action="/admin/users/${user.id}/${user.disabledAt === null ? 'disable' : 'enable'}">${csrfField(frame.csrfToken)}<button type="submit" class="${user.disabledAt === null ? 'danger' : 'secondary'}">${user.disabledAt === null ? 'Disable' : 'Enable'}</button></form>`}
    </div>
    <h2>Products</h2>
    ${
      products.length === 0
        ? html`<p>${user.username} holds no product.</p>`
        : html`<table><caption>Products and their balances</caption>
      <thead><tr><th scope="col">Id</th><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Status</th><th scope="col">Balance</th><th scope="col">Expires</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
      <tbody>${products.map(
        (record) => html`<tr>
        <td>${record.id}</td><td>${record.name}</td><td>${record.type}</td><td>${record.status}</td><td>${balances(record)}</td><td>${record.expiration_utc_date ?? 'never'}</td>
        <td>${record.status === 'active' ? html`<form method="post" action="/admin/users/${user.id}/products/${record.id}/revoke">${csrfField(frame.csrfToken)}<button type="submit" class="danger" aria-label="Revoke product ${record.id}, ${record.name}">Revoke</button></form>` : ''}</td>
      </tr>`,
      )}</tbody></table>`
    }
    <h2>Grant a product</h2>
    ${grantForm(frame, user.id)}
    <h2>Ledger</h2>
    ${
      ledger.entries.length === 0
        ? html`<p>Nothing recorded yet.</p>`
        : html`<table><caption>Licences, downloads and grants, newest first</caption>
      <thead><tr><th scope="col">When</th><th scope="col">Reason</th><th scope="col">Unit</th><th scope="col">Amount</th><th scope="col">Product</th><th scope="col">Download</th><th scope="col">Team</th></tr></thead>
      <tbody>${ledger.entries.map(
        (entry) => html`<tr><td>${when(entry.at)}</td><td>${entry.reason}</td><td>${entry.unit}</td><td>${entry.amount > 0 ? `+${entry.amount}` : entry.amount}</td><td>${entry.productId ?? ''}</td><td>${entry.downloadId ?? ''}</td><td>${entry.team ?? ''}</td></tr>`,
      )}</tbody></table>
      ${pager(`/admin/users/${user.id}`, {}, ledger.page, ledger.pageSize, ledger.total)}`
    }`,
  );
}

export function teamPage(frame: StaffFrame, team: { name: string; members: readonly UserAccount[]; credits: number }): string {
  return layout(
    frame,
    html`<p><a href="/admin/users">All users</a></p>
    <h1>Team ${team.name}</h1>
    <p>${team.credits} team credits, shared by its members.</p>
    <table><caption>Members</caption>
      <thead><tr><th scope="col">Id</th><th scope="col">Username</th><th scope="col">Name</th><th scope="col">Role</th><th scope="col">State</th></tr></thead>
      <tbody>${team.members.map(
        (user) => html`<tr><td>${user.id}</td><td><a href="/admin/users/${user.id}">${user.username}</a></td><td>${fullName(user)}</td><td>${roleOf(user)}</td><td>${state(user)}</td></tr>`,
      )}</tbody></table>`,
  );
}
