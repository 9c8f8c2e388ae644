import { sql } from 'kysely';
import type { Executor } from '../db/executor.ts';
import type { TokenPurpose } from '../db/schema.ts';
import { lockAccount, type LockedAccount } from './users.repo.ts';

/** The tokens table: one-time links and tickets, stored only as their SHA-256. */

export async function insertToken(
  db: Executor,
  values: {
    hash: Buffer;
    userId: string;
    purpose: TokenPurpose;
    payload?: Record<string, string>;
    now: Date;
    expiresAt: Date;
  },
): Promise<void> {
  await db
    .insertInto('tokens')
    .values({
      hash: values.hash,
      user_id: values.userId,
      purpose: values.purpose,
      payload: values.payload ? JSON.stringify(values.payload) : null,
      created_at: values.now,
      expires_at: values.expiresAt,
    })
    .execute();
}

export interface ConsumedToken {
  userId: string;
  purpose: TokenPurpose;
  payload: Record<string, string> | null;
}

/**
 * Uses a token exactly once: one atomic update that only matches an unused, unexpired token of
 * one of the given purposes (and, with `payloadMatch`, whose payload holds that value). Two
 * concurrent uses cannot both succeed; a use that does not match leaves the token usable.
 *
 * Run it in a transaction: it locks the token's account row first (users.repo.ts lockAccount),
 * and whatever the caller does with the token in that transaction happens wholly before any
 * change that takes the account back (which then retires the token or undoes what it did), or
 * wholly after it (when the token is already retired).
 */
export async function consumeToken(
  trx: Executor,
  hash: Buffer,
  purposes: TokenPurpose[],
  now: Date,
  payloadMatch?: { key: string; value: string },
): Promise<(ConsumedToken & { account: LockedAccount }) | undefined> {
  const owner = await findTokenOwner(trx, hash, purposes, now);
  const account = owner === undefined ? undefined : await lockAccount(trx, owner);
  if (!account) return undefined;
  let q = trx
    .updateTable('tokens')
    .set({ used_at: now })
    .where('hash', '=', hash)
    .where('user_id', '=', account.id)
    .where('purpose', 'in', purposes)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now);
  if (payloadMatch) q = q.where(sql`payload ->> ${payloadMatch.key}`, '=', payloadMatch.value);
  const row = await q.returning(['user_id', 'purpose', 'payload']).executeTakeFirst();
  return row && { userId: row.user_id, purpose: row.purpose, payload: row.payload, account };
}

/**
 * The account an unused, unexpired token belongs to, without using it (to skip work for dead
 * links, and to know which row to lock before using one).
 */
export async function findTokenOwner(
  db: Executor,
  hash: Buffer,
  purposes: TokenPurpose[],
  now: Date,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('tokens')
    .select('user_id')
    .where('hash', '=', hash)
    .where('purpose', 'in', purposes)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row?.user_id;
}

/**
 * The links a new password, a reset or a confirmed email change retires: everything that could
 * still act on the account. Not the "this wasn't me" link mailed to a previous address, which
 * must keep working for its owner (docs/decisions/0033-email-change-needs-password.md).
 */
export const PENDING_LINK_PURPOSES: TokenPurpose[] = ['verify', 'reset', 'change_email', 'oauth_ticket'];

/** Retires every pending link of a user (PENDING_LINK_PURPOSES). */
export function retirePendingLinks(db: Executor, userId: string, now: Date): Promise<void> {
  return retireTokens(db, userId, now, PENDING_LINK_PURPOSES);
}

/** Retires a user's open tokens (of some purposes, or all), e.g. older reset links. */
export async function retireTokens(
  db: Executor,
  userId: string,
  now: Date,
  purposes?: TokenPurpose[],
): Promise<void> {
  let q = db
    .updateTable('tokens')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('used_at', 'is', null);
  if (purposes) q = q.where('purpose', 'in', purposes);
  await q.execute();
}
