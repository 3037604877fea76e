#!/usr/bin/env node
// Runs a TypeScript entry point through tsx's loader, so that `npm start` works
// straight after `npm install` with no build step.
import { register } from 'tsx/esm/api';
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const [entry, ...rest] = process.argv.slice(2);
if (!entry) {
  console.error('usage: run-ts.js <file.ts> [args…]');
  process.exit(2);
}
register();
process.argv = [process.argv[0], path.resolve(entry), ...rest];
await import(pathToFileURL(path.resolve(entry)).href);
