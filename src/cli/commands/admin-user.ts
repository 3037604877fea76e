import type { Command } from 'commander';
import { firstLineOfStdin, withServices } from '../options.js';

export function addUserCommands(admin: Command): void {
  const user = admin.command('user').description('users who sign in to authorize applications');

  user
    .command('create')
    .description('create a user')
    .requiredOption('--username <name>', 'the name the user signs in with')
    .requiredOption('--password <password>', 'at least 8 characters')
    .option('--team <team>', 'the team the user belongs to')
    .option('--partner-credit', 'a user of a partner site who holds credits', false)
    .option('--json', 'print {"id": …, "username": …}', false)
    .action(async (options: { username: string; password: string; team?: string; partnerCredit: boolean; json: boolean }) => {
      await withServices(async (services) => {
        if (await services.users.findByUsername(options.username.trim())) {
          throw new Error(`a user named ${options.username.trim()} already exists`);
        }
        const created = await services.users.create({
          username: options.username,
          password: options.password,
          team: options.team ?? null,
          partnerCredit: options.partnerCredit,
        });
        process.stdout.write(
          options.json
            ? `${JSON.stringify({ id: created.id, username: created.username })}\n`
            : `Created user ${created.id} “${created.username}”${created.team ? ` of team ${created.team}` : ''}${created.partnerCredit ? ' (partner credit)' : ''}.\n`,
        );
      });
    });

  user
    .command('password')
    .description('set a new password for a user; revokes every token the user holds')
    .argument('<username>', 'the user')
    .option('--password <password>', 'the new password (default: the first line of standard input)')
    .action(async (username: string, options: { password?: string }) => {
      const password = options.password ?? (await firstLineOfStdin());
      if (!password) throw new Error('no new password: give --password or write it on the first line of standard input');
      await withServices(async (services) => {
        if (!(await services.users.changePassword(username, password))) {
          process.stderr.write(`stockroom: no user named ${username}\n`);
          process.exitCode = 1;
          return;
        }
        process.stdout.write(`Changed the password of ${username}; every token the user held is revoked.\n`);
      });
    });
}
