import { OAuthError } from './oauth.types.js';

/*
 * The RFC 6749 refusals as named classes (each carries its code and status), so that a
 * grant reads `throw new InvalidGrant('…')`. All are OAuthErrors: the HTTP layer needs
 * to know only that class.
 */

/** §5.2: a missing, repeated or malformed parameter, or more than one way of authenticating. */
export class InvalidRequest extends OAuthError {
  override name = 'InvalidRequest';
  constructor(description: string) {
    super('invalid_request', description, 400);
  }
}

/** §5.2: unknown or disabled client, or failed client authentication; answered 401. */
export class InvalidClient extends OAuthError {
  override name = 'InvalidClient';
  constructor(description: string) {
    super('invalid_client', description, 401);
  }
}

/** §5.2: a bad, expired, revoked or replayed code or refresh token, or wrong end-user credentials. */
export class InvalidGrant extends OAuthError {
  override name = 'InvalidGrant';
  constructor(description: string, status = 400, retryAfterSeconds?: number) {
    super('invalid_grant', description, status, retryAfterSeconds);
  }
}

/** §5.2: the client is not allowed this grant. */
export class UnauthorizedClient extends OAuthError {
  override name = 'UnauthorizedClient';
  constructor(description: string) {
    super('unauthorized_client', description, 400);
  }
}

/** §5.2: a grant_type this server does not serve at the token endpoint. */
export class UnsupportedGrantType extends OAuthError {
  override name = 'UnsupportedGrantType';
  constructor(description: string) {
    super('unsupported_grant_type', description, 400);
  }
}

/** Registration refused: bad redirect URIs, grants the client's kind may not have, no name. */
export class InvalidClientMetadata extends Error {
  override name = 'InvalidClientMetadata';
}
