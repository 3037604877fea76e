import { html, type Html } from '../web/web-html.js';
import type { BackOfficeSection, StaffFrame } from './back-office-site.js';
import type { Actor } from './staff-policy.js';

/*
 * The back office's frame and the parts its pages share: pure functions from what to show to
 * HTML, with no inline script or style (the page policy allows none). Every page works without
 * script; a form is a form, a link a link.
 */

const ROLE_NAMES = { admin: 'administrator', editor: 'editor' } as const;

export function csrfField(token: string | undefined): Html {
  return html`<input type="hidden" name="csrf" value="${token ?? ''}">`;
}

/** A page's own files beyond the back office's stylesheet (another module's page: its script, its styles), each a same-origin address. */
export interface PageFiles {
  stylesheets?: readonly string[];
  /** loaded with `defer`, in this order */
  scripts?: readonly string[];
}

/** What a page served by another module needs to look and read like the rest of the back office. */
export interface StaffPages {
  /** Adds a link to the back office's header for the roles that may enter (the page still checks the role itself). */
  addSection(section: BackOfficeSection): void;
  /** A whole page: the back office's header (its sections for the person's role, the account, sign-out), stylesheet, and `main`. */
  page(spec: { actor: Actor; csrfToken: string; title: string; section?: string; path: string; files?: PageFiles }, main: Html): string;
}

/** The frame: a header with the sections the actor may enter and the account, the main content. */
export function layout(frame: StaffFrame, main: Html, files: PageFiles = {}): string {
  const nav =
    frame.sections.length === 0
      ? html``
      : html`<nav class="sections" aria-label="Back office"><ul>${frame.sections.map(
          (section) => html`<li><a href="${section.href}"${section.key === frame.section ? html` aria-current="page"` : ''}>${section.label}</a></li>`,
        )}</ul></nav>`;
  const account = frame.actor
    ? html`<div class="account"><span>${frame.actor.username} <span class="role">(${ROLE_NAMES[frame.actor.role]})</span></span>
        <a href="/">Catalogue browser</a>
        <form method="post" action="/signout">${csrfField(frame.csrfToken)}<button class="link" type="submit">Sign out</button></form></div>`
    : html`<div class="account"><a href="/">Catalogue browser</a></div>`;
  return `<!doctype html>${html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${frame.title} · Stockroom back office</title>
<link rel="icon" type="image/svg+xml" href="${frame.icon}">
<link rel="stylesheet" href="${frame.stylesheet}">
${(files.stylesheets ?? []).map((href) => html`<link rel="stylesheet" href="${href}">\n`)}${(files.scripts ?? []).map((src) => html`<script src="${src}" defer></script>\n`)}</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
<a class="brand" href="/admin">Stockroom <span>back office</span></a>
${nav}
${account}
</header>
<main id="main">
${main}
</main>
</body>
</html>`.text}`;
}

/** The back office's front page: its sections, each with what it is for. */
export function homePage(frame: StaffFrame, about: ReadonlyMap<string, string>): string {
  return layout(
    frame,
    html`<h1>Back office</h1>
    <p>Signed in as ${frame.actor?.username}. Choose what to work on.</p>
    <ul class="cards">${frame.sections.map(
      (section) => html`<li><a href="${section.href}"><strong>${section.label}</strong><span>${about.get(section.key) ?? ''}</span></a></li>`,
    )}</ul>`,
  );
}

/** A refusal or a failure, as a page of the back office with its status and its named code. */
export function errorPage(frame: StaffFrame, status: number, message: string, code: string | undefined): string {
  const title = status === 404 ? 'Not found' : status === 403 ? 'Not allowed' : status === 401 ? 'Signed out' : status >= 500 ? 'Something went wrong' : 'That did not work';
  return layout(
    { ...frame, title },
    html`<h1>${title}</h1>
    <p class="problem" role="alert">${message}</p>
    ${code ? html`<p class="code">Code: <code>${code}</code></p>` : ''}
    <p>${status === 401 ? html`<a href="/signin?return=%2Fadmin">Sign in</a>` : html`<a href="/admin">Back to the back office</a>`}</p>`,
  );
}

/** A notice at the top of a page after a form did what it said. */
export function notice(text: string | undefined): Html {
  return text ? html`<p class="notice" role="status">${text}</p>` : html``;
}

/** Links to the previous and next pages of a list, keeping its filter. */
export function pager(path: string, query: Readonly<Record<string, string | undefined>>, page: number, pageSize: number, total: number): Html {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const href = (number: number) => {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(name, value);
    params.set('page', String(number));
    return `${path}?${params.toString()}`;
  };
  return html`<nav class="pager" aria-label="Pages">
    ${page > 1 ? html`<a href="${href(page - 1)}" rel="prev">Previous</a>` : ''}
    <span>Page ${page} of ${pages} (${total} in all)</span>
    ${page < pages ? html`<a href="${href(page + 1)}" rel="next">Next</a>` : ''}
  </nav>`;
}

/** A value as JSON, indented, for the audit log's before and after (shown whole: a scrolled box would need its own keyboard stop). */
export function jsonBlock(value: unknown): Html {
  if (value === null || value === undefined) return html`<span class="none">—</span>`;
  return html`<pre>${JSON.stringify(value, null, 2)}</pre>`;
}

/** An instant as people read it, in UTC: 2025-03-04 12:30:05 UTC. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}
