import readline from 'node:readline';
import { InvalidArgumentError } from 'commander';
import { createServices, type Services } from '../app.js';
import { loadConfig, type Config } from '../config/config.js';
import { readExpiry, readList, readWholeNumber } from '../licensing/grant-terms.js';

/** What the CLI's option parsers and commands share. */

// Numbers, dates and lists are read as the back office reads them (licensing/grant-terms.ts).

export function count(value: string): number {
  const read = readWholeNumber(value);
  if ('problem' in read) throw new InvalidArgumentError(read.problem);
  return read.value;
}

export function positive(value: string): number {
  const read = readWholeNumber(value, 1);
  if ('problem' in read) throw new InvalidArgumentError(read.problem);
  return read.value;
}

/** For repeatable options: each use adds one value. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

export function commaList(value: string): string[] {
  return readList(value);
}

/** A date (YYYY-MM-DD, the end of that day UTC) or an ISO 8601 date-time. */
export function expiryDate(value: string): string {
  const read = readExpiry(value);
  if ('problem' in read) throw new InvalidArgumentError(read.problem);
  return read.value;
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
