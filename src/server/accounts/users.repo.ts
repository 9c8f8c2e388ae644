import { sql, type Selectable } from 'kysely';
import type { Plan, SubscriptionStatus } from '../../../shared/plans.ts';
import type { Executor } from '../../db/executor.ts';
import type { OAuthProviderName, TokenPurpose, UsersTable } from '../../db/schema.ts';
import { effectivePlan } from '../billing/plan-rules.ts';

/**
 * The accounts data layer (users, social identities, sessions, one-time tokens), shared by the
 * auth and user features and by the auth hook. Knows nothing of HTTP; every function takes the
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

type UserRow = Omit<Selectable<UsersTable>, 'password_hash'> & { has_password: boolean };

function toAccountUser(row: UserRow): AccountUser {
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

const userColumns = [
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
const hasPassword = sql<boolean>`users.password_hash is not null`.as('has_password');

export function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === '23505';
}

// ---------- users ----------

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
 * Claims the right to send a login alert: only when alerts are on and none went out in the last
 * `minGapMs`. One atomic update, so two simultaneous sign-ins send one alert.
 */
export async function claimLoginAlert(
  db: Executor,
  userId: string,
  now: Date,
  minGapMs: number,
): Promise<{ email: string } | undefined> {
  return db
    .updateTable('users')
    .set({ last_login_alert_at: now })
    .where('id', '=', userId)
    .where('login_alerts', '=', true)
    .where((eb) =>
      eb.or([
        eb('last_login_alert_at', 'is', null),
        eb('last_login_alert_at', '<=', new Date(now.getTime() - minGapMs)),
      ]),
    )
    .returning('email')
    .executeTakeFirst();
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

// ---------- social identities ----------

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

// ---------- sessions ----------

export async function insertSession(
  db: Executor,
  values: {
    userId: string;
    tokenHash: Buffer;
    now: Date;
    expiresAt: Date;
    ip: string | null;
    userAgent: string | null;
  },
): Promise<string> {
  const row = await db
    .insertInto('sessions')
    .values({
      user_id: values.userId,
      token_hash: values.tokenHash,
      created_at: values.now,
      last_seen_at: values.now,
      expires_at: values.expiresAt,
      ip: values.ip,
      user_agent: values.userAgent,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The live session for a token hash: before its absolute expiry and seen within the idle limit. */
export async function findLiveSession(
  db: Executor,
  tokenHash: Buffer,
  now: Date,
  idleMs: number,
): Promise<{ sessionId: string; lastSeenAt: Date; user: AccountUser } | undefined> {
  const row = await db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select([
      ...userColumns,
      hasPassword,
      'sessions.id as session_id',
      'sessions.last_seen_at as session_last_seen_at',
    ])
    .where('sessions.token_hash', '=', tokenHash)
    .where('sessions.expires_at', '>', now)
    .where('sessions.last_seen_at', '>', new Date(now.getTime() - idleMs))
    .executeTakeFirst();
  if (!row) return undefined;
  // The plan in force now (billing: a cancelled subscription keeps Pro only until its period ends).
  const plan = effectivePlan(
    {
      plan: row.plan,
      subscriptionStatus: row.subscription_status,
      cancelAtPeriodEnd: row.cancel_at_period_end,
      currentPeriodEnd: row.current_period_end,
    },
    now,
  );
  return {
    sessionId: row.session_id,
    lastSeenAt: row.session_last_seen_at,
    user: { ...toAccountUser(row), plan },
  };
}

export async function touchSession(db: Executor, sessionId: string, now: Date): Promise<void> {
  await db.updateTable('sessions').set({ last_seen_at: now }).where('id', '=', sessionId).execute();
}

export async function deleteSession(db: Executor, sessionId: string): Promise<void> {
  await db.deleteFrom('sessions').where('id', '=', sessionId).execute();
}

/** Revokes every session of a user, or every one but `exceptSessionId`. */
export async function deleteUserSessions(
  db: Executor,
  userId: string,
  exceptSessionId?: string,
): Promise<number> {
  let q = db.deleteFrom('sessions').where('user_id', '=', userId);
  if (exceptSessionId) q = q.where('id', '!=', exceptSessionId);
  const result = await q.executeTakeFirst();
  return Number(result.numDeletedRows);
}

// ---------- one-time tokens ----------

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
 * one of the given purposes. Two concurrent uses cannot both succeed.
 */
export async function consumeToken(
  db: Executor,
  hash: Buffer,
  purposes: TokenPurpose[],
  now: Date,
): Promise<ConsumedToken | undefined> {
  const row = await db
    .updateTable('tokens')
    .set({ used_at: now })
    .where('hash', '=', hash)
    .where('purpose', 'in', purposes)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['user_id', 'purpose', 'payload'])
    .executeTakeFirst();
  return row && { userId: row.user_id, purpose: row.purpose, payload: row.payload };
}

/** Whether a token is currently usable, without using it (to skip work for dead links). */
export async function isTokenUsable(
  db: Executor,
  hash: Buffer,
  purpose: TokenPurpose,
  now: Date,
): Promise<boolean> {
  const row = await db
    .selectFrom('tokens')
    .select('id')
    .where('hash', '=', hash)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row !== undefined;
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

// ---------- housekeeping ----------

/** Deletes expired sessions and tokens that can no longer be used. */
export async function pruneAccounts(db: Executor, now: Date, idleMs: number): Promise<void> {
  await db
    .deleteFrom('sessions')
    .where((eb) =>
      eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<=', new Date(now.getTime() - idleMs))]),
    )
    .execute();
  // Keep a day of history of used/expired tokens for support questions, then drop them.
  await db
    .deleteFrom('tokens')
    .where('expires_at', '<=', new Date(now.getTime() - 24 * 3600_000))
    .execute();
}
