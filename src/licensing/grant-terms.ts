import { invalidParameter } from '../platform/http/errors.js';
import type { GrantInput } from './products.service.js';

/*
 * The terms of a product grant as people write them — `stockroom admin product grant`'s
 * options, the back office's form — read into what ProductsService.grant takes. One reading
 * for both, so a number, a date or a list means the same wherever it is typed; the rules of
 * which terms a type takes stay the service's.
 */

/** A whole number of at least `min`, written in digits; the problem in words otherwise. */
export function readWholeNumber(text: string, min = 0): { value: number } | { problem: string } {
  if (!/^\d+$/.test(text)) return { problem: 'must be a whole number' };
  const value = Number(text);
  if (!Number.isSafeInteger(value)) return { problem: 'must be a whole number' };
  if (value < min) return { problem: `must be at least ${min}` };
  return { value };
}

/** When a product expires: a day (YYYY-MM-DD, the end of that day UTC) or an ISO 8601 date-time; an ISO instant. */
export function readExpiry(text: string): { value: string } | { problem: string } {
  const trimmed = text.trim();
  const instant = /^\d{4}-\d{2}-\d{2}$/.test(trimmed) ? `${trimmed}T23:59:59Z` : trimmed;
  if (!/^\d{4}-\d{2}-\d{2}/.test(instant) || Number.isNaN(Date.parse(instant))) return { problem: 'must be a date (YYYY-MM-DD) or an ISO 8601 date-time' };
  return { value: new Date(Date.parse(instant)).toISOString() };
}

/** A comma-separated list, each item trimmed, blank ones left out. */
export function readList(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** The terms as text, each absent or blank when not given (the names of the CLI's options). */
export interface GrantTermsText {
  type: string;
  credits?: string | undefined;
  team?: boolean | undefined;
  downloads?: string | undefined;
  generations?: string | undefined;
  assetEditCost?: string | undefined;
  period?: string | undefined;
  overage?: string | undefined;
  expires?: string | undefined;
  name?: string | undefined;
  agreement?: string | undefined;
  resolution?: string | undefined;
  website?: string | undefined;
  requireNotes?: boolean | undefined;
  requireProjectCode?: boolean | undefined;
  projectCodes?: string | undefined;
}

const given = (text: string | undefined) => (text === undefined || text.trim() === '' ? undefined : text.trim());

/** The grant of these terms to a user; 400 InvalidParameterValue naming the term that cannot be read. */
export function grantInputFromText(userId: number, terms: GrantTermsText): GrantInput {
  const whole = (name: string, text: string | undefined) => {
    const value = given(text);
    if (value === undefined) return undefined;
    const read = readWholeNumber(value);
    if ('problem' in read) throw invalidParameter(name, `'${value}' ${read.problem}`);
    return read.value;
  };
  const expiresText = given(terms.expires);
  let expiresAt: string | undefined;
  if (expiresText !== undefined) {
    const read = readExpiry(expiresText);
    if ('problem' in read) throw invalidParameter('expires', `'${expiresText}' ${read.problem}`);
    expiresAt = read.value;
  }
  const codes = given(terms.projectCodes);
  return {
    userId,
    type: terms.type,
    name: given(terms.name),
    expiresAt,
    credits: whole('credits', terms.credits),
    team: terms.team ?? false,
    downloads: whole('downloads', terms.downloads),
    generations: whole('generations', terms.generations),
    assetEditCost: whole('asset_edit_cost', terms.assetEditCost),
    period: given(terms.period),
    overage: whole('overage', terms.overage),
    agreementName: given(terms.agreement),
    imagepackResolution: given(terms.resolution),
    applicationWebsite: given(terms.website),
    noteRequired: terms.requireNotes ?? false,
    projectCodeRequired: terms.requireProjectCode ?? false,
    projectCodes: codes === undefined ? undefined : readList(codes),
  };
}
