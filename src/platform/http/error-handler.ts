import type { FastifyError, FastifyInstance } from 'fastify';
import { ApiError } from './errors.js';
import { isStorageFull, STORAGE_FULL_CODE, STORAGE_FULL_MESSAGE } from './storage-full.js';

interface ValidationIssue {
  instancePath?: string;
  keyword?: string;
  params?: Record<string, unknown>;
  message?: string;
}

/** Parameters whose bad values have a named code of their own in the spec. */
const PARAMETER_CODES: Readonly<Record<string, string>> = {
  page: 'InvalidPage',
  page_size: 'InvalidPageSize',
  pageSize: 'InvalidPageSize',
};

/** The parameter a schema-validation failure is about, for the error message. */
function parameterOf(issue: ValidationIssue | undefined): string {
  if (!issue) return 'request';
  const missing = issue.params?.missingProperty ?? issue.params?.additionalProperty;
  if (typeof missing === 'string') return missing;
  return issue.instancePath?.split('/').filter(Boolean)[0] ?? 'request';
}

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
    const fastifyError = error as FastifyError & { validation?: ValidationIssue[]; validationContext?: string };
    if (fastifyError.validation) {
      const issue = fastifyError.validation[0];
      const parameter = parameterOf(issue);
      const isMissing = issue?.keyword === 'required';
      const isUnknown = issue?.keyword === 'additionalProperties';
      const message = isMissing
        ? `Missing required parameter '${parameter}'`
        : isUnknown
          ? `Unknown parameter '${parameter}'`
          : `Invalid value for parameter '${parameter}': ${issue?.message ?? 'not allowed'}`;
      const code = isUnknown ? 'MalformedRequest' : (PARAMETER_CODES[parameter] ?? 'InvalidParameterValue');
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
