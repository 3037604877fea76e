import type { GrantType } from './oauth.types.js';

/**
 * Which grants a client may use, as data. A client's kind decides its default grants (when
 * none are listed for it) and the grants it may ever be given:
 * - a confidential client (it keeps a secret) may use every grant; `password` only when
 *   listed explicitly (the partner applications that own the accounts, per the spec);
 * - a public client (browser or mobile, no secret) cannot authenticate, so it never gets
 *   the grants that rest on the secret alone: client_credentials and password;
 * - a sandbox client: client credentials only (spec, Grants).
 */
export type ClientKind = 'confidential' | 'public' | 'sandbox';

export interface GrantPolicy {
  readonly defaults: readonly GrantType[];
  readonly permitted: readonly GrantType[];
}

export const GRANT_POLICY: Readonly<Record<ClientKind, GrantPolicy>> = {
  confidential: {
    defaults: ['authorization_code', 'implicit', 'refresh_token', 'client_credentials'],
    permitted: ['authorization_code', 'implicit', 'refresh_token', 'client_credentials', 'password'],
  },
  public: {
    defaults: ['authorization_code', 'implicit', 'refresh_token'],
    permitted: ['authorization_code', 'implicit', 'refresh_token'],
  },
  sandbox: {
    defaults: ['client_credentials'],
    permitted: ['client_credentials'],
  },
};

/**
 * Grants that bring others with them: the spec's authorization-code and password responses
 * carry a refresh token, so a client given either may use the refresh grant, listed or not.
 */
export const IMPLIED_GRANTS: Readonly<Partial<Record<GrantType, readonly GrantType[]>>> = {
  authorization_code: ['refresh_token'],
  password: ['refresh_token'],
};

/** Grants whose token response carries a refresh token (when the client may use the refresh grant). */
export const ISSUES_REFRESH_TOKEN: Readonly<Record<GrantType, boolean>> = {
  authorization_code: true,
  implicit: false,
  password: true,
  client_credentials: false,
  refresh_token: true,
};

/** The grant an authorization request asks for, by response_type (`authorization_code` is the spec's name for `code`). */
export const RESPONSE_TYPES: Readonly<Record<string, { responseType: 'code' | 'token'; grant: GrantType }>> = {
  code: { responseType: 'code', grant: 'authorization_code' },
  authorization_code: { responseType: 'code', grant: 'authorization_code' },
  token: { responseType: 'token', grant: 'implicit' },
};

export function clientKind(client: { sandbox: boolean; confidential: boolean }): ClientKind {
  if (client.sandbox) return 'sandbox';
  return client.confidential ? 'confidential' : 'public';
}

/**
 * The grants a client of this kind may use: the listed ones with those they imply (never
 * beyond what the kind permits), or the defaults. A list is complete: it replaces the defaults.
 */
export function effectiveGrants(kind: ClientKind, listed: readonly GrantType[] | null): GrantType[] {
  const policy = GRANT_POLICY[kind];
  if (listed === null) return [...policy.defaults];
  const grants = new Set<GrantType>();
  for (const grant of listed) {
    grants.add(grant);
    for (const implied of IMPLIED_GRANTS[grant] ?? []) grants.add(implied);
  }
  return [...grants].filter((grant) => policy.permitted.includes(grant));
}

/** Why a client of this kind cannot be given these grants, or undefined when it can. */
export function grantListProblem(kind: ClientKind, grants: readonly GrantType[]): string | undefined {
  if (grants.length === 0) return 'a client needs at least one grant';
  const refused = grants.find((grant) => !GRANT_POLICY[kind].permitted.includes(grant));
  if (refused === undefined) return undefined;
  if (kind === 'sandbox') return `a sandbox client can use only the client_credentials grant, not ${refused}`;
  if (kind === 'public') return `a public client (no secret) cannot use the ${refused} grant`;
  return `a client cannot use the ${refused} grant`;
}
