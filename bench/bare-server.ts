import http from 'node:http';

/*
 * The reference: a bare node:http server answering a fixed response (a JSON body and its header
 * lines), the ceiling that Stockroom's figures are compared with. The responses come from the
 * file named by argv[2], by path.
 */
import fs from 'node:fs';

interface FixedResponse {
  body: string;
  headers: Array<[string, string]>;
}
const responses = JSON.parse(fs.readFileSync(process.argv[2]!, 'utf8')) as Record<string, FixedResponse>;
const prepared = new Map(
  Object.entries(responses).map(([path, { body, headers }]) => {
    const bytes = Buffer.from(body);
    return [path, { bytes, headers: [...headers, ['content-length', String(bytes.length)]] as Array<[string, string]> }];
  }),
);
const notFound = { bytes: Buffer.from('{}'), headers: [['content-type', 'application/json'], ['content-length', '2']] as Array<[string, string]> };

const server = http.createServer((request, response) => {
  const { bytes, headers } = prepared.get((request.url ?? '/').split('?')[0]!) ?? notFound;
  response.writeHead(200, headers.flat());
  response.end(bytes);
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
