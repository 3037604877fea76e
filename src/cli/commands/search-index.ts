import type { Command } from 'commander';
import { createServices } from '../../app.js';
import { openDatabase } from '../../platform/db/database.js';
import { readBuilderSpec, stopWhenTheNodeStops } from '../../search/snapshot-builder.js';

/**
 * `stockroom search-index build`: internal, started by a serving node with no usable search
 * snapshot (search/snapshot-builder.ts). Reads the whole store into a fresh index, writes the
 * snapshot file the node then loads, prints its progress for the node's log, and exits.
 */
export function addSearchIndexCommands(program: Command): void {
  const searchIndex = program.command('search-index', { hidden: true }).description('internal: the search index of a serving node');
  searchIndex
    .command('build')
    .description("build the search snapshot from the store, with the settings a serving node passes in its environment (the node starts this itself)")
    .action(async () => {
      const spec = readBuilderSpec();
      const watched = stopWhenTheNodeStops();
      try {
        // Its own lines only: the node already logged what the other modules say when they open.
        const config = Object.freeze({ ...spec.config, logLevel: 'warn' as const });
        const database = await openDatabase(spec.database);
        const services = await createServices(config, { database });
        try {
          await services.search.writeSnapshotFromStore((message, level) => (level === 'warn' ? process.stderr : process.stdout).write(`${message}\n`));
        } finally {
          await services.close();
        }
      } finally {
        // the watch kept the event loop alive: the child exits once its work is done
        watched();
      }
    });
}
