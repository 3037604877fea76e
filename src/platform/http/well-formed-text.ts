import type { FastifyInstance, FastifyRequest } from 'fastify';
import { invalidCharacter, type ApiError } from './errors.js';

/*
 * One rule for every surface (the API, the OAuth endpoints, the catalogue browser's pages): text
 * a request carries is well-formed Unicode without NUL. PostgreSQL cannot store a NUL in text
 * ("invalid byte sequence for encoding UTF8: 0x00"), and a lone UTF-16 surrogate (which a JSON
 * body can spell, "\ud800") is not a character at all: it would be stored as U+FFFD on one store
 * and refused on another. So a NUL or a lone surrogate anywhere in a path parameter, the query,
 * a JSON body (names and values) or a form body is a 400 before any route reads it, on both
 * stores alike. Headers cannot carry either: Node's parser refuses a NUL in a header, and a
 * header is read as Latin-1.
 *
 * The error is the catalogue's InvalidCharacter, so that each surface answers it in its own
 * shape: `{message, code}` under /v3 and /beta, RFC 6749's invalid_request at the token
 * endpoint, the error page on the sign-in and catalogue pages.
 */

/** A NUL, a high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
const FORBIDDEN = /\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** What was found where, for the message; undefined when the text is well-formed. */
function problemIn(text: string): string | undefined {
  const match = FORBIDDEN.exec(text);
  if (!match) return undefined;
  if (match[0] === '\0') return 'a NUL character (U+0000)';
  return `an unpaired UTF-16 surrogate (U+${match[0].charCodeAt(0).toString(16).toUpperCase()})`;
}

/** Names are repeated back only when they are plain (a name may itself hold the NUL). */
function shown(name: string): string {
  return /^[A-Za-z0-9_.[\]-]{1,64}$/.test(name) ? `'${name}'` : 'with a name that is not plain text';
}

function refusal(where: string, name: string, problem: string): ApiError {
  return invalidCharacter(`The ${where} ${shown(name)} contains ${problem}, which no text here may hold`);
}

/** Every string of a parsed value (query, params, JSON), names included, with a dotted path. */
function findInValue(value: unknown, where: string, name: string): ApiError | undefined {
  // A walk with a list instead of recursion: a deeply nested body must not exhaust the stack.
  const pending: Array<{ value: unknown; name: string }> = [{ value, name }];
  while (pending.length > 0) {
    const { value: current, name: currentName } = pending.pop()!;
    if (typeof current === 'string') {
      const problem = problemIn(current);
      if (problem) return refusal(where, currentName, problem);
    } else if (Array.isArray(current)) {
      current.forEach((item, index) => pending.push({ value: item, name: `${currentName}[${index}]` }));
    } else if (current !== null && typeof current === 'object' && !Buffer.isBuffer(current)) {
      for (const [key, item] of Object.entries(current)) {
        const keyName = currentName === '' ? key : `${currentName}.${key}`;
        const problem = problemIn(key);
        if (problem) return refusal(where, keyName, problem);
        pending.push({ value: item, name: keyName });
      }
    }
  }
  return undefined;
}

/** `+` is a space, then percent-escapes; a piece that does not decode is left to the route, which refuses it in its own words. */
function decodedPiece(piece: string): string {
  try {
    return decodeURIComponent(piece.replace(/\+/g, ' '));
  } catch {
    return piece;
  }
}

/** A body that reached the routes as text (no parser read it into fields): its names and values are looked at as they decode. */
function findInText(body: string): ApiError | undefined {
  const raw = problemIn(body);
  if (raw) return refusal('request body', 'body', raw);
  for (const pair of body.split('&')) {
    const equals = pair.indexOf('=');
    const name = decodedPiece(equals === -1 ? pair : pair.slice(0, equals));
    const value = equals === -1 ? '' : decodedPiece(pair.slice(equals + 1));
    const problem = problemIn(name) ?? problemIn(value);
    if (problem) return refusal('form field', name, problem);
  }
  return undefined;
}

/** The first NUL or lone surrogate of a request's path parameters, query and body, as its refusal. */
export function malformedTextOf(request: Pick<FastifyRequest, 'params' | 'query' | 'body' | 'headers'>): ApiError | undefined {
  return (
    findInValue(request.params, 'path parameter', '') ??
    findInValue(request.query, 'query parameter', '') ??
    (typeof request.body === 'string' ? findInText(request.body) : findInValue(request.body, isForm(request.headers['content-type']) ? 'form field' : 'body field', ''))
  );
}

/** Whether a body came as a form (the OAuth endpoints and the catalogue browser read forms into their fields). */
function isForm(contentType: string | undefined): boolean {
  return contentType?.split(';')[0]?.trim().toLowerCase() === 'application/x-www-form-urlencoded';
}

/**
 * Registers the rule on the root instance, before any route: it runs once a body is parsed and
 * before a route's own validation, in every context (each keeps its own error shape).
 */
export function registerWellFormedText(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const refused = malformedTextOf(request);
    if (refused) throw refused;
  });
}
