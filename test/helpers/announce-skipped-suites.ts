/**
 * Says, once per run, which backend suites are skipped for want of a database or Redis,
 * so that a green run on a machine without them is not mistaken for a full one.
 */
export default function announceSkippedSuites(): void {
  const skipped: string[] = [];
  if (!process.env.STOCKROOM_TEST_DATABASE_URL) {
    skipped.push('PostgreSQL suites (set STOCKROOM_TEST_DATABASE_URL=postgres://… to run them)');
  }
  if (!process.env.STOCKROOM_TEST_REDIS_URL) {
    skipped.push('Redis suites (set STOCKROOM_TEST_REDIS_URL=redis://… to run them)');
  }
  for (const line of skipped) console.log(`stockroom tests: skipped ${line}`);
}
