import type { FastifyInstance } from 'fastify';

export interface OpenCorsOptions {
  /** Response headers a browser page may read. */
  exposedHeaders?: readonly string[];
  /** Request headers a page may send; when given, preflight requests are answered. */
  allowedHeaders?: readonly string[];
}

/**
 * CORS for routes open to every origin: `Access-Control-Allow-Origin: *` on every answer and,
 * where pages send headers of their own (Api-Key, Authorization), an answer to the preflight.
 * No credentials are involved (the key travels in a header), so no origin is ever echoed.
 * It is written out here rather than taken from @fastify/cors because it runs on every request
 * of the hot path and needs none of that plugin's per-request origin resolution.
 */
export function registerOpenCors(app: FastifyInstance, options: OpenCorsOptions = {}): void {
  const headers: Record<string, string> = { 'access-control-allow-origin': '*' };
  if (options.exposedHeaders?.length) headers['access-control-expose-headers'] = options.exposedHeaders.join(', ');
  app.addHook('onRequest', async (_request, reply) => {
    reply.headers(headers);
  });
  if (options.allowedHeaders) {
    const preflight = {
      'access-control-allow-methods': 'GET, HEAD, POST, PUT, DELETE',
      'access-control-allow-headers': options.allowedHeaders.join(', '),
      'access-control-max-age': '86400',
    };
    app.options('/*', { schema: { hide: true } }, async (_request, reply) => {
      reply.code(204).headers(preflight).send();
    });
  }
}
