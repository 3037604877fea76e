import http from 'node:http';
import type { Metrics } from './metrics.js';

/**
 * `/metrics` on a port of its own (STOCKROOM_METRICS_PORT), apart from the API: the port is
 * the access rule (a firewall or a private interface keeps it from the public), so it asks for
 * no token. Anything but GET /metrics is 404.
 */
export async function listenForScrapes(metrics: Metrics, host: string, port: number): Promise<http.Server> {
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (request.method !== 'GET' || path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Only GET /metrics is served here\n');
      return;
    }
    metrics.exposition().then(
      ({ contentType, body }) => response.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' }).end(body),
      (error: unknown) => response.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics failed: ${error instanceof Error ? error.message : String(error)}\n`),
    );
  });
  // A scraper's kept-alive connection must not hold the process open at shutdown.
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}
