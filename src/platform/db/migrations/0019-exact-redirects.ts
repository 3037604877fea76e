import type { Kysely } from 'kysely';
import { sha256Hex } from '../../crypto/secrets.js';

/**
 * A client may be held to its registered redirect URIs exactly: no local URI that nobody
 * registered, no added query parameter. The catalogue browser's own client is (a page on the
 * user's machine must never receive its codes); third-party clients keep the local-redirect
 * exemption for development. The browser's clients registered before this column are found by
 * the settings that remember their keys (`web_client:<callback>`) and are held to it too.
 */
export function exactRedirects() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('api_clients').addColumn('exact_redirects', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      const webClients = (await db.selectFrom('settings').select('value').where('key', 'like', 'web_client:%').execute()) as Array<{ value: string }>;
      const hashes = webClients.map(({ value }) => sha256Hex(value));
      if (hashes.length > 0) await db.updateTable('api_clients').set({ exact_redirects: 1 }).where('key_hash', 'in', hashes).execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('api_clients').dropColumn('exact_redirects').execute();
    },
  };
}
