import fs from 'node:fs';
import { Command } from 'commander';
import { ConfigError } from './config/config.js';
import { addChannelCommands } from './cli/commands/admin-channel.js';
import { addClientCommands } from './cli/commands/admin-client.js';
import { addProductCommands } from './cli/commands/admin-product.js';
import { addUserCommands } from './cli/commands/admin-user.js';
import { addBackupCommands } from './cli/commands/backup.js';
import { addBlobsCommands } from './cli/commands/blobs.js';
import { addIngestCommand } from './cli/commands/ingest.js';
import { addBackfillCommand } from './cli/commands/backfill.js';
import { addReportCommand } from './cli/commands/report.js';
import { addSeedDemoCommand } from './cli/commands/seed-demo.js';
import { addSearchIndexCommands } from './cli/commands/search-index.js';
import { addServeCommand } from './cli/commands/serve.js';

const { version } = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

const program = new Command()
  .name('stockroom')
  .description('A self-hostable server that speaks the Stock Media Licensing API v3.')
  .version(version)
  .showHelpAfterError();

addServeCommand(program);
addSeedDemoCommand(program);
addIngestCommand(program);
addBackfillCommand(program);
addReportCommand(program);
addBlobsCommands(program);
addBackupCommands(program);
addSearchIndexCommands(program);
const admin = program.command('admin').description('manage API clients, the users who sign in to authorize them, and their products');
addClientCommands(admin);
addUserCommands(admin);
addProductCommands(admin);
addChannelCommands(admin);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  // One line, no stack: a bad setting or a busy port is the operator's to fix, not a crash.
  process.stderr.write(`stockroom: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(error instanceof ConfigError ? 2 : 1);
}
