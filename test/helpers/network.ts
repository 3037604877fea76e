import net from 'node:net';

/** A loopback port free right now, so a public URL can name it before the app listens on it. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = address !== null && typeof address === 'object' ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('no TCP port'))));
    });
  });
}
