import { describe, it } from 'vitest';
import { POSTGRES_URL } from '../helpers/test-store.js';
import { defineConformanceSuite } from './conformance-suite.js';

// The conformance fuzzer on PostgreSQL (see conformance-suite.ts), where text the store cannot
// hold (a NUL) once answered 500 although SQLite took it.
if (POSTGRES_URL) await defineConformanceSuite({ name: 'postgres', url: POSTGRES_URL });
else describe.skip('the OpenAPI document and the server agree (postgres): STOCKROOM_TEST_DATABASE_URL is not set', () => it('runs with PostgreSQL', () => undefined));
