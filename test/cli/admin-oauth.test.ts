import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../src/platform/db/database.js';
import { OAuthStore } from '../../src/oauth/oauth.store.js';
import { TokensService } from '../../src/oauth/tokens.service.js';
import { UsersRepository } from '../../src/oauth/users.repository.js';
import { UsersService } from '../../src/oauth/users.service.js';
import { readStoreIn } from '../helpers/test-store.js';

// Each test runs the real command several times, each a process that loads the whole app: a
// hang guard for a loaded machine, not a measure.
vi.setConfig({ testTimeout: 120_000 });

const CLI = path.resolve('bin/stockroom.js');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

describe('stockroom admin: users and OAuth clients', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-cli-oauth-'));
    env = { ...process.env, STOCKROOM_DATA_DIR: dataDir, STOCKROOM_LOG_LEVEL: 'silent', DATABASE_URL: '', REDIS_URL: '' };
  });
  afterAll(() => {
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** Runs the command, writing `input` to its standard input. */
  const stockroom = (args: string[], input = ''): Promise<Run> =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.once('error', reject);
      child.once('close', (code) => resolve({ code, stdout, stderr }));
      child.stdin.end(input);
    });

  /** The store the commands wrote, opened after they ran. */
  const withStore = <T>(read: (database: Database) => Promise<T>) => readStoreIn(dataDir, read);

  let userId: number;

  it('creates a user with a team and partner credit and prints its id as JSON', async () => {
    const run = await stockroom(['admin', 'user', 'create', '--username', 'alice', '--password', 'correct horse battery', '--team', 'Newsroom', '--partner-credit', '--json']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const printed = JSON.parse(run.stdout) as { id: number; username: string; role: string | null };
    // No --role: a customer, not staff.
    expect(printed).toEqual({ id: expect.any(Number), username: 'alice', role: null });
    userId = printed.id;
    const row = await withStore((database) => database.db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirstOrThrow());
    expect(row).toMatchObject({ username: 'alice', team: 'Newsroom', partner_credit: 1 });
  });

  it('sets a new password read from standard input and revokes the user’s tokens', async () => {
    const { token } = await withStore((database) =>
      new TokensService(new OAuthStore(database.db)).issue({ clientId: 1, userId, grantType: 'implicit', lifetimeSeconds: 3600 }),
    );
    const run = await stockroom(['admin', 'user', 'password', 'alice'], 'a brand new secret\nignored second line\n');
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/revoked/);
    const check = await withStore((database) => new TokensService(new OAuthStore(database.db)).verify(token, 1));
    expect(check).toEqual({ valid: false, reason: 'The access token has been revoked' });
    const signedIn = await withStore((database) => new UsersService(new UsersRepository(database.db)).verifyPassword('alice', 'a brand new secret'));
    expect(signedIn).toMatchObject({ id: userId });
  });

  it('says in one line that there is no such user, and fails', async () => {
    const run = await stockroom(['admin', 'user', 'password', 'nobody', '--password', 'a brand new secret']);
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual(['stockroom: no user named nobody']);
  });

  it('creates a public client with redirect URIs and grants, printing no secret', async () => {
    const run = await stockroom([
      'admin', 'client', 'create', '--name', 'Mobile app', '--public',
      '--redirect-uri', 'https://app.example.com/callback', '--redirect-uri', 'https://app.example.com/other',
      '--grants', 'authorization_code,refresh_token', '--json',
    ]);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const printed = JSON.parse(run.stdout) as Record<string, string>;
    expect(printed).toEqual({ api_key: expect.stringMatching(/^[a-z0-9]{24}$/) });
    const row = await withStore((database) => database.db.selectFrom('api_clients').selectAll().where('name', '=', 'Mobile app').executeTakeFirstOrThrow());
    expect(row).toMatchObject({ confidential: 0, secret_hash: '' });
    expect(JSON.parse(row.redirect_uris)).toEqual(['https://app.example.com/callback', 'https://app.example.com/other']);
    expect(JSON.parse(row.grant_types!)).toEqual(['authorization_code', 'refresh_token']);
  });

  it.each([
    ['an unknown grant', ['--grants', 'password,magic'], /^stockroom: unknown grant magic/],
    ['a grant the kind of client may not have', ['--public', '--grants', 'client_credentials'], /^stockroom: a public client .* client_credentials/],
    ['a plain-http redirect URI', ['--redirect-uri', 'http://app.example.com/callback'], /^stockroom: redirect URI http:\/\/app\.example\.com\/callback must use https/],
  ])('refuses %s in one line', async (_case, args, message) => {
    const run = await stockroom(['admin', 'client', 'create', '--name', 'Refused', ...args]);
    expect(run.code).not.toBe(0);
    expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(message)]);
  });
  it('creates a user with the password read from standard input', async () => {
    const run = await stockroom(['admin', 'user', 'create', '--username', 'piped', '--json'], 'piped in secret\nignored\n');
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const signedIn = await withStore((database) => new UsersService(new UsersRepository(database.db)).verifyPassword('piped', 'piped in secret'));
    expect(signedIn).toMatchObject({ username: 'piped' });
    const refused = await stockroom(['admin', 'user', 'create', '--username', 'nopassword']);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^stockroom: no password: give --password or write it/)]);
  });

  it('disables a user, revoking the user’s tokens, lists the user as disabled, and enables the user again', async () => {
    const { token } = await withStore((database) =>
      new TokensService(new OAuthStore(database.db)).issue({ clientId: 1, userId, grantType: 'implicit', lifetimeSeconds: 3600 }),
    );
    const disabled = await stockroom(['admin', 'user', 'disable', 'alice']);
    expect(disabled).toMatchObject({ code: 0, stderr: '' });
    expect(disabled.stdout).toMatch(/^Disabled alice: .*revoked/);
    expect(await withStore((database) => new TokensService(new OAuthStore(database.db)).verify(token, 1))).toEqual({
      valid: false,
      reason: 'The access token has been revoked',
    });
    expect(await withStore((database) => new UsersService(new UsersRepository(database.db)).verifyPassword('alice', 'a brand new secret'))).toBeUndefined();

    const listed = JSON.parse((await stockroom(['admin', 'user', 'list', '--json'])).stdout) as { users: Array<Record<string, unknown>> };
    expect(listed.users.find((entry) => entry.username === 'alice')).toMatchObject({ id: userId, enabled: false, team: 'Newsroom', partner_credit: true });
    expect(JSON.stringify(listed)).not.toMatch(/argon2|password/);
    expect((await stockroom(['admin', 'user', 'list'])).stdout).toMatch(new RegExp(`^${userId}\talice\tdisabled\tteam Newsroom, partner credit$`, 'm'));

    expect(await stockroom(['admin', 'user', 'enable', 'alice'])).toMatchObject({ code: 0, stdout: 'Enabled alice.\n' });
    expect(await withStore((database) => new UsersService(new UsersRepository(database.db)).verifyPassword('alice', 'a brand new secret'))).toMatchObject({ id: userId });
    const unknown = await stockroom(['admin', 'user', 'disable', 'nobody']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.trim()).toBe('stockroom: no user named nobody');
  });

  it('creates staff with --role, changes the role with set-role (none: a customer again), and lists the role', async () => {
    const created = await stockroom(['admin', 'user', 'create', '--username', 'stella', '--role', 'admin', '--json'], 'staff password 1\n');
    expect(created).toMatchObject({ code: 0, stderr: '' });
    const { id } = JSON.parse(created.stdout) as { id: number; role: string };
    expect(JSON.parse(created.stdout)).toMatchObject({ username: 'stella', role: 'admin' });
    expect((await stockroom(['admin', 'user', 'list'])).stdout).toMatch(new RegExp(`^${id}\tstella\tenabled\tadmin$`, 'm'));
    expect(await stockroom(['admin', 'user', 'set-role', 'stella', 'editor'])).toMatchObject({ code: 0, stdout: 'stella is now editor of the back office (/admin).\n' });
    expect((JSON.parse((await stockroom(['admin', 'user', 'list', '--json'])).stdout) as { users: Array<Record<string, unknown>> }).users.find((entry) => entry.id === id)).toMatchObject({ role: 'editor' });
    expect(await stockroom(['admin', 'user', 'set-role', 'stella', 'none'])).toMatchObject({ code: 0, stdout: 'stella is a customer: no role in the back office.\n' });
    const wrong = await stockroom(['admin', 'user', 'set-role', 'stella', 'owner']);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain('must be one of editor, admin, or none');
    expect((await stockroom(['admin', 'user', 'set-role', 'nobody', 'admin'])).stderr.trim()).toBe('stockroom: no user named nobody');
    const badCreate = await stockroom(['admin', 'user', 'create', '--username', 'x', '--role', 'boss'], 'staff password 1\n');
    expect(badCreate.code).not.toBe(0);
    expect(badCreate.stderr).toContain('must be one of editor, admin');
  });

  it('lists clients with kind, state, grants and limits, and enables a disabled client by its id', async () => {
    const created = JSON.parse((await stockroom(['admin', 'client', 'create', '--name', 'Listed app', '--qps', '7', '--json'])).stdout) as { api_key: string };
    const id = (await withStore((database) => database.db.selectFrom('api_clients').select('id').where('name', '=', 'Listed app').executeTakeFirstOrThrow())).id;
    expect(await stockroom(['admin', 'client', 'disable', String(id)])).toMatchObject({ code: 0, stdout: 'Disabled.\n' });

    const listed = JSON.parse((await stockroom(['admin', 'client', 'list', '--json'])).stdout) as { clients: Array<Record<string, unknown>> };
    expect(listed.clients.find((entry) => entry.id === id)).toEqual({
      id,
      name: 'Listed app',
      kind: 'confidential',
      enabled: false,
      key_hint: created.api_key.slice(-4),
      grants: ['authorization_code', 'implicit', 'refresh_token', 'client_credentials'],
      redirect_uris: [],
      queries_per_second: 7,
      queries_per_day: null,
      usage_reporting: false,
      order_metadata: false,
      created_at: expect.any(String),
    });
    expect(listed.clients.find((entry) => entry.name === 'Mobile app')).toMatchObject({ kind: 'public', enabled: true });
    const lines = (await stockroom(['admin', 'client', 'list'])).stdout;
    expect(lines).toMatch(new RegExp(`^${id}\tListed app\tconfidential\tdisabled\tkey …${created.api_key.slice(-4)}\tauthorization_code,implicit,refresh_token,client_credentials\t7/s, 100000/day \\(default\\)\tenabled for: none$`, 'm'));
    expect(lines).not.toContain(created.api_key);

    expect(await stockroom(['admin', 'client', 'enable', String(id)])).toMatchObject({ code: 0, stdout: 'Enabled.\n' });
    expect(await withStore((database) => database.db.selectFrom('api_clients').select('disabled').where('id', '=', id).executeTakeFirstOrThrow())).toEqual({ disabled: 0 });
    const unknown = await stockroom(['admin', 'client', 'enable', '424242']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.trim()).toBe('stockroom: no client has the id 424242');
    expect((await stockroom(['admin', 'client', 'enable', 'not-a-key'])).stderr.trim()).toBe('stockroom: no client holds that API key');
  });
});
