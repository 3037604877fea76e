import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config/config.js';
import { createServices } from '../src/app.js';
import { table } from './harness.js';
import { size } from './sizes.js';

// a creative channel's notices are half of them: PENDING ≥ 2 × 2,200 × CYCLES
const PENDING = size('BENCH_PENDING', 100_000, 5_000);
const CYCLES = size('BENCH_CYCLES', 20, 1);
const BATCH = 2200;

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const worst = (values: readonly number[]) => Math.max(...values);
const ms = (value: number) => value.toFixed(2);

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await work();
  return { ms: performance.now() - start, value };
}

/**
 * Change-set hand-out at BENCH_PENDING pending notices (default 100,000), on SQLite, in one
 * process (the service, no HTTP): each cycle hands out a new set of 2,200 notices and confirms
 * it. Beside it, in the same run, the plain read of the same rows: the change-log entries the
 * set was chosen among (2,200, or 4,400 for a creative channel whose notices are every other
 * entry), after the same position, by number, with nothing joined or written. Also: the open set handed
 * out again, and the channel list with its live count over every pending notice.
 *
 * The catalogue is BENCH_PENDING images, half creative and half editorial, each with its
 * insert in the change log: a channel of both families has BENCH_PENDING notices pending, a
 * creative one half as many, spread among the others.
 */
export async function changesBenchmark(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-bench-changes-'));
  const services = await createServices(loadConfig({ STOCKROOM_DATA_DIR: dataDir, STOCKROOM_LOG_LEVEL: 'warn', STOCKROOM_SEED_DEMO: 'false' }));
  try {
    const { db } = services.database;
    const { client } = await services.clients.create({ name: 'changes bench' });

    // 1. The catalogue and its change log, written in bulk (one transaction a chunk).
    const now = new Date().toISOString();
    const familyOf = (n: number) => (n % 2 === 0 ? 'creative' : 'editorial');
    for (let start = 0; start < PENDING; start += 5000) {
      const ids = Array.from({ length: Math.min(5000, PENDING - start) }, (_, n) => `bench${start + n}`);
      await db.transaction().execute(async (trx) => {
        for (let chunk = 0; chunk < ids.length; chunk += 500) {
          const part = ids.slice(chunk, chunk + 500);
          await trx
            .insertInto('assets')
            .values(part.map((id, n) => ({ id, asset_type: 'image', asset_family: familyOf(start + chunk + n), title: id, details: '{}', updated_at: now })))
            .execute();
          await trx
            .insertInto('change_log')
            .values(part.map((id, n) => ({ entity_type: 'image', entity_id: id, operation: 'insert', changed_at: now, asset_family: familyOf(start + chunk + n) })))
            .execute();
        }
      });
    }
    const both = await services.assetChanges.createChannel({ clientId: client.id, assetFamily: 'both', assetType: 'image' });
    const creative = await services.assetChanges.createChannel({ clientId: client.id, assetFamily: 'creative', assetType: 'image' });

    // 2. The channel list: live counts over every pending notice.
    const listing = await timed(() => services.assetChanges.channelRecords(client.id));
    const counts = listing.value.map((channel) => channel.NotificationCount);

    // 3. Hand-out and confirmation cycles, each beside the plain read of the same rows.
    const rows: string[][] = [];
    for (const [channel, span] of [
      [both, 1],
      [creative, 2],
    ] as const) {
      const handOuts: number[] = [];
      const again: number[] = [];
      const confirms: number[] = [];
      const reads: number[] = [];
      let position = 0;
      for (let cycle = 0; cycle < CYCLES; cycle++) {
        const handOut = await timed(() => services.assetChanges.handOut(client.id, channel.id, BATCH));
        const set = handOut.value;
        if (!set || set.changed_assets.length !== BATCH) throw new Error(`cycle ${cycle} handed out ${set?.changed_assets.length ?? 0} notices`);
        handOuts.push(handOut.ms);
        again.push((await timed(() => services.assetChanges.handOut(client.id, channel.id, BATCH))).ms);
        const read = await timed(() =>
          db
            .selectFrom('change_log')
            .select(['seq', 'entity_type', 'entity_id', 'operation', 'changed_at'])
            .where('seq', '>', position)
            .orderBy('seq')
            // A creative set's notices are every other entry: the plain read takes the entries they are among.
            .limit(BATCH * span)
            .execute(),
        );
        reads.push(read.ms);
        position = read.value[read.value.length - 1]!.seq;
        confirms.push((await timed(() => services.assetChanges.confirm(client.id, Number(set.change_set_id)))).ms);
      }
      const name = channel.assetFamily;
      rows.push([`hand-out of a new set (${name} channel)`, ms(median(handOuts)), ms(worst(handOuts)), String(Math.round((BATCH * 1000) / median(handOuts)))]);
      rows.push([`the open set again (${name} channel)`, ms(median(again)), ms(worst(again)), String(Math.round((BATCH * 1000) / median(again)))]);
      rows.push([`confirmation (${name} channel)`, ms(median(confirms)), ms(worst(confirms)), '']);
      rows.push([`plain read of ${(BATCH * span).toLocaleString('en')} log rows (beside ${name})`, ms(median(reads)), ms(worst(reads)), String(Math.round((BATCH * 1000) / median(reads)))]);
    }
    rows.push([`channel list, counts ${counts.join(' and ')}`, ms(listing.ms), ms(listing.ms), '']);

    process.stdout.write(`\nChange sets at ${PENDING.toLocaleString('en')} pending notices (SQLite, ${CYCLES} cycles a channel, ${BATCH} notices a set)\n\n`);
    process.stdout.write(`${table(['operation', 'median ms', 'worst ms', 'notices/s'], rows)}\n`);
  } finally {
    await services.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
