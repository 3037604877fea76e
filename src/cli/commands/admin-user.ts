import { InvalidArgumentError, type Command } from 'commander';
import { STAFF_ROLES, isStaffRole, type StaffRole, type UserAccount } from '../../oauth/users.service.js';
import { firstLineOfStdin, print, withServices } from '../options.js';

/** A staff role as the commands take it: admin or editor (and, where a role may be taken away, none). */
function staffRole(value: string): StaffRole {
  const word = value.trim().toLowerCase();
  if (!isStaffRole(word)) throw new InvalidArgumentError(`must be one of ${STAFF_ROLES.join(', ')}`);
  return word;
}

function roleOrNone(value: string): StaffRole | null {
  if (value.trim().toLowerCase() === 'none') return null;
  const word = value.trim().toLowerCase();
  if (!isStaffRole(word)) throw new InvalidArgumentError(`must be one of ${STAFF_ROLES.join(', ')}, or none`);
  return word;
}

export function addUserCommands(admin: Command): void {
  const user = admin.command('user').description('users who sign in to authorize applications');

  user
    .command('create')
    .description('create a user')
    .requiredOption('--username <name>', 'the name the user signs in with')
    .option('--password <password>', 'at least 8 characters (default: the first line of standard input)')
    .option('--team <team>', 'the team the user belongs to')
    .option('--partner-credit', 'a user of a partner site who holds credits', false)
    .option('--role <role>', `staff of the library, who may sign in to the back office at /admin: ${STAFF_ROLES.join(' (the catalogue), ')} (everything)`, staffRole)
    .option('--json', 'print {"id": …, "username": …, "role": …}', false)
    .action(async (options: { username: string; password?: string; team?: string; partnerCredit: boolean; role?: StaffRole; json: boolean }) => {
      const password = options.password ?? (await firstLineOfStdin());
      if (!password) throw new Error('no password: give --password or write it on the first line of standard input');
      await withServices(async (services) => {
        if (await services.users.findByUsername(options.username.trim())) {
          throw new Error(`a user named ${options.username.trim()} already exists`);
        }
        const created = await services.users.create({
          username: options.username,
          password,
          team: options.team ?? null,
          partnerCredit: options.partnerCredit,
          role: options.role ?? null,
        });
        process.stdout.write(
          options.json
            ? `${JSON.stringify({ id: created.id, username: created.username, role: created.role })}\n`
            : `Created user ${created.id} “${created.username}”${created.team ? ` of team ${created.team}` : ''}${created.partnerCredit ? ' (partner credit)' : ''}${created.role ? `, ${created.role} of the back office (/admin)` : ''}.\n`,
        );
      });
    });

  user
    .command('set-role')
    .description('make a user staff of the back office (/admin), or a customer again (none); counts from the next page they open')
    .argument('<username>', 'the user')
    .argument('<role>', `${STAFF_ROLES.join(', ')} or none`, roleOrNone)
    .action(async (username: string, role: StaffRole | null) => {
      await withServices(async (services) => {
        const updated = await services.users.setRole(username, role);
        if (!updated) {
          process.stderr.write(`stockroom: no user named ${username}\n`);
          process.exitCode = 1;
          return;
        }
        print(role === null ? `${username} is a customer: no role in the back office.` : `${username} is now ${role} of the back office (/admin).`);
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
  user
    .command('list')
    .description('every user: id, username, state of the account, staff role, team, partner credit')
    .option('--json', 'print {"users": [...]} as JSON', false)
    .action(async (options: { json: boolean }) => {
      await withServices(async (services) => {
        const users = await services.users.list();
        const now = new Date().toISOString();
        const stateOf = (entry: UserAccount) =>
          entry.disabledAt !== null ? 'disabled' : entry.lockedUntil !== null && entry.lockedUntil > now ? `locked until ${entry.lockedUntil}` : 'enabled';
        if (options.json) {
          const listed = users.map((entry) => ({
            id: entry.id,
            username: entry.username,
            enabled: entry.disabledAt === null,
            role: entry.role,
            disabled_at: entry.disabledAt,
            locked_until: entry.lockedUntil !== null && entry.lockedUntil > now ? entry.lockedUntil : null,
            team: entry.team,
            partner_credit: entry.partnerCredit,
            first_name: entry.first_name,
            last_name: entry.last_name,
            email: entry.email,
            created_at: entry.createdAt,
          }));
          print(JSON.stringify({ users: listed }));
          return;
        }
        if (users.length === 0) print('There is no user yet (create one with: stockroom admin user create --username <name>).');
        for (const entry of users) {
          const about = [entry.role ? entry.role : '', entry.team ? `team ${entry.team}` : '', entry.partnerCredit ? 'partner credit' : ''].filter((part) => part !== '');
          print([entry.id, entry.username, stateOf(entry), ...(about.length > 0 ? [about.join(', ')] : [])].join('\t'));
        }
      });
    });

  user
    .command('disable')
    .description('disable a user: no more sign-ins or password grants, and every token the user holds is revoked')
    .argument('<username>', 'the user')
    .action(async (username: string) => {
      await withServices(async (services) => {
        if (!(await services.users.disable(username))) {
          process.stderr.write(`stockroom: no user named ${username}\n`);
          process.exitCode = 1;
          return;
        }
        print(`Disabled ${username}: the user cannot sign in, and every token the user held is revoked.`);
      });
    });

  user
    .command('enable')
    .description('let a disabled user sign in again, with the same password')
    .argument('<username>', 'the user')
    .action(async (username: string) => {
      await withServices(async (services) => {
        if (!(await services.users.enable(username))) {
          process.stderr.write(`stockroom: no user named ${username}\n`);
          process.exitCode = 1;
          return;
        }
        print(`Enabled ${username}.`);
      });
    });
}
