import http from 'node:http';

/*
 * The reference: a bare node:http server answering a fixed JSON body, the ceiling that
 * Stockroom's figures are compared with. The body comes from the file named by argv[2].
 */
import fs from 'node:fs';

const bodies = JSON.parse(fs.readFileSync(process.argv[2]!, 'utf8')) as Record<string, string>;
const buffers = new Map(Object.entries(bodies).map(([path, body]) => [path, Buffer.from(body)]));

const server = http.createServer((request, response) => {
  const body = buffers.get((request.url ?? '/').split('?')[0]!) ?? Buffer.from('{}');
  response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
  response.end(body);
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
