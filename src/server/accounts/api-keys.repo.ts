import type { Executor } from '../db/executor.ts';
import { effectivePlan } from './effective-plan.ts';
import { hasPassword, toAccountUser, userColumns, type AccountUser } from './users.repo.ts';

/**
 * The api_keys table (docs/decisions/0073-personal-api-keys.md): one row per live key; the key is
 * stored only as its SHA-256. Every query but the lookup by hash is scoped to its owner.
 */

export interface ApiKeyRow {
  id: string;
  name: string;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

const listColumns = ['id', 'name', 'prefix', 'created_at', 'last_used_at'] as const;

function toRow(row: {
  id: string;
  name: string;
  prefix: string;
  created_at: Date;
  last_used_at: Date | null;
}): ApiKeyRow {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
  };
}

export async function insertApiKey(
  db: Executor,
  values: { userId: string; name: string; keyHash: Buffer; prefix: string; now: Date },
): Promise<ApiKeyRow> {
  const row = await db
    .insertInto('api_keys')
    .values({
      user_id: values.userId,
      name: values.name,
      key_hash: values.keyHash,
      prefix: values.prefix,
      created_at: values.now,
    })
    .returning(listColumns)
    .executeTakeFirstOrThrow();
  return toRow(row);
}

export async function listApiKeys(db: Executor, userId: string): Promise<ApiKeyRow[]> {
  const rows = await db
    .selectFrom('api_keys')
    .select(listColumns)
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .execute();
  return rows.map(toRow);
}

export async function countApiKeys(db: Executor, userId: string): Promise<number> {
  const row = await db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Deletes the user's key; false when the user has no key with that id. */
export async function deleteApiKey(db: Executor, userId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('api_keys')
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/**
 * Revokes every key of the user, when the account is taken back (a password reset, "this wasn't
 * me", a provider sign-in that claims a never-verified account): how many there were.
 */
export async function deleteUserApiKeys(db: Executor, userId: string): Promise<number> {
  const result = await db.deleteFrom('api_keys').where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The live key for a hash, with its owner as the auth hook needs them. */
export async function findApiKeyByHash(
  db: Executor,
  keyHash: Buffer,
  now: Date,
): Promise<{ keyId: string; lastUsedAt: Date | null; user: AccountUser } | undefined> {
  const row = await db
    .selectFrom('api_keys')
    .innerJoin('users', 'users.id', 'api_keys.user_id')
    .select([
      ...userColumns,
      hasPassword,
      'api_keys.id as key_id',
      'api_keys.last_used_at as key_last_used_at',
    ])
    .where('api_keys.key_hash', '=', keyHash)
    .executeTakeFirst();
  if (!row) return undefined;
  // The plan in force now, as for a session (src/server/accounts/sessions.repo.ts).
  const plan = effectivePlan(
    {
      plan: row.plan,
      subscriptionStatus: row.subscription_status,
      cancelAtPeriodEnd: row.cancel_at_period_end,
      currentPeriodEnd: row.current_period_end,
    },
    now,
  );
  return { keyId: row.key_id, lastUsedAt: row.key_last_used_at, user: { ...toAccountUser(row), plan } };
}

export async function touchApiKey(db: Executor, id: string, now: Date): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', id).execute();
}
