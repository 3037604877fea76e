import { html } from '../web/web-html.js';
import type { StaffFrame } from './back-office-site.js';
import type { AuditEntry, AuditFilter } from './audit-log.service.js';
import { jsonBlock, layout, pager, when } from './back-office.pages.js';

export interface AuditPageModel {
  filter: AuditFilter;
  entries: readonly AuditEntry[];
  total: number;
  pageSize: number;
  actions: readonly string[];
  targetKinds: readonly string[];
}

/** The audit log: a filter (actor, action, target, period) and a page of entries, newest first. */
export function auditPage(frame: StaffFrame, model: AuditPageModel): string {
  const { filter } = model;
  const query = { actor: filter.actor, action: filter.action, target_kind: filter.targetKind, target_id: filter.targetId, from: filter.from, until: filter.until };
  const choice = (name: string, label: string, values: readonly string[], current: string | undefined) =>
    html`<div class="field"><label for="audit-${name}">${label}</label><select id="audit-${name}" name="${name}"><option value="">Any</option>${values.map(
      (value) => html`<option value="${value}"${value === current ? html` selected` : ''}>${value}</option>`,
    )}</select></div>`;
  return layout(
    frame,
    html`<h1>Audit log</h1>
    <form class="filters" method="get" action="/admin/audit" role="search" aria-label="Filter the audit log">
      <div class="field"><label for="audit-actor">Who (username or id)</label><input id="audit-actor" name="actor" value="${filter.actor ?? ''}"></div>
      ${choice('action', 'Action', model.actions, filter.action)}
      ${choice('target_kind', 'Target kind', model.targetKinds, filter.targetKind)}
      <div class="field"><label for="audit-target">Target id</label><input id="audit-target" name="target_id" value="${filter.targetId ?? ''}"></div>
      <div class="field"><label for="audit-from">From (day)</label><input id="audit-from" name="from" type="date" value="${filter.from ?? ''}"></div>
      <div class="field"><label for="audit-until">Until (day)</label><input id="audit-until" name="until" type="date" value="${filter.until ?? ''}"></div>
      <div class="actions"><button type="submit">Filter</button> <a href="/admin/audit">Clear</a></div>
    </form>
    ${
      model.entries.length === 0
        ? html`<p>No action matches.</p>`
        : html`<table class="audit">
      <caption>Actions, newest first</caption>
      <thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">Action</th><th scope="col">Target</th><th scope="col">Before</th><th scope="col">After</th></tr></thead>
      <tbody>${model.entries.map(
        (entry) => html`<tr>
        <td>${when(entry.at)}</td>
        <td>${entry.actor.username} <span class="muted">#${entry.actor.id}</span></td>
        <td><code>${entry.action}</code></td>
        <td>${entry.target.kind} ${entry.target.id}</td>
        <td>${jsonBlock(entry.before)}</td>
        <td>${jsonBlock(entry.after)}</td>
      </tr>`,
      )}</tbody></table>`
    }
    ${pager('/admin/audit', query, filter.page, model.pageSize, model.total)}`,
  );
}
