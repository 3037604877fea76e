import type { ClientListing } from '../oauth/clients.service.js';
import type { GrantType } from '../oauth/oauth.types.js';
import { html, type Html } from '../web/web-html.js';
import type { StaffFrame } from './back-office-site.js';
import { csrfField, layout, notice, when } from './back-office.pages.js';

const KIND_NAMES = { confidential: 'Confidential (server, keeps a secret)', public: 'Public (browser or mobile, no secret)', sandbox: 'Sandbox (client credentials only)' } as const;

/** The configured limits a client without its own uses. */
export interface DefaultLimits {
  perSecond: number;
  perDay: number;
}

function limit(own: number | null, fallback: number, unit: string): string {
  return own === null ? `${fallback} a ${unit} (default)` : `${own} a ${unit}`;
}

function flags(client: ClientListing): string {
  const words = [client.usageReporting ? 'usage reporting' : '', client.orderMetadata ? 'order metadata' : ''].filter(Boolean);
  return words.length > 0 ? words.join(', ') : 'none';
}

/** Every application, with what tells them apart. */
export function applicationsPage(frame: StaffFrame, clients: readonly ClientListing[], limits: DefaultLimits): string {
  return layout(
    frame,
    html`<h1>Applications</h1>
    <p><a href="/admin/applications/new">New application</a></p>
    <table>
      <caption>API clients</caption>
      <thead><tr><th scope="col">Id</th><th scope="col">Name</th><th scope="col">Kind</th><th scope="col">State</th><th scope="col">Key</th><th scope="col">Grants</th><th scope="col">Limits</th><th scope="col">Enabled for</th></tr></thead>
      <tbody>${clients.map(
        (client) => html`<tr>
        <td>${client.id}</td>
        <td><a href="/admin/applications/${client.id}">${client.name}</a></td>
        <td>${client.kind}</td>
        <td>${client.disabled ? html`<span class="state-disabled">disabled</span>` : 'enabled'}</td>
        <td><code>…${client.keyHint}</code></td>
        <td>${client.grantTypes.join(', ')}</td>
        <td>${limit(client.queriesPerSecond, limits.perSecond, 'second')}; ${limit(client.queriesPerDay, limits.perDay, 'day')}</td>
        <td>${flags(client)}</td>
      </tr>`,
      )}</tbody>
    </table>`,
  );
}

/** The fields an application is edited with (its kind only at creation). */
function settingsFields(client: ClientListing | undefined, grantTypes: readonly GrantType[]): Html {
  const listed = client ? new Set(client.grantTypes) : new Set<GrantType>();
  return html`
    <div class="field"><label for="app-name">Name</label><input id="app-name" name="name" required maxlength="200" value="${client?.name ?? ''}"></div>
    <div class="field"><label for="app-redirects">Redirect URIs</label>
      <textarea id="app-redirects" name="redirect_uris" aria-describedby="app-redirects-hint">${client?.redirectUris.join('\n') ?? ''}</textarea>
      <span class="hint" id="app-redirects-hint">One a line: https, or any local http URI (which needs no registration).</span></div>
    <fieldset><legend>Grants</legend>
      <div class="field check"><input type="checkbox" id="app-grants-default" name="grants_default"${client ? '' : html` checked`}><label for="app-grants-default">The defaults of its kind (the grants below are then ignored)</label></div>
      ${grantTypes.map(
        (grant) => html`<div class="field check"><input type="checkbox" id="app-grant-${grant}" name="grant_${grant}"${listed.has(grant) ? html` checked` : ''}><label for="app-grant-${grant}">${grant}</label></div>`,
      )}
      <span class="hint">authorization_code and password bring refresh_token with them.</span>
    </fieldset>
    <div class="field"><label for="app-qps">Calls per second</label><input id="app-qps" name="queries_per_second" inputmode="numeric" pattern="[0-9]*" value="${client?.queriesPerSecond ?? ''}" aria-describedby="app-limit-hint"></div>
    <div class="field"><label for="app-per-day">Calls per day</label><input id="app-per-day" name="queries_per_day" inputmode="numeric" pattern="[0-9]*" value="${client?.queriesPerDay ?? ''}" aria-describedby="app-limit-hint">
      <span class="hint" id="app-limit-hint">Blank: the server's default.</span></div>
    <div class="field check"><input type="checkbox" id="app-usage" name="usage_reporting"${client?.usageReporting ? html` checked` : ''}><label for="app-usage">May report usage of licensed assets</label></div>
    <div class="field check"><input type="checkbox" id="app-orders" name="order_metadata"${client?.orderMetadata ? html` checked` : ''}><label for="app-orders">May read order metadata</label></div>`;
}

export function newApplicationPage(frame: StaffFrame, grantTypes: readonly GrantType[]): string {
  return layout(
    frame,
    html`<h1>New application</h1>
    <form class="form-grid" method="post" action="/admin/applications">${csrfField(frame.csrfToken)}
      <fieldset><legend>Kind</legend>${(Object.keys(KIND_NAMES) as Array<keyof typeof KIND_NAMES>).map(
        (kind) => html`<div class="field check"><input type="radio" id="app-kind-${kind}" name="kind" value="${kind}"${kind === 'confidential' ? html` checked` : ''}><label for="app-kind-${kind}">${KIND_NAMES[kind]}</label></div>`,
      )}</fieldset>
      ${settingsFields(undefined, grantTypes)}
      <div class="actions"><button type="submit">Create</button> <a href="/admin/applications">Cancel</a></div>
    </form>`,
  );
}

/** The key and secret of a new application, or a new secret: shown on this page only. */
function credentials(apiKey: string | undefined, apiSecret: string | undefined): Html {
  if (apiKey === undefined && apiSecret === undefined) return html``;
  return html`<section class="secret" aria-labelledby="secret-heading">
    <h2 id="secret-heading">Copy ${apiKey !== undefined && apiSecret !== undefined ? 'them' : 'it'} now</h2>
    <p>This is the only time ${apiKey !== undefined && apiSecret !== undefined ? 'they are' : 'it is'} shown: only a hash is stored.</p>
    <dl class="facts">
      ${apiKey !== undefined ? html`<dt>API key</dt><dd><code id="api-key">${apiKey}</code></dd>` : ''}
      ${apiSecret !== undefined ? html`<dt>API secret</dt><dd><code id="api-secret">${apiSecret}</code></dd>` : ''}
    </dl>
  </section>`;
}

export interface ApplicationPageModel {
  client: ClientListing;
  limits: DefaultLimits;
  grantTypes: readonly GrantType[];
  done?: string | undefined;
  apiKey?: string | undefined;
  apiSecret?: string | undefined;
}

export function applicationPage(frame: StaffFrame, model: ApplicationPageModel): string {
  const { client } = model;
  return layout(
    frame,
    html`<p><a href="/admin/applications">All applications</a></p>
    <h1>${client.name}</h1>
    ${notice(model.done)}
    ${credentials(model.apiKey, model.apiSecret)}
    <dl class="facts">
      <dt>Id</dt><dd>${client.id}</dd>
      <dt>Kind</dt><dd>${KIND_NAMES[client.kind]}</dd>
      <dt>State</dt><dd>${client.disabled ? html`<span class="state-disabled">disabled</span>` : 'enabled'}</dd>
      <dt>API key</dt><dd><code>…${client.keyHint}</code></dd>
      <dt>Grants</dt><dd>${client.grantTypes.join(', ')}</dd>
      <dt>Limits</dt><dd>${limit(client.queriesPerSecond, model.limits.perSecond, 'second')}; ${limit(client.queriesPerDay, model.limits.perDay, 'day')}</dd>
      <dt>Enabled for</dt><dd>${flags(client)}</dd>
      <dt>Created</dt><dd>${when(client.createdAt)}</dd>
    </dl>
    <div class="actions">
      ${client.confidential
        ? html`<form method="post" action="/admin/applications/${client.id}/rotate-secret">${csrfField(frame.csrfToken)}<button type="submit" class="secondary">Rotate the secret</button></form>`
        : ''}
      <form method="post" action="/admin/applications/${client.id}/${client.disabled ? 'enable' : 'disable'}">${csrfField(frame.csrfToken)}<button type="submit" class="${client.disabled ? 'secondary' : 'danger'}">${client.disabled ? 'Enable' : 'Disable'}</button></form>
    </div>
    <h2>Settings</h2>
    <form class="form-grid" method="post" action="/admin/applications/${client.id}">${csrfField(frame.csrfToken)}
      ${settingsFields(client, model.grantTypes)}
      <div class="actions"><button type="submit">Save</button></div>
    </form>`,
  );
}
