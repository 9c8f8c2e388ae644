import type { Db } from '../../src/server/db/database.ts';
import { hashPassword } from '../../src/server/accounts/credentials.ts';
import { startSession } from '../../src/server/accounts/sessions.ts';
import { insertUser, type AccountUser } from '../../src/server/accounts/users.repo.ts';
import type { Plan } from '../../src/shared/plans.ts';

/** The password tests sign up and in with. */
export const PASSWORD = 'correct horse battery';

let counter = 0;
/** A fresh address per call, so tests in one file (on one database) do not collide. */
export function uniqueEmail(prefix = 'user'): string {
  counter += 1;
  return `${prefix}.${Date.now().toString(36)}.${counter}@example.com`;
}

export interface TestUser {
  user: AccountUser;
  token: string;
  /** Headers for app.inject: the bearer token. */
  headers: { authorization: string };
}

/**
 * A user with a live session, made through the server's shared accounts module; without a
 * password unless one is given (hashed as sign-up hashes it).
 */
export async function createUser(
  db: Db,
  options: { email?: string; password?: string; plan?: Plan; verified?: boolean; now?: Date } = {},
): Promise<TestUser> {
  const now = options.now ?? new Date();
  const email = options.email ?? uniqueEmail();
  const user = await insertUser(db, {
    email,
    passwordHash: options.password === undefined ? null : await hashPassword(options.password),
    verifiedAt: options.verified === false ? null : now,
    now,
  });
  if (options.plan === 'pro') {
    await db
      .updateTable('users')
      .set({ plan: 'pro', subscription_status: 'active' })
      .where('id', '=', user.id)
      .execute();
    user.plan = 'pro';
    user.subscriptionStatus = 'active';
  }
  const token = await startSession(db, user.id, { ip: '127.0.0.1', userAgent: 'vitest' }, now);
  return { user, token, headers: { authorization: `Bearer ${token}` } };
}
