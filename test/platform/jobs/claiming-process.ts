/*
 * A node that claims jobs from a lease queue, as a process of its own (the lease queue's contract
 * suite starts two of these on one store). It opens the store named in CLAIMING_PROCESS, says
 * "ready", and at the line "go" on its stdin either claims until nothing is ready ("drain") and
 * prints what it claimed, or claims one job, prints it and holds it until it is killed ("hold").
 */
import readline from 'node:readline';
import { openDatabase, type DatabaseOptions } from '../../../src/platform/db/database.js';
import { LeaseQueue } from '../../../src/platform/jobs/lease-queue.js';
import { JOB_TABLES } from './job-tables.js';

export interface ClaimingProcessSettings {
  store: DatabaseOptions;
  table: string;
  node: string;
  mode: 'drain' | 'hold';
  leaseMs: number;
}

const settings = JSON.parse(process.env.CLAIMING_PROCESS ?? '{}') as ClaimingProcessSettings;
const table = JOB_TABLES[settings.table];
if (!table) throw new Error(`no job table '${settings.table}'`);
const database = await openDatabase(settings.store);
const queue = new LeaseQueue(database.db, database.dialect, table.description);
const claim = () => {
  const now = new Date();
  return queue.claim(settings.node, now, new Date(now.getTime() + settings.leaseMs));
};

const lines = readline.createInterface({ input: process.stdin });
process.stdout.write('ready\n');
for await (const line of lines) {
  if (line !== 'go') continue;
  const claimed: string[] = [];
  for (let job = await claim(); job; job = settings.mode === 'hold' ? undefined : await claim()) claimed.push(table.keyOf(job as Record<string, unknown>));
  process.stdout.write(`${JSON.stringify({ claimed })}\n`);
  if (settings.mode === 'drain') break;
}
lines.close();
await database.close();
