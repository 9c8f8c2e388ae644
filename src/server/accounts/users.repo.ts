import { sql, type Selectable } from 'kysely';
import type { Plan, SubscriptionStatus } from '../../shared/plans.ts';
import type { Executor } from '../db/executor.ts';
import type { UsersTable } from '../db/schema.ts';

/**
 * The users table, shared by the features that read or change an account (auth, user, billing),
 * the session lookup and the operator commands. Knows nothing of HTTP; every function takes the
 * executor (the pool or a transaction) and the current time from the caller's clock.
 */

/** A user as the rest of the server sees it: never the password hash, only whether there is one. */
export interface AccountUser {
  id: string;
  email: string;
  verified: boolean;
  verifiedAt: Date | null;
  plan: Plan;
  subscriptionStatus: SubscriptionStatus;
  loginAlerts: boolean;
  hasPassword: boolean;
  createdAt: Date;
}

// The target clients are the pre-send checklist's (src/server/checks/target-clients.ts), not the
// session's; the last login alert's device is the sign-in's alone.
type UserRow = Omit<
  Selectable<UsersTable>,
  'password_hash' | 'target_clients' | 'review_notifications' | 'login_alert_devices'
> & {
  has_password: boolean;
};

export function toAccountUser(row: UserRow): AccountUser {
  return {
    id: row.id,
    email: row.email,
    verified: row.verified_at !== null,
    verifiedAt: row.verified_at,
    plan: row.plan,
    subscriptionStatus: row.subscription_status,
    loginAlerts: row.login_alerts,
    hasPassword: row.has_password,
    createdAt: row.created_at,
  };
}

/** Every column but the password hash; with `hasPassword`, what toAccountUser reads. */
export const userColumns = [
  'users.id',
  'users.email',
  'users.verified_at',
  'users.plan',
  'users.subscription_status',
  'users.stripe_customer_id',
  'users.stripe_subscription_id',
  'users.current_period_end',
  'users.cancel_at_period_end',
  'users.login_alerts',
  'users.last_login_alert_at',
  'users.created_at',
  'users.updated_at',
] as const;
export const hasPassword = sql<boolean>`users.password_hash is not null`.as('has_password');

export async function findUserById(db: Executor, id: string): Promise<AccountUser | undefined> {
  const row = await db
    .selectFrom('users')
    .select([...userColumns, hasPassword])
    .where('id', '=', id)
    .executeTakeFirst();
  return row && toAccountUser(row);
}

export async function findUserByEmail(db: Executor, email: string): Promise<AccountUser | undefined> {
  const row = await db
    .selectFrom('users')
    .select([...userColumns, hasPassword])
    .where(sql`lower(email)`, '=', email.toLowerCase())
    .executeTakeFirst();
  return row && toAccountUser(row);
}

/** The user and their password hash, for the few places that check a password. */
export async function findCredentialsByEmail(
  db: Executor,
  email: string,
): Promise<{ user: AccountUser; passwordHash: string | null } | undefined> {
  const row = await db
    .selectFrom('users')
    .select([...userColumns, hasPassword, 'users.password_hash'])
    .where(sql`lower(email)`, '=', email.toLowerCase())
    .executeTakeFirst();
  return row && { user: toAccountUser(row), passwordHash: row.password_hash };
}

export async function findPasswordHash(db: Executor, userId: string): Promise<string | null> {
  const row = await db
    .selectFrom('users')
    .select('password_hash')
    .where('id', '=', userId)
    .executeTakeFirst();
  return row?.password_hash ?? null;
}

/** An account's row as it is under its lock: what proves who may act on it. */
export interface LockedAccount {
  id: string;
  email: string;
  passwordHash: string | null;
  verified: boolean;
}

/**
 * Locks the user's row until the transaction ends and reads it as it is now. FOR NO KEY UPDATE:
 * what an UPDATE of the row takes, so it waits for one, and it leaves rows that reference the
 * user free to be written. Every change that takes an account back (a password reset or change, a
 * provider claiming it, an email change confirmed or undone) takes this lock before it ends the
 * sessions, and every sign-in takes it to check that what it checked is still current before it
 * opens one: whichever comes second sees the other
 * (docs/decisions/0020-provider-email-claims-unverified-account.md). Take it first in the
 * transaction, before any token or session row, so two of these never wait on each other.
 */
export async function lockAccount(db: Executor, userId: string): Promise<LockedAccount | undefined> {
  const row = await db
    .selectFrom('users')
    .select(['id', 'email', 'password_hash', 'verified_at'])
    .where('id', '=', userId)
    .forNoKeyUpdate()
    .executeTakeFirst();
  return (
    row && {
      id: row.id,
      email: row.email,
      passwordHash: row.password_hash,
      verified: row.verified_at !== null,
    }
  );
}

export async function insertUser(
  db: Executor,
  values: { email: string; passwordHash: string | null; verifiedAt: Date | null; now: Date },
): Promise<AccountUser> {
  const row = await db
    .insertInto('users')
    .values({
      email: values.email,
      password_hash: values.passwordHash,
      verified_at: values.verifiedAt,
      created_at: values.now,
      updated_at: values.now,
    })
    .returning([...userColumns, hasPassword])
    .executeTakeFirstOrThrow();
  return toAccountUser(row);
}

export async function setPasswordHash(db: Executor, userId: string, passwordHash: string | null, now: Date) {
  await db
    .updateTable('users')
    .set({ password_hash: passwordHash, updated_at: now })
    .where('id', '=', userId)
    .execute();
}

/** Marks the email verified (keeps the first verification time). */
export async function markVerified(db: Executor, userId: string, now: Date): Promise<void> {
  await db
    .updateTable('users')
    .set({ verified_at: sql`coalesce(verified_at, ${now})`, updated_at: now })
    .where('id', '=', userId)
    .execute();
}

/** Switches to a proven new address; throws a unique violation when someone took it meanwhile. */
export async function setEmail(db: Executor, userId: string, email: string, now: Date): Promise<void> {
  await db
    .updateTable('users')
    .set({ email, verified_at: now, updated_at: now })
    .where('id', '=', userId)
    .execute();
}

/**
 * Takes the login alert of a sign-in from `device` (a hash of its IP and browser), if alerts are on
 * and that device had none in the last `minGapMs`, in one statement: the device's time is written
 * and the devices past the gap are dropped, so the map holds only the devices of the last gap.
 */
export async function claimLoginAlert(
  db: Executor,
  userId: string,
  now: Date,
  minGapMs: number,
  device: string,
): Promise<{ email: string } | undefined> {
  const since = new Date(now.getTime() - minGapMs).toISOString();
  const result = await sql<{ email: string }>`
    update users
       set last_login_alert_at = ${now},
           login_alert_devices = coalesce(
             (select jsonb_object_agg(key, value)
                from jsonb_each_text(coalesce(login_alert_devices, '{}'::jsonb))
               where value > ${since}),
             '{}'::jsonb) || jsonb_build_object(${device}::text, ${now.toISOString()}::text)
     where id = ${userId}
       and login_alerts
       and coalesce(login_alert_devices ->> ${device}::text <= ${since}, true)
    returning email`.execute(db);
  return result.rows[0];
}

/**
 * Deletes an account and everything in it (the operator's `delete-account`, src/server/admin.ts):
 * the local catcher's copies of its mail, the mail queued for it or from its sends (the outbox
 * references an email without a foreign key, and holds the recipients' addresses), then the user, whose rows the foreign keys cascade to
 * (emails, shares, reviews, thumbnails, sessions, tokens, API keys, identities, usage). Sessions
 * cached by running servers are forgotten through the sessions trigger (migration 0014).
 */
export async function deleteAccount(db: Executor, userId: string): Promise<{ emails: number }> {
  return db.transaction().execute(async (trx) => {
    const user = await trx
      .selectFrom('users')
      .select('email')
      .where('id', '=', userId)
      .forUpdate()
      .executeTakeFirst();
    if (!user) return { emails: 0 };
    const sends = trx.selectFrom('emails').select('id').where('user_id', '=', userId);
    // The local catcher's copies (src/server/mail/catcher.ts): of its sends, by message id, and of
    // the mail sent to it.
    await trx
      .deleteFrom('caught_mail')
      .where((eb) =>
        eb.or([
          eb(
            'message_id',
            'in',
            eb.selectFrom('mail_outbox').select('message_id').where('email_id', 'in', sends),
          ),
          eb(eb.val(user.email), '=', eb.fn.any('to_addresses')),
        ]),
      )
      .execute();
    await trx
      .deleteFrom('mail_outbox')
      .where((eb) =>
        eb.or([
          eb('email_id', 'in', eb.selectFrom('emails').select('id').where('user_id', '=', userId)),
          eb.and([eb('email_id', 'is', null), eb(eb.val(user.email), '=', eb.fn.any('to_addresses'))]),
        ]),
      )
      .execute();
    const emails = await trx
      .selectFrom('emails')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    await trx.deleteFrom('users').where('id', '=', userId).execute();
    return { emails: Number(emails.n) };
  });
}

export async function setPlan(
  db: Executor,
  email: string,
  plan: Plan,
  now: Date,
): Promise<AccountUser | undefined> {
  const row = await db
    .updateTable('users')
    .set({ plan, updated_at: now })
    .where(sql`lower(email)`, '=', email.toLowerCase())
    .returning([...userColumns, hasPassword])
    .executeTakeFirst();
  return row && toAccountUser(row);
}
