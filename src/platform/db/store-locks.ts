import { sql, type Kysely } from 'kysely';
import type { SqlDialect } from './database.js';
import type { Tables } from './tables.js';

/** The in-process locks of each SQLite store (one process uses the file), by lock name. */
const localLocks = new WeakMap<object, Map<string, Promise<void>>>();

/**
 * Runs `work` while holding every named lock, so that "count what is stored, then store one
 * more" (a quota) or "is this blob still referenced? then delete it" cannot interleave with
 * another holder of the same name. The names are taken in sorted order, so two holders of
 * overlapping sets never wait on each other in a circle.
 *
 * On PostgreSQL the locks are transaction-scoped advisory locks, so every node takes part;
 * `work` gets the transaction, and what it writes there becomes visible to the next holder
 * when the locks are released at commit. On SQLite, a file one process uses, locks in this
 * process suffice; `work` gets the store itself, which stays free for other requests
 * meanwhile (a blob may be written while the locks are held).
 */
export async function withStoreLocks<T>(
  db: Kysely<Tables>,
  dialect: SqlDialect,
  names: readonly string[],
  work: (db: Kysely<Tables>) => Promise<T>,
): Promise<T> {
  const sorted = [...new Set(names)].sort();
  if (dialect === 'postgres') {
    return db.transaction().execute(async (transaction) => {
      for (const name of sorted) await sql`select pg_advisory_xact_lock(hashtext(${`stockroom.${name}`}))`.execute(transaction);
      return work(transaction);
    });
  }
  let locks = localLocks.get(db);
  if (!locks) {
    locks = new Map();
    localLocks.set(db, locks);
  }
  const releases: Array<() => void> = [];
  try {
    for (const name of sorted) releases.push(await acquire(locks, name));
    return await work(db);
  } finally {
    for (const release of releases.reverse()) release();
  }
}

async function acquire(locks: Map<string, Promise<void>>, name: string): Promise<() => void> {
  const previous = locks.get(name) ?? Promise.resolve();
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  locks.set(name, held);
  await previous;
  return () => {
    release();
    // The last in the queue clears the entry, so the map does not grow with every name ever locked.
    if (locks.get(name) === held) locks.delete(name);
  };
}
