import { ApiError } from '../platform/http/errors.js';

/*
 * The back office's refusals. Its pages show each as a page of the back office with its status;
 * the codes are for the log and for tests, as the API's are.
 */

/** A signed-in person without a staff role (a customer) on a back-office page or action. */
export function staffOnly(): ApiError {
  return new ApiError(403, 'StaffOnly', 'The back office is for the library’s staff, and this account has no staff role. An administrator can give it one.');
}

/** An editor (or a customer) on a page or action only an administrator may use. */
export function adminOnly(): ApiError {
  return new ApiError(403, 'AdminOnly', 'Only an administrator may open this page or do this. Your role is editor: the catalogue is yours.');
}

/** A back-office form posted by a browser that is not signed in (any more). */
export function staffSignInRequired(): ApiError {
  return new ApiError(401, 'SignInRequired', 'Your session has ended. Sign in again, then repeat what you were doing.');
}

/** A back-office form without the session's CSRF token, or with another. */
export function formExpired(): ApiError {
  return new ApiError(403, 'CsrfCheckFailed', 'This form has expired or did not come from this site. Go back, reload the page and try again.');
}

/** A form field or query value that is not one the page takes; the message names the field and what it takes. */
export function invalidField(message: string): ApiError {
  return new ApiError(400, 'InvalidField', message);
}

/** An application (API client) id that names none. */
export function applicationNotFound(id: string): ApiError {
  return new ApiError(404, 'ApplicationNotFound', `There is no application with the id ${id}`);
}

/** The application's settings break a rule of `stockroom admin client` (the message is that rule's). */
export function invalidApplication(message: string): ApiError {
  return new ApiError(400, 'InvalidClientMetadata', message);
}

/** A user id that names none. */
export function userNotFound(id: string): ApiError {
  return new ApiError(404, 'UserNotFound', `There is no user with the id ${id}`);
}

/** A new user named as an existing one. */
export function usernameTaken(username: string): ApiError {
  return new ApiError(409, 'UsernameTaken', `A user named ${username} already exists`);
}

/** A team no user belongs to. */
export function teamNotFound(team: string): ApiError {
  return new ApiError(404, 'TeamNotFound', `No user belongs to a team named ${team}`);
}

/** An administrator taking away their own administrator role or account: the library would be left without one who can give it back. */
export function cannotDemoteYourself(message: string): ApiError {
  return new ApiError(409, 'CannotChangeOwnAccount', message);
}

/** A picture of an asset that is not there: no such asset, no such display file, or no file to make it from. */
export function pictureNotFound(id: string): ApiError {
  return new ApiError(404, 'PictureNotFound', `There is no picture of asset ${id}`);
}

/** A move between draft, published and withdrawn that the asset's state does not allow (the message says which states may). */
export function publicationMoveRefused(message: string): ApiError {
  return new ApiError(409, 'PublicationMoveRefused', message);
}

/** A form's file larger than a form takes (the resumable upload takes large files). */
export function fileTooLarge(largestBytes: number): ApiError {
  return new ApiError(413, 'FileTooLarge', `The file is larger than this form takes (${Math.round(largestBytes / (1024 * 1024))} MB)`);
}

/** A kind of job the jobs page does not know. */
export function jobKindNotFound(kind: string): ApiError {
  return new ApiError(404, 'JobKindNotFound', `There is no kind of job named ${kind}`);
}

/** Running again a job that is not (or no longer) failed: gone, or run again by someone else already. */
export function jobNotFailed(kind: string): ApiError {
  return new ApiError(409, 'JobNotFailed', `That ${kind} job has not failed (it is gone, or someone ran it again already): reload the page`);
}
