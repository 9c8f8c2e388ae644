import type { Clock } from '../clock.ts';
import type { Db } from '../db/database.ts';
import type { Executor } from '../db/executor.ts';
import type { RequestAuth, SessionResolver } from '../http/auth.ts';
import { hashSecret, hashSecretBase64, isWellFormedToken, newSecretToken } from './credentials.ts';
import { effectivePlan } from './effective-plan.ts';
import type { SessionCache } from './session-cache.ts';
import { findLiveSession, insertSession, touchSession, type LiveSession } from './sessions.repo.ts';

/**
 * Sessions (docs/architecture.md §6, docs/decisions/0013-bearer-session-tokens.md). A session
 * token is 256 random bits; only its SHA-256 is stored. A session ends at its absolute expiry,
 * after SESSION_IDLE_MS without use, or when revoked (sign-out, password change, reset, email
 * change).
 */

export const SESSION_TTL_MS = 30 * 24 * 3600_000;
export const SESSION_IDLE_MS = 7 * 24 * 3600_000;
/** last_seen_at is written at most this often per session (one write a minute, not per request). */
const TOUCH_INTERVAL_MS = 60_000;
const MAX_USER_AGENT = 512;

/** Who is asking: recorded on the session and shown in login alerts. */
export interface ClientInfo {
  ip: string;
  userAgent: string | null;
}

/** Opens a session for the user and returns its bearer token (the only time it exists in clear). */
export async function startSession(
  db: Executor,
  userId: string,
  client: ClientInfo,
  now: Date,
): Promise<string> {
  const token = newSecretToken();
  await insertSession(db, {
    userId,
    tokenHash: hashSecret(token),
    now,
    expiresAt: new Date(now.getTime() + SESSION_TTL_MS),
    ip: client.ip,
    userAgent: client.userAgent?.slice(0, MAX_USER_AGENT) ?? null,
  });
  return token;
}

/**
 * The one session lookup: what the auth hook (src/server/http/auth.ts) asks for every /api
 * request that carries a bearer token. With a `cache` (src/server/accounts/session-cache.ts, as
 * main.ts passes one), a hit costs no database round trip; without one, every request reads the
 * database. Either way a session past its absolute expiry or idle limit is refused, and
 * last_seen_at is written at most once a minute.
 */
export function createSessionResolver(deps: { db: Db; clock: Clock; cache?: SessionCache }): SessionResolver {
  const { db, cache } = deps;
  const touchIfDue = async (session: LiveSession, now: Date) => {
    if (now.getTime() - session.lastSeenAt.getTime() < TOUCH_INTERVAL_MS) return;
    session.lastSeenAt = now; // the cached copy too: the next request of the minute writes nothing
    await touchSession(db, session.sessionId, now);
  };
  const lookUp = async (key: string, now: Date): Promise<RequestAuth | undefined> => {
    const ticket = cache?.ticket();
    const found = await findLiveSession(db, Buffer.from(key, 'base64'), now, SESSION_IDLE_MS);
    if (!found) return undefined;
    await touchIfDue(found, now);
    if (cache && ticket !== undefined) cache.put(key, found, ticket);
    return authOf(found, now);
  };
  return {
    resolve(token) {
      if (!isWellFormedToken(token)) return undefined; // malformed tokens never reach the database
      const now = deps.clock.now();
      const key = hashSecretBase64(token);
      const cached = cache?.get(key);
      if (cached && isLive(cached, now)) {
        // A hit answers without a promise, unless last_seen_at is due (once a minute).
        if (now.getTime() - cached.lastSeenAt.getTime() < TOUCH_INTERVAL_MS) return authOf(cached, now);
        return touchIfDue(cached, now).then(() => authOf(cached, now));
      }
      if (cached) cache!.delete(key);
      return lookUp(key, now);
    },
    forgetUser(userId) {
      cache?.forgetUser(userId);
    },
  };
}

/** What findLiveSession checks in SQL, checked again on a cached copy against the clock. */
function isLive(session: LiveSession, now: Date): boolean {
  return (
    session.expiresAt.getTime() > now.getTime() &&
    session.lastSeenAt.getTime() > now.getTime() - SESSION_IDLE_MS
  );
}

/**
 * The request's view: the plan in force now (a cancelled subscription keeps Pro only until its
 * period ends). A cached session hands out the same view while its plan stays the same, frozen so
 * that no request can change what the next one reads.
 */
const views = new WeakMap<LiveSession, RequestAuth>();

function authOf(session: LiveSession, now: Date): RequestAuth {
  const plan = effectivePlan(session.billing, now);
  const known = views.get(session);
  if (known && known.user.plan === plan) return known;
  const view: RequestAuth = Object.freeze({
    user: Object.freeze({ ...session.user, plan }),
    sessionId: session.sessionId,
    signedInAt: session.createdAt,
  });
  views.set(session, view);
  return view;
}
