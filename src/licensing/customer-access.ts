import { ApiError, REALM, tokenRequired } from '../platform/http/errors.js';
import { DOWNLOAD_TOKEN_MAX_AGE_MS } from './licensing-policy.js';

/** What licensing reads of a bearer token (the platform's BearerGrant has these and more). */
export interface CustomerGrant {
  clientId: number;
  userId: number | null;
  issuedAt: Date;
}

/**
 * 403 for a valid token that speaks for no user (client credentials): RFC 6750's
 * insufficient_scope — a new token of the same kind would not help, one for a user would.
 */
export function userTokenRequired(): ApiError {
  const description = 'This request needs a token issued for a signed-in user; a client-credentials token acts for no user';
  return new ApiError(403, 'UserTokenRequired', description, {
    'www-authenticate': `Bearer realm="${REALM}", error="insufficient_scope", error_description="${description}"`,
  });
}

/** The user a token speaks for; 403 UserTokenRequired without one. */
export function customerIdOf(grant: CustomerGrant): number {
  if (grant.userId === null) throw userTokenRequired();
  return grant.userId;
}

/** Downloads need a token issued in the last 30 days (spec, Limits); an older one is refused like an invalid one (401). */
export function requireDownloadToken(grant: CustomerGrant, now: Date): number {
  const userId = customerIdOf(grant);
  if (now.getTime() - grant.issuedAt.getTime() > DOWNLOAD_TOKEN_MAX_AGE_MS) {
    throw tokenRequired('Unauthorized', 'Downloads need an access token issued in the last 30 days; request a new token', 'invalid_token');
  }
  return userId;
}
