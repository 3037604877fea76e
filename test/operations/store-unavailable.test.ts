import net from 'node:net';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { isStoreUnavailable } from '../../src/platform/http/error-handler.js';
import { openDatabase } from '../../src/platform/db/database.js';
import { freePort } from '../helpers/network.js';

/*
 * Which failures mean "the store cannot be reached now" (answered 503 with Retry-After, the
 * caller may try again) rather than a fault of ours (500). The errors are the real ones: made by
 * the pg driver against a port where nothing listens, and against a server that ends the session
 * as PostgreSQL does when it shuts down.
 */

/** A server that speaks just enough of PostgreSQL's protocol to end every session with `code`. */
async function endingServer(code: string, message: string): Promise<{ port: number; close(): void }> {
  const server = net.createServer((socket) => {
    socket.once('data', () => {
      const fields = Buffer.concat([
        Buffer.from(`SFATAL\0C${code}\0M${message}\0`),
        Buffer.from([0]),
      ]);
      const header = Buffer.alloc(5);
      header.write('E', 0);
      header.writeInt32BE(fields.length + 4, 1);
      socket.end(Buffer.concat([header, fields]));
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { port, close: () => server.close() };
}

describe('a store that cannot be reached', () => {
  it('rule: nothing listening (connection refused) is unavailable', async () => {
    const port = await freePort();
    const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/none`, connectionTimeoutMillis: 2000 });
    const error = await client.connect().catch((caught: unknown) => caught);
    expect(isStoreUnavailable(error)).toBe(true);
  });

  it('rule: a server shutting down (57P01) or starting up (57P03) is unavailable; through the pool Stockroom opens as well', async () => {
    for (const [code, message] of [
      ['57P01', 'terminating connection due to administrator command'],
      ['57P03', 'the database system is starting up'],
    ] as const) {
      const server = await endingServer(code, message);
      try {
        const database = await openDatabase({ url: `postgres://postgres@127.0.0.1:${server.port}/none` });
        const error = await database.db.selectFrom('products').selectAll().execute().catch((caught: unknown) => caught);
        expect((error as { code?: string }).code).toBe(code);
        expect(isStoreUnavailable(error), code).toBe(true);
        await database.close();
      } finally {
        server.close();
      }
    }
  });

  it('rule: a query the store refuses for what it says (a missing table, a broken constraint) is not unavailable', () => {
    expect(isStoreUnavailable(Object.assign(new Error('relation "nope" does not exist'), { code: '42P01' }))).toBe(false);
    expect(isStoreUnavailable(Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' }))).toBe(false);
    expect(isStoreUnavailable(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBe(false);
    expect(isStoreUnavailable(undefined)).toBe(false);
  });
});
