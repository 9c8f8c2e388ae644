import type { Executor } from '../../db/executor.ts';
import type { OAuthProviderName } from '../../db/schema.ts';

/** The oauth_accounts table: which provider account signs in to which user. */

export async function findUserIdByIdentity(
  db: Executor,
  provider: OAuthProviderName,
  providerUserId: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('oauth_accounts')
    .select('user_id')
    .where('provider', '=', provider)
    .where('provider_user_id', '=', providerUserId)
    .executeTakeFirst();
  return row?.user_id;
}

/** Unlinks the identities linked to a user at or after `since` (an email change being undone). */
export async function deleteIdentitiesSince(db: Executor, userId: string, since: Date): Promise<number> {
  const result = await db
    .deleteFrom('oauth_accounts')
    .where('user_id', '=', userId)
    .where('created_at', '>=', since)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function insertIdentity(
  db: Executor,
  values: { provider: OAuthProviderName; providerUserId: string; userId: string; email: string; now: Date },
): Promise<void> {
  await db
    .insertInto('oauth_accounts')
    .values({
      provider: values.provider,
      provider_user_id: values.providerUserId,
      user_id: values.userId,
      email: values.email,
      created_at: values.now,
    })
    .execute();
}
