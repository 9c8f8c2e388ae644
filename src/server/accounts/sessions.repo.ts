import type { Executor } from '../db/executor.ts';
import type { PlanState } from './effective-plan.ts';
import { hasPassword, toAccountUser, userColumns, type AccountUser } from './users.repo.ts';

/** The sessions table: one row per signed-in browser; the token is stored only as its SHA-256. */

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

/** A session row with its user, as the lookup reads it (and the session cache keeps it). */
export interface LiveSession {
  sessionId: string;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  /** The user with the plan as stored; effectivePlan(billing, now) gives the plan in force. */
  user: AccountUser;
  billing: PlanState;
}

/** The live session for a token hash: before its absolute expiry and seen within the idle limit. */
export async function findLiveSession(
  db: Executor,
  tokenHash: Buffer,
  now: Date,
  idleMs: number,
): Promise<LiveSession | undefined> {
  const row = await db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select([
      ...userColumns,
      hasPassword,
      'sessions.id as session_id',
      'sessions.created_at as session_created_at',
      'sessions.last_seen_at as session_last_seen_at',
      'sessions.expires_at as session_expires_at',
    ])
    .where('sessions.token_hash', '=', tokenHash)
    .where('sessions.expires_at', '>', now)
    .where('sessions.last_seen_at', '>', new Date(now.getTime() - idleMs))
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    sessionId: row.session_id,
    createdAt: row.session_created_at,
    lastSeenAt: row.session_last_seen_at,
    expiresAt: row.session_expires_at,
    user: toAccountUser(row),
    billing: {
      plan: row.plan,
      subscriptionStatus: row.subscription_status,
      cancelAtPeriodEnd: row.cancel_at_period_end,
      currentPeriodEnd: row.current_period_end,
    },
  };
}

export async function touchSession(db: Executor, sessionId: string, now: Date): Promise<void> {
  await db.updateTable('sessions').set({ last_seen_at: now }).where('id', '=', sessionId).execute();
}

/** Whether the user's session still exists: a request's session may end while the request runs. */
export async function sessionExists(db: Executor, sessionId: string, userId: string): Promise<boolean> {
  const row = await db
    .selectFrom('sessions')
    .select('id')
    .where('id', '=', sessionId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row !== undefined;
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
