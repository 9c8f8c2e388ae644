import type { Clock } from '../clock.ts';
import type { Db } from '../db/database.ts';
import type { Executor } from '../db/executor.ts';
import type { SessionResolver } from '../http/auth.ts';
import { hashSecret, isWellFormedToken, newSecretToken } from './credentials.ts';
import { findLiveSession, insertSession, touchSession } from './sessions.repo.ts';

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
 * request that carries a bearer token. Reads the database each time; a cache in front of it
 * implements the same interface.
 */
export function createSessionResolver(deps: { db: Db; clock: Clock }): SessionResolver {
  return {
    async resolve(token) {
      if (!isWellFormedToken(token)) return undefined; // malformed tokens never reach the database
      const now = deps.clock.now();
      const found = await findLiveSession(deps.db, hashSecret(token), now, SESSION_IDLE_MS);
      if (!found) return undefined;
      if (now.getTime() - found.lastSeenAt.getTime() >= TOUCH_INTERVAL_MS) {
        await touchSession(deps.db, found.sessionId, now);
      }
      return { user: found.user, sessionId: found.sessionId, signedInAt: found.createdAt };
    },
  };
}
