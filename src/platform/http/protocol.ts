import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { unsupportedContentEncoding } from './errors.js';

/*
 * What HTTP itself asks of the server, before any route: requests that never finish, methods a
 * path does not take, bodies in a coding or type nobody here reads, and the errors Node's parser
 * raises before Fastify sees a request. Every one answers `{message, code}` like the API.
 */

export interface ConnectionLimits {
  /** The whole request, headers and body. */
  requestTimeoutSeconds: number;
  headersTimeoutSeconds: number;
  keepAliveTimeoutSeconds: number;
}

/**
 * A request is checked against its deadlines this often (Node's default, 30 s, would let a
 * stalled body hang for up to half a minute past its timeout).
 */
const DEADLINE_CHECK_MS = 1000;

/** Fastify's server options for the connection deadlines (it turns Node's request timeout off by default). */
export function connectionOptions(limits: ConnectionLimits): {
  requestTimeout: number;
  keepAliveTimeout: number;
  http: http.ServerOptions;
  clientErrorHandler: (error: NodeJS.ErrnoException, socket: Socket) => void;
} {
  return {
    requestTimeout: limits.requestTimeoutSeconds * 1000,
    keepAliveTimeout: limits.keepAliveTimeoutSeconds * 1000,
    http: {
      headersTimeout: limits.headersTimeoutSeconds * 1000,
      connectionsCheckingInterval: Math.min(DEADLINE_CHECK_MS, limits.headersTimeoutSeconds * 1000),
    },
    clientErrorHandler: answerClientError,
  };
}

interface ClientErrorAnswer {
  status: number;
  code: string;
  message: string;
}

/** What Node's parser and deadlines report, as the API says it. */
function clientErrorAnswer(error: NodeJS.ErrnoException): ClientErrorAnswer {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, code: 'RequestTimeout', message: 'The request was not received in time' };
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, code: 'RequestHeaderFieldsTooLarge', message: 'The request line and headers are too large (a URL or header over 16 KB)' };
    case 'HPE_INVALID_METHOD':
      return { status: 400, code: 'MalformedRequest', message: 'The request method is not valid HTTP' };
    case 'HPE_INVALID_URL':
      return { status: 400, code: 'MalformedRequest', message: 'The request URL contains a character that is not allowed' };
    default:
      return { status: 400, code: 'MalformedRequest', message: 'The request is not valid HTTP' };
  }
}

/**
 * Answers what Node's HTTP parser refused before any request object exists (no Fastify hook
 * runs): the socket is written to directly, then closed, as Node's own default does.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection is gone: there is nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const answer = clientErrorAnswer(error);
  const body = JSON.stringify({ message: answer.message, code: answer.code });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${answer.status} ${http.STATUS_CODES[answer.status]}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** The methods a path may answer; HEAD comes with every GET. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** Content codings of request bodies that are read here: none but the body as it is. */
const READABLE_CODINGS = new Set(['identity']);

function hasBody(headers: http.IncomingHttpHeaders): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}

/**
 * Registers, on the root instance before any route: 415 for a body in a coding nobody decodes,
 * no text/plain parser (Fastify's default one took a text body to a JSON endpoint), and a
 * not-found handler that tells a wrong method (405 with Allow) from an unknown path (404).
 */
export function registerProtocolRules(app: FastifyInstance): void {
  app.removeContentTypeParser('text/plain');

  app.addHook('onRequest', async (request) => {
    const coding = request.headers['content-encoding'];
    if (coding === undefined || !hasBody(request.headers)) return;
    const codings = coding.split(',').map((item) => item.trim().toLowerCase()).filter((item) => item !== '');
    const unreadable = codings.find((item) => !READABLE_CODINGS.has(item));
    if (unreadable !== undefined) {
      throw unsupportedContentEncoding(unreadable);
    }
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    const allowed = METHODS.filter((method) => app.findRoute({ method, url: path }) !== null);
    // Every /v3 path answers a CORS preflight (OPTIONS /v3/*): that alone does not make it a path.
    if (allowed.some((method) => method !== 'OPTIONS')) {
      void reply
        .code(405)
        .header('allow', allowed.join(', '))
        .send({ message: `${request.method} is not allowed on ${path}; allowed: ${allowed.join(', ')}`, code: 'MethodNotAllowed' });
      return;
    }
    void reply.code(404).send({ message: `No route for ${request.method} ${path}`, code: 'NotFound' });
  });
}
