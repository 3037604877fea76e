import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/platform/db/database.js';
import { OAuthStore } from '../../src/oauth/oauth.store.js';
import { TokensService } from '../../src/oauth/tokens.service.js';
import { UsersRepository } from '../../src/oauth/users.repository.js';
import { UsersService } from '../../src/oauth/users.service.js';
import { readStoreIn } from '../helpers/test-store.js';

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
    const printed = JSON.parse(run.stdout) as { id: number; username: string };
    expect(printed).toEqual({ id: expect.any(Number), username: 'alice' });
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
});
