/*
 * What every page of the catalogue browser is sent with: a strict content security policy (no
 * inline code; images, media and a download's redirect only from this site and the public
 * URL), no framing, no referrer, no caching.
 */

/** The Content-Security-Policy of the pages; `publicUrl` is where display and delivery URIs live. */
export function contentSecurityPolicy(publicUrl: string): string {
  const publicOrigin = new URL(publicUrl).origin;
  return [
    "default-src 'none'",
    "style-src 'self'",
    "script-src 'self'",
    // The search field's suggestions are fetched from this site.
    "connect-src 'self'",
    `img-src 'self' ${publicOrigin} data:`,
    `media-src 'self' ${publicOrigin}`,
    // A download's form is answered with a redirect to its delivery URL, which form-action governs too.
    `form-action 'self' ${publicOrigin}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** The headers of a page under the given policy. */
export function pageHeaders(policy: string): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': policy,
    'x-frame-options': 'DENY',
    // Share and invitation links carry their token in the URL: no page hands its address on.
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    vary: 'Accept-Language, Cookie',
  };
}
