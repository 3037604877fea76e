import { ApiError } from '../platform/http/errors.js';

/*
 * The catalogue browser's own refusals. The pages show each as an HTML page with its status;
 * the codes are for the log and for tests, as the API's are.
 */

/** A form posted without one of the choices it is for (a size, a board, an asset…). */
export function invalidChoice(message: string): ApiError {
  return new ApiError(400, 'InvalidChoice', message);
}

/** A form body that cannot be read, or that gives one field twice. */
export function malformedForm(message: string): ApiError {
  return new ApiError(400, 'MalformedForm', message);
}

/** A form without the session's CSRF token, or with another. */
export function csrfCheckFailed(message: string): ApiError {
  return new ApiError(403, 'CsrfCheckFailed', message);
}

/** A page that needs a signed-in person, reached without one. */
export function signInRequired(message: string): ApiError {
  return new ApiError(401, 'SignInRequired', message);
}

/** The sign-in's way back, when the person said no or the authorization server answered an error. */
export function signInCancelled(message: string): ApiError {
  return new ApiError(400, 'SignInCancelled', message);
}

/** The sign-in's way back, reached without a code and a state. */
export function signInIncomplete(message: string): ApiError {
  return new ApiError(400, 'SignInIncomplete', message);
}

/** The sign-in's way back, with a state this browser did not start (or started too long ago). */
export function signInExpired(message: string): ApiError {
  return new ApiError(400, 'SignInExpired', message);
}

/** Sign-in cannot work on this node as it is configured; the message names what to change. */
export function signInUnavailable(message: string): ApiError {
  return new ApiError(503, 'SignInUnavailable', message);
}

/** A board link of a kind that does not exist. */
export function noSuchLink(): ApiError {
  return new ApiError(404, 'NotFound', 'There is no such link');
}

/** The search page's page number, out of its range. */
export function invalidPageNumber(message: string): ApiError {
  return new ApiError(400, 'InvalidPage', message);
}
