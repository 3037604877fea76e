import { createHash } from 'node:crypto';
import { escapeHtml } from '../platform/http/escape-html.js';

/**
 * The authorization endpoint's pages: sign-in with consent, and the error page. Pure functions
 * from what to show to HTML and its headers. No script and nothing from another host: the page
 * takes a password, so the Content-Security-Policy allows only its one inline style (by hash)
 * and form posts to itself and to the application it sends the browser back to.
 */

/** The one stylesheet, inline; its hash is the only style the policy allows. */
export const PAGE_STYLE = [
  'html{-webkit-text-size-adjust:100%;text-size-adjust:100%}',
  'body{margin:0;background:#f4f4f5;color:#18181b;font:1rem/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}',
  'main{box-sizing:border-box;max-width:30rem;margin:2rem auto;padding:1.5rem;background:#fff;border:1px solid #d4d4d8;border-radius:.5rem}',
  'h1{margin:0 0 1rem;font-size:1.375rem;line-height:1.3}',
  'p{margin:0 0 1rem}',
  'h1,p{overflow-wrap:anywhere}',
  '.note{color:#3f3f46;font-size:.9375rem}',
  '.problem{padding:.75rem;border:2px solid #b91c1c;border-radius:.25rem;background:#fef2f2;color:#7f1d1d;font-weight:600}',
  'label{display:block;margin:1rem 0 .25rem;font-weight:600}',
  'input{box-sizing:border-box;width:100%;padding:.625rem;border:1px solid #71717a;border-radius:.25rem;background:#fff;color:#18181b;font:inherit}',
  'input[aria-invalid=true]{border:2px solid #b91c1c}',
  '.actions{display:flex;flex-wrap:wrap;gap:.75rem;margin-top:1.5rem}',
  'button{flex:1 1 10rem;min-height:2.75rem;padding:.625rem 1rem;border:2px solid #1d4ed8;border-radius:.25rem;background:#1d4ed8;color:#fff;font:inherit;font-weight:600;cursor:pointer}',
  'button.secondary{background:#fff;color:#1d4ed8}',
  ':focus-visible{outline:3px solid #18181b;outline-offset:2px}',
  // The site's header, as the catalogue browser's pages have it (src/web/static/web.css).
  '.top{display:flex;align-items:center;padding:.5rem 1rem;background:#18181b;color:#fff}',
  '.brand{display:inline-flex;align-items:center;gap:.5rem;min-height:2.75rem;color:#fff;font-weight:700;font-size:1.125rem;text-decoration:none}',
  '.brand img{display:block;width:1.75rem;height:1.75rem}',
  '.top :focus-visible{outline-color:#fff}',
  '@media (max-width:32rem){main{margin:0;border:0;border-radius:0;padding:1rem}}',
].join('\n');

/** CSP hash source of PAGE_STYLE (CSP3 §8.4: SHA-256 of the element's text, base64). */
export const PAGE_STYLE_HASH = `sha256-${createHash('sha256').update(PAGE_STYLE, 'utf8').digest('base64')}`;

/**
 * The CSP source that lets the sign-in form's 302 reach the application: browsers (Chromium)
 * check form-action against redirects that follow a form submission. An http(s) URI gives its
 * origin; a native app's private-use scheme (RFC 8252 §7.1) its scheme; a host that a CSP host
 * source cannot spell (an IPv6 literal) its scheme. undefined when the URI does not parse.
 */
export function formActionSource(redirectUri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(redirectUri);
  } catch {
    return undefined;
  }
  if (!/^[a-z][a-z0-9+.-]*:$/i.test(url.protocol)) return undefined;
  if ((url.protocol === 'https:' || url.protocol === 'http:') && /^[a-z0-9.-]+$/i.test(url.hostname)) return url.origin;
  return url.protocol;
}

/** The Content-Security-Policy of every page; `redirectUri` when the page's form may lead there. */
export function contentSecurityPolicy(redirectUri?: string): string {
  const redirectSource = redirectUri === undefined ? undefined : formActionSource(redirectUri);
  return [
    "default-src 'none'",
    `style-src '${PAGE_STYLE_HASH}'`,
    "img-src 'self' data:",
    `form-action 'self'${redirectSource ? ` ${redirectSource}` : ''}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** Headers of every HTML answer: not framed (RFC 9700 §4.11), not cached, no Referer leaving it. */
export function htmlPageHeaders(redirectUri?: string): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': contentSecurityPolicy(redirectUri),
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  };
}

export type SignInField = 'username' | 'password';

export interface SignInPageView {
  /** The application's display name. */
  clientName: string;
  /** The site's own client: signing in to the site, no third-party consent wording. */
  firstParty?: boolean;
  /** Where the browser goes afterwards; its host is named on the page. */
  redirectUri: string;
  /** The form's action, relative to the page (the endpoint's own path). */
  action: string;
  /** The authorization request's parameters, carried through the form unchanged. */
  parameters: ReadonlyArray<readonly [name: string, value: string]>;
  csrfToken: string;
  /** Kept after a failed attempt; the password never is. */
  username?: string;
  /** Why the last attempt failed, and which inputs it was about. */
  problem?: { message: string; fields: readonly SignInField[] };
}

const PROBLEM_ID = 'sign-in-problem';

/** The site's icon (src/web/static/favicon.svg), inline: the page's policy loads nothing but its own style. */
const SITE_ICON = 'data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAzMiAzMiI+PHJlY3Qgd2lkdGg9IjMyIiBoZWlnaHQ9IjMyIiByeD0iNiIgZmlsbD0iIzFkNGVkOCIvPjxyZWN0IHg9IjYiIHk9IjgiIHdpZHRoPSIyMCIgaGVpZ2h0PSIxNiIgcng9IjIiIGZpbGw9IiNmZmYiLz48cGF0aCBkPSJNOCAyMmw2LTcgNCA0IDMtMyAzIDZ6IiBmaWxsPSIjMWQ0ZWQ4Ii8+PGNpcmNsZSBjeD0iMjEiIGN5PSIxMi41IiByPSIyIiBmaWxsPSIjZjU5ZTBiIi8+PC9zdmc+';

/** The site's header on every page here, as the catalogue browser's pages have it: the icon and the name, linking home. */
export const SITE_HEADER = `<header class="top"><a class="brand" href="/"><img src="${SITE_ICON}" alt="" width="28" height="28">Stockroom</a></header>`;

/** The sign-in and consent page: who asks, what allowing means, the form. */
export function renderSignInPage(view: SignInPageView): string {
  const name = escapeHtml(view.clientName);
  const invalid = new Set(view.problem?.fields ?? []);
  const marks = (field: SignInField) => (invalid.has(field) ? ` aria-invalid="true" aria-describedby="${PROBLEM_ID}"` : '');
  const hidden = [...view.parameters, ['csrf_token', view.csrfToken] as const]
    .map(([field, value]) => `<input type="hidden" name="${escapeHtml(field)}" value="${escapeHtml(value)}">`)
    .join('\n');
  const introduction = view.firstParty
    ? ['<h1>Sign in to Stockroom</h1>', '<p>Sign in with your Stockroom account to license and download assets and to keep boards.</p>']
    : [
        `<h1>Sign in to allow ${name} to use your account</h1>`,
        `<p>If you allow it, ${name} gets a token that lets it act for you: search the catalogue and license assets with your account.</p>`,
        `<p class="note">Only allow applications you trust. Afterwards you go back to ${escapeHtml(destinationOf(view.redirectUri))}.</p>`,
      ];
  return page(
    view.firstParty ? 'Sign in' : `Sign in to allow ${view.clientName}`,
    [
      ...introduction,
      view.problem ? `<p id="${PROBLEM_ID}" class="problem" role="alert">${escapeHtml(view.problem.message)}</p>` : '',
      `<form method="post" action="${escapeHtml(view.action)}">`,
      hidden,
      '<label for="username">Username</label>',
      `<input id="username" name="username" type="text" autocomplete="username" autocapitalize="none" spellcheck="false" required value="${escapeHtml(view.username ?? '')}"${marks('username')}>`,
      '<label for="password">Password</label>',
      `<input id="password" name="password" type="password" autocomplete="current-password" required${marks('password')}>`,
      '<div class="actions">',
      `<button type="submit" name="decision" value="allow">${view.firstParty ? 'Sign in' : 'Sign in and allow'}</button>`,
      `<button type="submit" name="decision" value="deny" class="secondary" formnovalidate>${view.firstParty ? 'Cancel' : 'Deny'}</button>`,
      '</div>',
      '</form>',
    ],
  );
}

/** A request that cannot go on and must not be sent back to the application (RFC 6749 §4.1.2.1). */
export function renderErrorPage(message: string): string {
  return page('Sign-in cannot continue', [
    '<h1>This sign-in cannot continue</h1>',
    `<p role="alert">${escapeHtml(message)}</p>`,
    '<p class="note">Go back to the application and start again. If this keeps happening, tell the application’s developer.</p>',
  ]);
}

function page(title: string, body: readonly string[]): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)} · Stockroom</title>`,
    `<style>${PAGE_STYLE}</style>`,
    '</head>',
    '<body>',
    SITE_HEADER,
    '<main>',
    ...body.filter((line) => line !== ''),
    '</main>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** The host of an http(s) redirect URI, or the scheme of an app's own (`com.example.app`). */
function destinationOf(redirectUri: string): string {
  try {
    const url = new URL(redirectUri);
    if (url.protocol === 'https:' || url.protocol === 'http:') return url.host;
    return `the application (${url.protocol.slice(0, -1)})`;
  } catch {
    return 'the application';
  }
}
