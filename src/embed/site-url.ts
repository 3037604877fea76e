/**
 * Where the routes of a site URL (`{embed_url}`, `{short_url}`) are served, and for which host.
 *
 * Routes are registered at the root, whatever path a proxy puts in front of the public URL (the
 * API is at /v3 here, at `${publicUrl}/v3` outside), so a site URL under the public URL is served at
 * its path below it, as the auth URL is. A site URL on a host of its own is answered only for that
 * host (read from the Host header, or X-Forwarded-Host from a trusted proxy): the API's host keeps
 * its own paths.
 */
export interface SiteRoutes {
  /** The path the routes hang under: '' or `/a/b`. */
  readonly prefix: string;
  /** The only host (as URL.host spells it) these routes answer; undefined: the API's host, which they share. */
  readonly host: string | undefined;
}

export function siteRoutes(siteUrl: string, publicUrl: string): SiteRoutes {
  const site = new URL(siteUrl);
  const api = new URL(publicUrl);
  const apiPath = api.pathname.replace(/\/+$/, '');
  let prefix = site.pathname.replace(/\/+$/, '');
  if (site.host === api.host && apiPath !== '' && (prefix === apiPath || prefix.startsWith(`${apiPath}/`))) {
    prefix = prefix.slice(apiPath.length);
  }
  if (!/^(\/[A-Za-z0-9._~-]+)*$/.test(prefix)) {
    throw new Error(`A site URL's path must be plain segments (letters, digits, . _ ~ -), got '${site.pathname}'`);
  }
  return { prefix, host: site.host === api.host ? undefined : site.host };
}

/** A request's host as URL.host spells it (lower case, no default port); undefined when it cannot be read. */
export function hostOf(protocol: string, host: string): string | undefined {
  try {
    return new URL(`${protocol}://${host}`).host;
  } catch {
    return undefined;
  }
}
