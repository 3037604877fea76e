import { InvalidRequest } from './oauth.errors.js';

/**
 * `application/x-www-form-urlencoded` read strictly, for the OAuth endpoints: the token request's
 * body, the authorization request's query and the sign-in form. Unlike URLSearchParams, a
 * malformed percent-escape or a name given twice is an answer of its own (RFC 6749 §3.1, §3.2:
 * "Request and response parameters MUST NOT be included more than once"), not a silent guess.
 */

export const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded';

/** Bodies are a handful of short parameters; 16 KB leaves room and refuses floods early. */
export const FORM_BODY_LIMIT_BYTES = 16 * 1024;

export type ParsedForm =
  | { ok: true; fields: Readonly<Record<string, string>> }
  | { ok: false; problem: 'repeated'; name: string }
  | { ok: false; problem: 'malformed' };

/** One name or value: `+` is a space, then percent-escapes of UTF-8 (throws URIError when malformed). */
export function decodeFormComponent(text: string): string {
  return decodeURIComponent(text.replace(/\+/g, ' '));
}

/**
 * Every `name=value` pair of `text` (no leading `?`). Empty pairs (`a=1&&b=2`) and pairs
 * without a name are skipped; a name without `=` has the empty value. The record has no
 * prototype, so a field called `constructor` or `__proto__` is just a field.
 */
export function parseForm(text: string): ParsedForm {
  const fields: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    let name: string;
    let value: string;
    try {
      name = decodeFormComponent(equals === -1 ? pair : pair.slice(0, equals));
      value = equals === -1 ? '' : decodeFormComponent(pair.slice(equals + 1));
    } catch {
      return { ok: false, problem: 'malformed' };
    }
    if (name === '') continue;
    if (Object.hasOwn(fields, name)) return { ok: false, problem: 'repeated', name };
    fields[name] = value;
  }
  return { ok: true, fields };
}

/**
 * The fields of a form (or a query) for the OAuth endpoints' schemas, each given once; or the
 * invalid_request that says why it cannot be read. RFC 6749 §3.1, §3.2: "Parameters sent
 * without a value MUST be treated as if they were omitted", so blank ones are dropped here.
 */
export function readForm(text: string): Record<string, string> | InvalidRequest {
  const form = parseForm(text);
  if (!form.ok) return new InvalidRequest(formProblem(form));
  const fields: Record<string, string> = Object.create(null);
  for (const [name, value] of Object.entries(form.fields)) if (value !== '') fields[name] = value;
  return fields;
}

/** Only a plain name is repeated back (error_description allows a narrow set of characters). */
function formProblem(form: Exclude<ParsedForm, { ok: true }>): string {
  if (form.problem === 'malformed') return 'The request has a parameter that is not correctly percent-encoded';
  return /^[A-Za-z0-9_.-]{1,64}$/.test(form.name) ? `The parameter ${form.name} was given more than once` : 'A parameter was given more than once';
}
