/**
 * One error hierarchy for the API. Every error carries its HTTP status and the
 * spec's named code; the error handler turns it into `{ message, code }`.
 */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

/** 400 for a parameter whose value is not allowed; the message names the parameter. */
export function invalidParameter(parameter: string, detail: string): ApiError {
  return new ApiError(400, 'InvalidParameterValue', `Invalid value for parameter '${parameter}': ${detail}`);
}

export function badRequest(code: string, message: string): ApiError {
  return new ApiError(400, code, message);
}

export function notFound(code: string, message: string): ApiError {
  return new ApiError(404, code, message);
}

export const REALM = 'Stockroom';

/**
 * 401 with the Bearer challenge of RFC 6750 (§3, §3.1). A request that sent no token gets the
 * bare challenge, without an error attribute; a malformed Authorization header is
 * invalid_request; a token that is unknown, expired, revoked or another client's is invalid_token.
 */
export function tokenRequired(
  code: 'AuthorizationTokenRequired' | 'Unauthorized',
  description: string,
  error: 'invalid_request' | 'invalid_token' | undefined = code === 'Unauthorized' ? 'invalid_token' : undefined,
): ApiError {
  const challenge =
    error === undefined
      ? `Bearer realm="${REALM}"`
      : `Bearer realm="${REALM}", error="${error}", error_description="${description.replace(/["\\]/g, "'")}"`;
  return new ApiError(401, code, description, { 'www-authenticate': challenge });
}

/**
 * 403 for a missing, unknown or disabled API key: the spec's fixed message, with what it was in
 * X-Error-Detail (as the throttle's refusals say theirs).
 */
export function accountInactive(detail: string): ApiError {
  return new ApiError(403, 'AccountInactive', 'Account Inactive', { 'x-error-detail': detail });
}
