import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { FORM_BODY_LIMIT_BYTES, FORM_CONTENT_TYPE, parseForm } from '../oauth/form-body.js';
import { malformedForm } from './web.errors.js';

/** The pages' forms: a form body becomes its fields (each given once), or a 400 page. */
export function registerFormBody(app: FastifyInstance): void {
  app.addContentTypeParser(FORM_CONTENT_TYPE, { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT_BYTES }, (_request, body, done) => {
    const parsed = parseForm(body as string);
    if (!parsed.ok) done(malformedForm(parsed.problem === 'repeated' ? `The form sent ${parsed.name} twice` : 'The form cannot be read'), undefined);
    else done(null, parsed.fields);
  });
}

/** A form's fields, as the form body gave them (none without a body). */
export function formFields(body: unknown): Record<string, string> {
  return (body ?? {}) as Record<string, string>;
}

/** Equal strings, compared in constant time (as digests, so the lengths do not show either). */
export function sameToken(a: string, b: string): boolean {
  const left = createHash('sha256').update(a).digest();
  const right = createHash('sha256').update(b).digest();
  return a !== '' && timingSafeEqual(left, right);
}
