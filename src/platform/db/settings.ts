import type { Kysely } from 'kysely';
import type { Tables } from './tables.js';

/**
 * Returns the stored value of a setting, creating it with make() the first time.
 * Every node of a cluster reads the same value: the first insert wins and the others read it.
 */
export async function getOrCreateSetting(db: Kysely<Tables>, key: string, make: () => string): Promise<string> {
  const existing = await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst();
  if (existing) return existing.value;
  await db
    .insertInto('settings')
    .values({ key, value: make() })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const stored = await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirstOrThrow();
  return stored.value;
}
