import { ApiError } from './errors.js';
import { isStorageFull, STORAGE_FULL_MESSAGE } from './storage-full.js';

/** An error as a page shows it: its status, what the person reads, and the named code when it has one. */
export interface PageError {
  status: number;
  message: string;
  code: string | undefined;
}

/**
 * What a server-rendered page (the catalogue browser's, the back office's) says of an error: the
 * services' own refusals (ApiError, any status) and Fastify's 4xx (an unreadable body, a path or
 * query its route's schema refuses) with their message; a full disk as 507; anything else a 500
 * that says only that it failed (the caller logs the error itself).
 */
export function pageErrorOf(error: unknown): PageError {
  const full = isStorageFull(error);
  const known = error instanceof ApiError;
  const given = full ? 507 : known ? error.statusCode : (error as { statusCode?: number }).statusCode;
  const status = given !== undefined && given >= 400 && given < 600 ? given : 500;
  const explained = full || known || status < 500;
  const message = full ? STORAGE_FULL_MESSAGE : explained && error instanceof Error ? error.message : 'The server could not make this page. Try again in a moment.';
  return { status, message, code: known ? error.code : undefined };
}
