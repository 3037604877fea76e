import fs from 'node:fs';
import pg from 'pg';
import { Redis } from 'ioredis';

/**
 * Says, once per run, which backend suites are skipped for want of a database or Redis,
 * so that a green run on a machine without them is not mistaken for a full one. Under CI
 * (STOCKROOM_REQUIRE_BACKENDS=1) an unreachable backend, or no Chromium, fails the run instead.
 */
export default async function announceSkippedSuites(): Promise<void> {
  const required = process.env.STOCKROOM_REQUIRE_BACKENDS === '1';
  const databaseUrl = process.env.STOCKROOM_TEST_DATABASE_URL;
  const redisUrl = process.env.STOCKROOM_TEST_REDIS_URL;
  if (!databaseUrl) console.log('stockroom tests: skipped the PostgreSQL suites (STOCKROOM_TEST_DATABASE_URL is not set)');
  if (!redisUrl) console.log('stockroom tests: skipped the Redis suites (STOCKROOM_TEST_REDIS_URL is not set)');
  if (required && (!databaseUrl || !redisUrl)) {
    throw new Error('STOCKROOM_REQUIRE_BACKENDS=1 needs STOCKROOM_TEST_DATABASE_URL and STOCKROOM_TEST_REDIS_URL');
  }
  // The browser suite announces its own skip; under CI a missing Chromium is a failure.
  if (required && !fs.existsSync('/usr/bin/chromium')) {
    throw new Error('STOCKROOM_REQUIRE_BACKENDS=1 needs Debian’s chromium for the browser suite (apt-get install chromium)');
  }
  if (databaseUrl) {
    const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5000 });
    try {
      await client.connect();
      await client.query('select 1');
    } catch (error) {
      throw new Error(`PostgreSQL at STOCKROOM_TEST_DATABASE_URL is unreachable: ${String(error)}`);
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  if (redisUrl) {
    const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 5000 });
    try {
      await redis.connect();
      await redis.ping();
    } catch (error) {
      throw new Error(`Redis at STOCKROOM_TEST_REDIS_URL is unreachable: ${String(error)}`);
    } finally {
      redis.disconnect();
    }
  }
}
