import { hash, verify } from '@node-rs/argon2';
import type { UserRow, UsersRepository } from './users.repository.js';

export interface User {
  id: number;
  username: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
}

export interface NewUser {
  username: string;
  password: string;
  first_name?: string | null;
  last_name?: string | null;
  email?: string | null;
}

/** End users who sign in to authorize applications; passwords are kept as argon2id hashes. */
export class UsersService {
  constructor(private readonly repository: UsersRepository) {}

  async create(input: NewUser): Promise<User> {
    const username = input.username.trim();
    if (!username) throw new Error('a user needs a username');
    if (input.password.length < 8) throw new Error('a password needs at least 8 characters');
    const now = new Date().toISOString();
    const row = await this.repository.insert({
      username,
      password_hash: await hash(input.password),
      first_name: input.first_name ?? null,
      last_name: input.last_name ?? null,
      email: input.email ?? null,
      password_changed_at: now,
      created_at: now,
    });
    return toUser(row);
  }

  async verifyPassword(username: string, password: string): Promise<User | undefined> {
    const row = await this.repository.findByUsername(username);
    if (!row) return undefined;
    return (await verify(row.password_hash, password)) ? toUser(row) : undefined;
  }

  async findByUsername(username: string): Promise<User | undefined> {
    const row = await this.repository.findByUsername(username);
    return row ? toUser(row) : undefined;
  }
}

function toUser(row: UserRow): User {
  return { id: row.id, username: row.username, first_name: row.first_name, last_name: row.last_name, email: row.email };
}
