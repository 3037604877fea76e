/**
 * The spec's redirect URI rules, as pure functions:
 *
 * 1. A redirect URI is registered in advance; a request may add query parameters that are
 *    not registered. A requested URI matches a registered one when scheme, host, port and
 *    path are the same and every query parameter of the registered URI is present with the
 *    same value (RFC 9700 §4.1.3 asks for exact matching; the spec's extra parameters are the
 *    one allowed difference).
 * 2. A URI with a local host name (localhost, 127.0.0.0/8, [::1]) needs neither registration
 *    nor HTTPS: it never leaves the user's machine (RFC 8252 §7.3 lets native apps pick any
 *    port). `*.localhost` is not among them: not every resolver maps it to this machine.
 *    Because such a URI is nobody's registration, the authorization endpoint never sends the
 *    browser there before the user has signed in and seen it (see oauth.service.ts).
 * 3. Every other redirect URI uses HTTPS.
 * 4. A client held to exact redirects (the catalogue browser's own) may use only a registered
 *    URI, character for character: neither rule 1's extra parameters nor rule 2's local URIs.
 *
 * Never: a fragment (RFC 6749 §3.1.2), user information (`https://user@host/`, a phishing
 * aid), whitespace or other characters that a Location header cannot carry as they are, nor
 * a query parameter named like one the response adds (`code`, `state`, `error`, …): with
 * one planted in the URI, a client reading the first `code` would read the planted one.
 */

export type RedirectUriCheck = { ok: true; url: URL } | { ok: false; reason: string };

/** A requested redirect URI that may be used, and whether the client registered it (else it is a local one). */
export type RequestedRedirectUri = { ok: true; url: URL; registered: boolean } | { ok: false; reason: string };

/** Longer than any sensible callback, short enough to keep codes and pages small. */
export const MAX_REDIRECT_URI_LENGTH = 2000;

/** Visible ASCII only: the URI goes into a Location header exactly as given. */
const PRINTABLE_ASCII = /^[\x21-\x7e]+$/;
const USERINFO = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*@/;
/** `scheme://authority`, as RFC 3986 writes it: no `https:///x` or `https:x` for the URL parser to repair. */
const HTTP_AUTHORITY = /^https?:\/\/[^/?#]+(?:[/?]|$)/i;
/** Parameters that the authorization response puts into the redirect URI's query. */
export const RESPONSE_PARAMETERS: readonly string[] = ['code', 'state', 'error', 'error_description', 'error_uri'];

/** True for host names that always mean this machine (URL.hostname form, lower case). */
export function isLocalHostname(hostname: string): boolean {
  if (hostname === 'localhost') return true;
  if (hostname === '[::1]') return true;
  // The URL parser has already turned 127.1, 0x7f.1 and 2130706433 into dotted quads.
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** Parses a redirect URI and applies the rules that hold for every one (absolute, http(s), no fragment, no userinfo). */
export function parseRedirectUri(raw: string): RedirectUriCheck {
  if (raw.length > MAX_REDIRECT_URI_LENGTH) return { ok: false, reason: `is longer than ${MAX_REDIRECT_URI_LENGTH} characters` };
  if (!PRINTABLE_ASCII.test(raw)) return { ok: false, reason: 'must be ASCII without spaces' };
  if (raw.includes('#')) return { ok: false, reason: 'must not have a fragment' };
  if (raw.includes('\\')) return { ok: false, reason: 'must not contain a backslash' };
  if (USERINFO.test(raw)) return { ok: false, reason: 'must not carry user information' };
  if (!HTTP_AUTHORITY.test(raw)) return { ok: false, reason: 'must be an absolute https URI' };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'is not an absolute URI' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, reason: 'must use https' };
  if (!url.hostname) return { ok: false, reason: 'has no host' };
  if (url.protocol === 'http:' && !isLocalHostname(url.hostname)) {
    return { ok: false, reason: 'must use https (plain http is only for a local host name)' };
  }
  const reserved = RESPONSE_PARAMETERS.find((name) => url.searchParams.has(name));
  if (reserved) return { ok: false, reason: `must not have a query parameter named ${reserved}` };
  return { ok: true, url };
}

/** The rule for registering a URI with a client: the same as for using one. */
export function checkRegistrableRedirectUri(raw: string): RedirectUriCheck {
  return parseRedirectUri(raw);
}

/** Does `requested` match `registered` (same scheme, host, port and path; registered query parameters present)? */
export function matchesRegisteredUri(requested: URL, registered: URL): boolean {
  if (requested.protocol !== registered.protocol) return false;
  if (requested.hostname !== registered.hostname) return false;
  if (requested.port !== registered.port) return false;
  if (requested.pathname !== registered.pathname) return false;
  for (const [name, value] of registered.searchParams) {
    if (!requested.searchParams.getAll(name).includes(value)) return false;
  }
  return true;
}

/**
 * May an authorization request of a client with these registered URIs redirect to `requested`?
 * Returns the parsed URI, or the reason to show on the error page (never redirect there).
 */
export function checkRequestedRedirectUri(requested: string, registered: readonly string[], options: { exact?: boolean } = {}): RequestedRedirectUri {
  const parsed = parseRedirectUri(requested);
  if (!parsed.ok) return parsed;
  if (options.exact) {
    return registered.includes(requested) ? { ok: true, url: parsed.url, registered: true } : { ok: false, reason: 'is not the one registered for this application' };
  }
  for (const candidate of registered) {
    const registeredUri = parseRedirectUri(candidate);
    if (registeredUri.ok && matchesRegisteredUri(parsed.url, registeredUri.url)) return { ok: true, url: parsed.url, registered: true };
  }
  if (isLocalHostname(parsed.url.hostname)) return { ok: true, url: parsed.url, registered: false };
  return { ok: false, reason: 'is not registered for this application' };
}

/**
 * The redirect URI with parameters added: to its query (code, errors of response_type code)
 * or as its fragment (implicit). The URI's own query is kept byte for byte; values are
 * percent-encoded (%20 for a space, which every decoder reads, unlike '+').
 */
export function withParameters(redirectUri: string, parameters: Record<string, string | undefined>, where: 'query' | 'fragment'): string {
  const encoded = Object.entries(parameters)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
    .join('&');
  if (where === 'fragment') return `${redirectUri}#${encoded}`;
  if (!redirectUri.includes('?')) return `${redirectUri}?${encoded}`;
  return redirectUri.endsWith('?') || redirectUri.endsWith('&') ? `${redirectUri}${encoded}` : `${redirectUri}&${encoded}`;
}
