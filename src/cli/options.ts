import readline from 'node:readline';
import { InvalidArgumentError } from 'commander';
import { createServices, type Services } from '../app.js';
import { loadConfig, type Config } from '../config/config.js';

/** What the CLI's option parsers and commands share. */

export function count(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a whole number');
  return Number(value);
}

export function positive(value: string): number {
  const n = count(value);
  if (n < 1) throw new InvalidArgumentError('must be at least 1');
  return n;
}

/** For repeatable options: each use adds one value. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

export function commaList(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** A date (YYYY-MM-DD, the end of that day UTC) or an ISO 8601 date-time. */
export function expiryDate(value: string): string {
  const text = value.trim();
  const instant = /^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T23:59:59Z` : text;
  if (!/^\d{4}-\d{2}-\d{2}/.test(instant) || Number.isNaN(Date.parse(instant))) {
    throw new InvalidArgumentError('must be a date (YYYY-MM-DD) or an ISO 8601 date-time');
  }
  return new Date(Date.parse(instant)).toISOString();
}

/** The first line of standard input (a password piped in stays out of the process list and shell history). */
export async function firstLineOfStdin(): Promise<string> {
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  try {
    for await (const line of lines) return line;
    return '';
  } finally {
    lines.close();
  }
}

/** Runs a command with the services of the configured store, closing them afterwards. */
export async function withServices<T>(run: (services: Services, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const services = await createServices(config);
  try {
    return await run(services, config);
  } finally {
    await services.close();
  }
}

/** Writes lines to standard output, each ended by a newline. */
export function print(...lines: string[]): void {
  process.stdout.write(lines.map((line) => `${line}\n`).join(''));
}
