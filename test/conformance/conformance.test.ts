import { defineConformanceSuite } from './conformance-suite.js';

// The conformance fuzzer on SQLite (see conformance-suite.ts).
await defineConformanceSuite({ name: 'sqlite', url: undefined });
