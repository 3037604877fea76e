import type { Kysely } from 'kysely';
import type { Tables } from '../../../src/platform/db/tables.js';
import type { LeaseTable } from '../../../src/platform/jobs/lease-queue.js';
import { GENERATION_QUEUE } from '../../../src/generation/generation.repository.js';
import { DOWNLOAD_PREPARATION_QUEUE } from '../../../src/generation/generation-downloads.repository.js';
import { TRANSCODE_QUEUE } from '../../../src/media/video/video-transcodes.js';

/**
 * The tables the product runs jobs from, each with a way to queue jobs in it: the lease
 * queue's contract is checked on every one of them, since each describes "ready" its own way.
 */
export interface JobTable {
  description: LeaseTable<keyof Tables>;
  /** Queues `count` jobs, created a second apart from `from` (the claim order); their keys, oldest first. */
  addJobs(db: Kysely<Tables>, count: number, from: Date): Promise<string[]>;
  /** A job's key as addJobs names it. */
  keyOf(row: Record<string, unknown>): string;
  /** The status of a job done. */
  done: string;
}

/** The contract treats every table's rows alike (by their key), whatever columns the table has. */
const anyTable = <Name extends keyof Tables>(description: LeaseTable<Name>) => description as unknown as LeaseTable<keyof Tables>;

const at = (from: Date, n: number) => new Date(from.getTime() + n * 1000).toISOString();
const requestId = (n: number, salt: string) => `${salt}${n.toString(16).padStart(8, '0')}`.padEnd(32, '0');

/** A customer with an AI product, whom generation requests belong to. */
async function customer(db: Kysely<Tables>): Promise<{ userId: number; productId: number }> {
  const now = new Date().toISOString();
  const user = await db
    .insertInto('users')
    .values({ username: `painter-${Math.random().toString(36).slice(2, 10)}`, password_hash: 'not-a-real-hash', first_name: 'Pat', last_name: 'Painter', email: null, team: null, partner_credit: 0, password_changed_at: now, created_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  const userId = user.id;
  const product = await db
    .insertInto('products')
    .values({ user_id: userId, type: 'aigen', name: 'Generations', status: 'active', expires_at: null, created_at: now, credits_remaining: null, download_limit: null, download_limit_duration: null, download_period_ends_at: null, overage_limit: null, agreement_name: null, imagepack_resolution: null, application_website: null })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { userId, productId: product.id };
}

async function insertRequests(db: Kysely<Tables>, count: number, from: Date, status: string): Promise<string[]> {
  const { userId, productId } = await customer(db);
  const salt = Math.random().toString(16).slice(2, 10);
  const ids = Array.from({ length: count }, (_, n) => requestId(n, salt));
  await db
    .insertInto('generation_requests')
    .values(
      ids.map((id, n) => ({
        id,
        user_id: userId,
        client_id: 1,
        product_id: productId,
        generation_type: 'text_to_image',
        job: JSON.stringify({ operation: 'generate', params: {}, pictures: {} }),
        status,
        seed: n,
        charge: 'free',
        created_at: at(from, n),
        expires_at: at(from, 86_400),
      })),
    )
    .execute();
  return ids;
}

export const JOB_TABLES: Record<string, JobTable> = {
  'generation requests': {
    description: anyTable(GENERATION_QUEUE),
    addJobs: (db, count, from) => insertRequests(db, count, from, 'pending'),
    keyOf: (row) => String(row.id),
    done: 'done',
  },
  'download preparations': {
    description: anyTable(DOWNLOAD_PREPARATION_QUEUE),
    async addJobs(db, count, from) {
      const [request] = await insertRequests(db, 1, from, 'done');
      const user = await db.selectFrom('generation_requests').select('user_id').where('id', '=', request!).executeTakeFirstOrThrow();
      const rows = await db
        .insertInto('generation_downloads')
        .values(
          Array.from({ length: count }, (_, n) => ({
            generated_asset_id: `${request!}-${n}`,
            request_id: request!,
            result_index: n,
            size_name: '4k',
            user_id: user.user_id,
            status: 'preparing',
            created_at: at(from, n),
          })),
        )
        .returning('id')
        .execute();
      return rows.map((row) => String(row.id));
    },
    keyOf: (row) => String(row.id),
    done: 'ready',
  },
  'video transcodes': {
    description: anyTable(TRANSCODE_QUEUE),
    async addJobs(db, count, from) {
      const rows = Array.from({ length: count }, (_, n) => ({ original_key: `originals/clip-${n}.mp4`, kind: 'SD', status: 'pending', created_at: at(from, n) }));
      await db.insertInto('video_transcodes').values(rows).execute();
      return rows.map((row) => `${row.original_key}|${row.kind}`);
    },
    keyOf: (row) => `${String(row.original_key)}|${String(row.kind)}`,
    done: 'done',
  },
};
