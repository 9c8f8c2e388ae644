import { randomBytes } from 'node:crypto';
import type { Db } from '../../src/server/db/database.ts';
import { startSession } from '../../src/server/accounts/sessions.ts';
import { insertUser, type AccountUser } from '../../src/server/accounts/users.repo.ts';
import type { Plan } from '../../src/shared/plans.ts';

export interface TestUser {
  user: AccountUser;
  token: string;
  /** Headers for app.inject: the bearer token. */
  headers: { authorization: string };
}

/**
 * A user with a live session, made through the server's own accounts module (no
 * password: tests that sign in with one use the API instead).
 */
export async function createUser(
  db: Db,
  options: { email?: string; plan?: Plan; verified?: boolean; now?: Date } = {},
): Promise<TestUser> {
  const now = options.now ?? new Date();
  const email = options.email ?? `user-${randomBytes(4).toString('hex')}@example.com`;
  const user = await insertUser(db, {
    email,
    passwordHash: null,
    verifiedAt: options.verified === false ? null : now,
    now,
  });
  if (options.plan === 'pro') {
    await db.updateTable('users').set({ plan: 'pro', subscription_status: 'active' }).where('id', '=', user.id).execute();
    user.plan = 'pro';
    user.subscriptionStatus = 'active';
  }
  const token = await startSession(db, user.id, { ip: '127.0.0.1', userAgent: 'vitest' }, now);
  return { user, token, headers: { authorization: `Bearer ${token}` } };
}
