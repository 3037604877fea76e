/**
 * One error hierarchy for the API. Every error carries its HTTP status and the
 * spec's named code; the error handler turns it into `{ message, code }`.
 *
 * The codes are written only in the error catalogues: this file for the refusals every
 * domain shares, and a `<domain>.errors.ts` beside each domain for its own (as
 * node-oidc-provider names its errors), so that a code is spelled once and a reader finds every
 * refusal of a domain in one place. A test keeps literal codes out of the other files.
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

/** 400 InvalidParameterValue with a message of the caller's own, for a refusal not about one parameter's value. */
export function invalidParameterValue(message: string): ApiError {
  return new ApiError(400, 'InvalidParameterValue', message);
}

/** 400 InvalidRequest: a body that cannot be read as the request it should be. */
export function invalidRequest(message: string): ApiError {
  return new ApiError(400, 'InvalidRequest', message);
}

/** The spec's codes for a page number or page size that is not one; other number parameters answer InvalidParameterValue. */
export const PAGING_CODES: Readonly<Record<string, string>> = { page: 'InvalidPage', page_size: 'InvalidPageSize', pageSize: 'InvalidPageSize' };

/** 400 for a bad number parameter: the paging codes for a page and a page size, else `code` or InvalidParameterValue. */
export function invalidNumber(parameter: string, detail: string, code?: string): ApiError {
  return new ApiError(400, code ?? PAGING_CODES[parameter] ?? 'InvalidParameterValue', `Invalid value for parameter '${parameter}': ${detail}`);
}

/** 400 InvalidPage, naming the parameter as the request spelled it. */
export function invalidPage(parameter: string, detail: string): ApiError {
  return new ApiError(400, 'InvalidPage', `Invalid value for parameter '${parameter}': ${detail}`);
}

/** 400 InvalidPageSize, naming the parameter as the request spelled it. */
export function invalidPageSize(parameter: string, detail: string): ApiError {
  return new ApiError(400, 'InvalidPageSize', `Invalid value for parameter '${parameter}': ${detail}`);
}

/** 400 for a request the server cannot read as the API's: an unknown parameter, a body that is not JSON. */
export function malformedRequest(message: string): ApiError {
  return new ApiError(400, 'MalformedRequest', message);
}

/** 400 for a JSON request without a body. */
export function bodyRequired(): ApiError {
  return new ApiError(400, 'InvalidParameterValue', 'This request needs a JSON body');
}

/** The code of a NUL or lone surrogate in a request's text; each surface answers it in its own shape. */
export const INVALID_CHARACTER = 'InvalidCharacter';

/** 400 InvalidCharacter: text a request carries is not well-formed Unicode without NUL. */
export function invalidCharacter(message: string): ApiError {
  return new ApiError(400, INVALID_CHARACTER, message);
}

/** 415 for a request body in a content coding the server does not read (RFC 9110 §8.4.1). */
export function unsupportedContentEncoding(coding: string): ApiError {
  return new ApiError(415, 'UnsupportedContentEncoding', `Request bodies are read as sent, without a content coding; '${coding}' is not supported`, {
    'accept-encoding': 'identity',
  });
}

/** 503 while every image-decode slot is busy and the queue is full; a moment later may do. */
export function imageDecodersBusy(concurrency: number, queue: number): ApiError {
  return new ApiError(
    503,
    'ImageDecodersBusy',
    `The server is decoding as many pictures as it may (${concurrency} at once, ${queue} waiting); try again in a moment`,
    { 'retry-after': '1' },
  );
}

export const REALM = 'Stockroom';

/** 401 AuthorizationTokenRequired: the request sent no bearer token, so the challenge is bare. */
export function authorizationTokenRequired(description: string): ApiError {
  return tokenRequired('AuthorizationTokenRequired', description);
}

/** 401 Unauthorized: a token that is malformed (invalid_request) or unknown, expired, revoked or another client's (invalid_token). */
export function unauthorizedToken(description: string, error: 'invalid_request' | 'invalid_token' = 'invalid_token'): ApiError {
  return tokenRequired('Unauthorized', description, error);
}

/**
 * 403 for a valid token that speaks for no user (client credentials): RFC 6750's
 * insufficient_scope — a new token of the same kind would not help, one for a user would.
 */
export function userTokenRequired(description: string): ApiError {
  return new ApiError(403, 'UserTokenRequired', description, {
    'www-authenticate': `Bearer realm="${REALM}", error="insufficient_scope", error_description="${description}"`,
  });
}

/**
 * 401 with the Bearer challenge of RFC 6750 (§3, §3.1). A request that sent no token gets the
 * bare challenge, without an error attribute; a malformed Authorization header is
 * invalid_request; a token that is unknown, expired, revoked or another client's is invalid_token.
 */
function tokenRequired(
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

/** 403 for a key over its throttle: the spec's code for the limit it passed, with the limits in X-Error-Detail. */
export function accountOverLimit(exceeded: 'second' | 'day', message: string, detail: string): ApiError {
  const code = exceeded === 'second' ? 'AccountOverQueriesPerSecondLimit' : 'AccountOverRateLimit';
  return new ApiError(403, code, message, { 'x-error-detail': detail });
}
