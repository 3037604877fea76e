import { unauthorizedToken, userTokenRequired as tokenForUserRequired, type ApiError } from '../platform/http/errors.js';
import { DOWNLOAD_TOKEN_MAX_AGE_MS } from './licensing-policy.js';

/** What licensing reads of a bearer token (the platform's BearerGrant has these and more). */
export interface CustomerGrant {
  clientId: number;
  userId: number | null;
  issuedAt: Date;
}

/** 403 for a valid token that speaks for no user (client credentials): one for a user would do. */
export function userTokenRequired(): ApiError {
  return tokenForUserRequired('This request needs a token issued for a signed-in user; a client-credentials token acts for no user');
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
    throw unauthorizedToken('Downloads need an access token issued in the last 30 days; request a new token');
  }
  return userId;
}
