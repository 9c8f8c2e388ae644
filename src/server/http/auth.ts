import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/database.ts';
import { findLiveSession, touchSession, type AccountUser } from '../features/auth/account.repo.ts';
import { hashSecret, isWellFormedToken } from '../features/auth/credentials.ts';
import { unauthorized } from './errors.ts';

/**
 * Bearer-token authentication (guide §6). A session token is 256 random bits; only its SHA-256
 * is stored. A session ends at its absolute expiry, after SESSION_IDLE_MS without use, or when
 * revoked (sign-out, password change, reset, email change).
 *
 * Usage in a route:  const user = requireUser(request);   // 401 when not signed in
 */

export type AuthUser = AccountUser;

export interface RequestAuth {
  user: AuthUser;
  sessionId: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth hook for a valid bearer session; null otherwise. */
    auth: RequestAuth | null;
  }
  interface FastifyContextConfig {
    /** Marks an /api route that answers without a session (see PUBLIC_ROUTE). */
    public?: boolean;
  }
}

/**
 * Every /api route needs a session unless its options say `config: PUBLIC_ROUTE`: secure by
 * default, and a 401 comes before any validation, so an anonymous caller learns nothing else.
 */
export const PUBLIC_ROUTE = { public: true } as const;

export const SESSION_TTL_MS = 30 * 24 * 3600_000;
export const SESSION_IDLE_MS = 7 * 24 * 3600_000;
/** last_seen_at is written at most this often per session (one write a minute, not per request). */
const TOUCH_INTERVAL_MS = 60_000;

/** The token of an `Authorization: Bearer <token>` header, if well formed. */
export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  const token = match?.[1];
  return token && isWellFormedToken(token) ? token : undefined;
}

/** Resolves the session of every /api request that carries a bearer token. Call before features. */
export function registerAuthentication(app: FastifyInstance, deps: { db: Db; clock: Clock }): void {
  app.decorateRequest('auth', null);
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/api/') || route.config?.public) return;
    const existing = route.preValidation ? [route.preValidation].flat() : [];
    route.preValidation = [requireSessionHook, ...existing];
  });
  app.addHook('onRequest', async (request) => {
    if (!request.url.startsWith('/api/')) return;
    const token = bearerToken(request);
    if (!token) return;
    const now = deps.clock.now();
    const found = await findLiveSession(deps.db, hashSecret(token), now, SESSION_IDLE_MS);
    if (!found) return;
    if (now.getTime() - found.lastSeenAt.getTime() >= TOUCH_INTERVAL_MS) {
      await touchSession(deps.db, found.sessionId, now);
    }
    request.auth = { user: found.user, sessionId: found.sessionId };
  });
}

async function requireSessionHook(request: FastifyRequest): Promise<void> {
  requireSession(request);
}

/** The signed-in user, or a 401 `{ error: 'Not authenticated', code: 'unauthenticated' }`. */
export function requireUser(request: FastifyRequest): AuthUser {
  return requireSession(request).user;
}

/** The signed-in user and the id of the session making this request. */
export function requireSession(request: FastifyRequest): RequestAuth {
  if (!request.auth) throw unauthorized();
  return request.auth;
}
