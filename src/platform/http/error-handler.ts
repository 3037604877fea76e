import type { FastifyError, FastifyInstance } from 'fastify';
import { ApiError } from './errors.js';
import { isStorageFull, STORAGE_FULL_CODE, STORAGE_FULL_MESSAGE } from './storage-full.js';
import { readingOf } from './parameters.js';

interface ValidationIssue {
  instancePath?: string;
  keyword?: string;
  params?: Record<string, unknown>;
  message?: string;
  /** With the validators' `verbose`: the value at fault and the schema it broke. */
  data?: unknown;
  parentSchema?: Record<string, unknown>;
}

/** Parameters whose bad values have a named code of their own in the spec. */
const PARAMETER_CODES: Readonly<Record<string, string>> = {
  page: 'InvalidPage',
  page_size: 'InvalidPageSize',
  pageSize: 'InvalidPageSize',
};

/** The parameter a schema-validation failure is about, for the error message: the top-level name on its path. */
function parameterOf(issue: ValidationIssue | undefined): string {
  if (!issue) return 'request';
  const missing = issue.params?.missingProperty ?? issue.params?.additionalProperty;
  if (typeof missing === 'string') return missing;
  return (issue.instancePath ?? '').split('/').filter(Boolean)[0] ?? 'request';
}

/** A value for an error message: quoted, and cut short when long. */
function shown(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  return `'${text.length > 100 ? `${text.slice(0, 100)}…` : text}'`;
}

/** Whether the value is at a list's item (its path ends in an index). */
const isListItem = (issue: ValidationIssue) => /\/\d+$/.test(issue.instancePath ?? '');

/** What is wrong with the value, in words that name it: "'sunny' is not one of …". */
function detailOf(issue: ValidationIssue | undefined, part: string | undefined): string {
  if (!issue) return 'not allowed';
  const schema = issue.parentSchema ?? {};
  const expected = readingOf(schema)?.expected;
  const value = issue.data;
  const limit = issue.params?.limit;
  switch (issue.keyword) {
    case 'enum':
      return `${shown(value)} is not one of ${((issue.params?.allowedValues as unknown[]) ?? []).join(', ')}`;
    case 'type':
      // A JSON body's values carry their types: Ajv's own words say which was wanted.
      if (part === 'body') return issue.message ?? 'not allowed';
      if (Array.isArray(value) && !isListItem(issue)) return 'takes one value, not several';
      if (expected) return `${shown(value)} is not ${expected}`;
      if (issue.params?.type === 'boolean') return `${shown(value)} is not true or false`;
      if (issue.params?.type === 'integer') return `${shown(value)} is not a whole number`;
      return issue.message ?? 'not allowed';
    case 'minimum':
    case 'maximum':
      if (typeof schema.minimum === 'number' && typeof schema.maximum === 'number') {
        return `${shown(value)} is not ${schema.type === 'integer' ? 'a whole number' : 'a number'} from ${schema.minimum} to ${schema.maximum}`;
      }
      return `${shown(value)} is ${issue.keyword === 'minimum' ? 'below' : 'above'} ${String(limit)}`;
    case 'maxLength':
      return `is longer than ${String(limit)} characters`;
    case 'minLength':
      return `is shorter than ${String(limit)} characters`;
    case 'maxItems':
      return `has more than ${String(limit)} items`;
    case 'minItems':
      return `needs at least ${String(limit)} item${limit === 1 ? '' : 's'}`;
    case 'format':
    case 'pattern':
    case 'anyOf':
      return expected ? `${shown(value)} is not ${expected}` : `${shown(value)} ${issue.message ?? 'is not allowed'}`;
    default:
      return issue.message ?? 'not allowed';
  }
}

/** The named code of a bad value: the parameter kind's own, the spec's for paging, or InvalidParameterValue. */
function codeOf(issue: ValidationIssue | undefined, parameter: string): string {
  const properties = issue?.parentSchema?.properties as Record<string, unknown> | undefined;
  const reading = readingOf(issue?.keyword === 'required' ? properties?.[parameter] : issue?.parentSchema);
  const own = reading?.codeFor === undefined || reading.codeFor.includes(issue?.keyword ?? '') ? reading?.code : undefined;
  return own ?? PARAMETER_CODES[parameter] ?? 'InvalidParameterValue';
}

/** Whether an anyOf is a nullable value's (`Nullable`: one alternative and null). */
function isNullable(issue: ValidationIssue): boolean {
  const alternatives = issue.parentSchema?.anyOf;
  return Array.isArray(alternatives) && alternatives.length === 2 && alternatives.some((alternative) => (alternative as { type?: unknown }).type === 'null');
}

/** The reading of the schema at fault, when it speaks for this failure (its `codeFor` keywords, or all of them). */
function speakingReading(issue: ValidationIssue | undefined) {
  const reading = readingOf(issue?.parentSchema);
  return reading?.codeFor === undefined || reading.codeFor.includes(issue?.keyword ?? '') ? reading : undefined;
}

/** The message a schema words for the failure of one of its own keywords (a body rule's), if it words one. */
const ownMessageOf = (issue: ValidationIssue) => speakingReading(issue)?.message;

/** Connection failures, and PostgreSQL's "shutting down", "starting up" and "connection lost" classes. */
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08006']);
const UNAVAILABLE_MESSAGES = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|the database system is (starting up|shutting down))/i;

/** Whether an error says the store cannot be reached now (not that the request was wrong). */
export function isStoreUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) || (typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message));
}

/**
 * One place turns every failure into `{ message, code }`: named API errors as they are,
 * validation failures as 400 naming the parameter, and anything unexpected as a 500
 * that shows nothing of the inside (the log has the details).
 */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    if (error instanceof ApiError) {
      return reply.code(error.statusCode).headers(error.headers).send({ message: error.message, code: error.code });
    }
    const fastifyError = error as Omit<FastifyError, 'validation'> & { validation?: ValidationIssue[]; validationContext?: string };
    if (fastifyError.validation) {
      // A value no alternative of an anyOf takes: the anyOf (the parameter's own schema) says what it should be, not its first branch.
      // A value that is not null, refused by a nullable object or list: what its one other alternative says of it is the news.
      const issues: readonly ValidationIssue[] = fastifyError.validation;
      const first = issues[0];
      const issue = issues.find((candidate) => candidate.keyword === 'anyOf' && candidate.instancePath === first?.instancePath && !isNullable(candidate)) ?? first;
      const parameter = readingOf(issue?.parentSchema)?.name ?? parameterOf(issue);
      const isMissing = issue?.keyword === 'required';
      const isUnknown = issue?.keyword === 'additionalProperties';
      // Fastify hands a body validator null for a request without a body.
      if (fastifyError.validationContext === 'body' && issue?.instancePath === '' && (issue.data === undefined || issue.data === null)) {
        return reply.code(400).send({ message: 'This request needs a JSON body', code: speakingReading(issue)?.code ?? 'InvalidParameterValue' });
      }
      // A rule the schema words itself (exactly one reference): the errors before it only say how each of its alternatives failed.
      const worded = issues.find((candidate) => ownMessageOf(candidate) !== undefined);
      if (worded) return reply.code(400).send({ message: ownMessageOf(worded), code: codeOf(worded, parameterOf(worded)) });
      const message = isMissing
        ? `Missing required parameter '${parameter}'`
        : isUnknown
          ? `Unknown parameter '${parameter}'`
          : `Invalid value for parameter '${parameter}': ${detailOf(issue, fastifyError.validationContext)}`;
      // An unknown parameter is MalformedRequest, unless the object it was sent in names its own code.
      const code = isUnknown ? (readingOf(issue?.parentSchema)?.code ?? 'MalformedRequest') : codeOf(issue, parameter);
      return reply.code(400).send({ message, code });
    }
    const status = fastifyError.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      // Fastify's own client errors: unreadable body, wrong content type, too large.
      const code = status === 415 ? 'UnsupportedMediaType' : status === 413 ? 'PayloadTooLarge' : 'MalformedRequest';
      return reply.code(status).send({ message: fastifyError.message, code });
    }
    if (isStorageFull(error)) {
      // The disk is full: the write rolled back, nothing changed; /health and /readyz say so too.
      request.log.error({ err: error }, 'a write met a full disk');
      return reply.code(507).send({ message: STORAGE_FULL_MESSAGE, code: STORAGE_FULL_CODE });
    }
    if (isStoreUnavailable(error)) {
      // The store is down or restarting: the caller may try again at once (another node, or
      // this one when PostgreSQL is back); the request changed nothing.
      request.log.warn({ err: error }, 'the store is unavailable');
      return reply.code(503).header('retry-after', '1').send({ message: 'The service is briefly unavailable; try again shortly', code: 'ServiceUnavailable' });
    }
    request.log.error({ err: error }, 'request failed');
    return reply.code(500).send({ message: 'An internal error occurred', code: 'InternalServerError' });
  });
}
